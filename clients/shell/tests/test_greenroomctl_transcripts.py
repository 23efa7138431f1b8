"""Transcripts from the shell: `greenroomctl session --record FILE` and `greenroomctl replay FILE`
(docs/transcripts.md).

Fake-host tests script exactly what the host says (events before replies, replies out of order, a token),
and check what the transcript holds; a fake `greenroom` binary shows how `replay` maps greenroomctl's
connection options onto `greenroom replay`'s; real-host tests record a session and replay it, over the
Unix socket, TCP and WebSocket.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys

import pytest
from ctlharness import SCRIPT, SHELL, Close, clean_env, default_behaviour, greenroom_bin, run
from test_greenroomctl_remote import auth_behaviour, token_file, tokens  # noqa: F401  (a fixture)

INFO = {"name": "greenroom", "version": "9.9.9", "protocol": {"jsonrpc": "2.0", "version": 1}, "clock": "virtual",
        "pid": 1, "listen": ["unix:/x"]}


def with_info(behaviour=default_behaviour, info=INFO):
    def answer(req, conn):
        if req.get("method") == "host.info":
            conn.result(req, info)
        else:
            behaviour(req, conn)

    return answer


def entries(path) -> list[dict]:
    text = open(path).read()
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def ids_and_kinds(lines: list[dict]) -> list[str]:
    """Each line after the header in a few words: `send 2`, `recv 2`, `recv lifecycle`."""
    out = []
    for e in lines[1:]:
        kind, message = next(iter(e.items()))
        out.append(f"{kind} {message.get('id', message.get('method'))}")
    return out


# --------------------------------------------------------------------------
# session --record, on the fake host


def test_record_holds_what_the_session_said_and_heard(fake, tmp_path):
    def chatty(req, conn):
        if req.get("method") == "echo" and not str(req["id"]).startswith("greenroomctl:"):
            conn.event("lifecycle", seq=1, t=0.0, cause=req["id"], container="c-1", event="viewDidLoad")
        default_behaviour(req, conn)

    host = fake(with_info(chatty))
    out = tmp_path / "s.ndjson"
    r = run("--socket", host.path, "session", "--record", str(out),
            input='echo {"a":1}\nthis is not { a request\n# a comment\necho {"b":[1,2]}\nnosuch.method\n')
    assert r.returncode == 2, r.stderr  # the bad line and nosuch.method are error replies
    lines = entries(out)
    assert lines[0] == {"transcript": "greenroom", "version": 1, "protocol": 1, "clock": "virtual", "host": "9.9.9"}
    # Request 2 was the bad line: greenroomctl answered it, the host never saw it, so it is in neither.
    assert ids_and_kinds(lines) == ["send 1", "recv lifecycle", "recv 1", "send 3", "recv lifecycle", "recv 3",
                                    "send 4", "recv 4"]
    assert lines[1]["send"] == {"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"a": 1}}
    assert lines[4]["send"]["params"] == {"b": [1, 2]}
    # The output is what it is without --record (the session prints what it always printed).
    printed = [json.loads(line) for line in r.stdout.splitlines()]
    assert [m.get("id", m.get("method")) for m in printed] == ["lifecycle", 1, 2, "lifecycle", 3, 4]
    # host.info for the header went on a connection of its own: the session's own connection did not send it.
    assert [q["method"] for q in host.requests()].count("host.info") == 1


def test_record_keeps_the_hosts_text_and_places_each_request_before_its_replies(fake, tmp_path):
    """Requests pipelined, their replies late: every request is still before its own reply and the events
    that came just before that reply (each request is placed before the first reply that answers it)."""
    held: list = []

    def late(req, conn):
        rid = req["id"]
        if req.get("method") == "host.info":
            conn.result(req, INFO)
        elif str(rid).startswith("greenroomctl:"):
            for r, c in held:
                c.send('{"jsonrpc":"2.0","method":"page","params":{"seq":%d,"t":16.0}}' % r)
                c.send('{"jsonrpc":"2.0","id":%d,"result":{"now":16.0}}' % r)
            held.clear()
            conn.result(req, {"pong": True})
        else:
            held.append((rid, conn))

    host = fake(late)
    out = tmp_path / "s.ndjson"
    r = run("--socket", host.path, "session", "--record", str(out), input="a.b\nc.d\ne.f\n")
    assert r.returncode == 0, r.stderr
    assert ids_and_kinds(entries(out)) == ["send 1", "recv page", "recv 1", "send 2", "recv page", "recv 2",
                                           "send 3", "recv page", "recv 3"]
    assert '{"recv":{"jsonrpc":"2.0","id":2,"result":{"now":16.0}}}\n' in out.read_text(), "the host's own text"


def test_record_with_a_token_leaves_the_authentication_out(fake, tokens, tmp_path):
    host = fake(with_info(auth_behaviour()), tcp=True)
    out = tmp_path / "s.ndjson"
    r = run("--tcp", host.address, "--token-file", token_file(tokens), "session", "--record", str(out),
            input='echo {"x":1}\n')
    assert r.returncode == 0, r.stderr
    lines = entries(out)
    assert ids_and_kinds(lines) == ["send 1", "recv 1"]
    assert "host.auth" not in out.read_text() and "s3cret" not in out.read_text()
    # Both connections authenticated: the header's and the session's.
    assert [q["method"] for q in host.requests()].count("host.auth") == 2


def test_record_refuses_a_file_it_cannot_write_before_sending_anything(fake, tmp_path):
    host = fake(with_info())
    r = run("--socket", host.path, "session", "--record", str(tmp_path / "no" / "dir.ndjson"), input="echo {}\n")
    assert r.returncode == 64 and "cannot write" in r.stderr
    assert host.requests() == []
    r = run("--socket", host.path, "session", "--record", input="echo {}\n")
    assert r.returncode == 64 and "--record needs a FILE" in r.stderr
    r = run("--socket", host.path, "session", "--nope", input="")
    assert r.returncode == 64 and "unknown argument '--nope'" in r.stderr


def test_record_when_host_info_fails(fake, tmp_path):
    def refuse(req, conn):
        conn.error(req, -32601, "Method not found", {"method": req.get("method")})

    host = fake(refuse)
    out = tmp_path / "s.ndjson"
    r = run("--socket", host.path, "session", "--record", str(out), input="echo {}\n")
    assert r.returncode == 2 and json.loads(r.stderr)["code"] == -32601, r.stderr
    assert [q["method"] for q in host.requests()] == ["host.info"], "the session never started"

    host = fake(with_info(info={"protocol": "one"}))
    r = run("--socket", host.path, "session", "--record", str(out), input="echo {}\n")
    assert r.returncode == 1 and "no protocol version and clock" in r.stderr


def test_a_session_the_host_ends_is_still_recorded(fake, tmp_path):
    def hang_up(req, conn):
        if req.get("method") == "bye":
            conn.event("host", seq=1, t=0.0, kind="parting")
            raise Close
        with_info()(req, conn)

    host = fake(hang_up)
    out = tmp_path / "s.ndjson"
    r = run("--socket", host.path, "session", "--record", str(out), input="host.ping\nbye\n")
    assert r.returncode == 1
    assert ids_and_kinds(entries(out)) == ["send 1", "recv 1", "send 2", "recv host"]


# --------------------------------------------------------------------------
# replay: the options it gives greenroom replay (a fake binary prints them)


@pytest.fixture
def fake_greenroom(tmp_path):
    """A `greenroom` that writes its arguments as JSON to stdout and exits with $FAKE_REPLAY_EXIT."""
    path = tmp_path / "bin" / "greenroom"
    path.parent.mkdir()
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" -c \'import json, os, sys; '
                    'print(json.dumps(sys.argv[1:])); sys.exit(int(os.environ.get("FAKE_REPLAY_EXIT", "0")))\' "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def replay_args(*args, env):
    r = run(*args, env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_replay_maps_the_connection_options(fake_greenroom, tokens):
    env = clean_env(GREENROOM_BIN=str(fake_greenroom), GREENROOM_SOCKET="/not/used.sock")
    # No option: a fresh host of its own. $GREENROOM_SOCKET is not taken: a replay resets the host it uses.
    assert replay_args("replay", "t.ndjson", env=env) == ["replay", "t.ndjson"]
    assert replay_args("replay", "t.ndjson", "--update", env=env) == ["replay", "t.ndjson", "--update"]
    assert replay_args("--socket", "unix:/tmp/h.sock", "replay", "t.ndjson", env=env) == [
        "replay", "t.ndjson", "--socket", "/tmp/h.sock"]
    assert replay_args("replay", "--socket=/tmp/h.sock", "t.ndjson", env=env) == [
        "replay", "t.ndjson", "--socket", "/tmp/h.sock"]
    token = token_file(tokens)
    assert replay_args("--tcp", "tcp:127.0.0.1:7000", "--token-file", token, "replay", "a b.ndjson", "--update",
                       env=env) == ["replay", "a b.ndjson", "--connect", "tcp:127.0.0.1:7000", "--token-file", token,
                                    "--update"]
    assert replay_args("replay", "t.ndjson", "--tcp", "[::1]:7000", env=env) == [
        "replay", "t.ndjson", "--connect", "tcp:[::1]:7000"]
    assert replay_args("replay", "t.ndjson", "--plugin", "/p/lib A.so", "--plugin=/p/libB.so", env=env) == [
        "replay", "t.ndjson", "--plugin", "/p/lib A.so", "--plugin", "/p/libB.so"]


def test_replay_over_a_websocket_goes_through_a_relay_socket(fake_greenroom, tokens):
    """greenroom replay speaks lines over a socket: greenroomctl stands a relay of its own (socat on a socket in
    a private directory, one WebSocket bridge per connection) in front of the URL, and removes it after."""
    env = clean_env(GREENROOM_BIN=str(fake_greenroom))
    token = token_file(tokens)
    args = replay_args("--ws", "ws://127.0.0.1:8765/rpc", "--token-file", token, "replay", "t.ndjson", "--update",
                       env=env)
    assert args[:3] == ["replay", "t.ndjson", "--socket"] and args[3].endswith("/relay.sock"), args
    assert args[4:] == ["--token-file", token, "--update"], args
    assert not os.path.exists(os.path.dirname(args[3])), "the relay's directory is gone"


@pytest.mark.parametrize("args, says", [
    (["--ws", "ws://127.0.0.1:8765/rpc", "replay", "t.ndjson", "--plugin", "/p.so"], "--plugin loads a plugin"),
    (["--ws", "ws://127.0.0.1:8765/rpc", "--socket", "/tmp/h.sock", "replay", "t.ndjson"], "name two hosts"),
    (["replay"], "missing FILE"),
    (["replay", "a.ndjson", "b.ndjson"], "one FILE at a time"),
    (["replay", "t.ndjson", "--token-file", "/x/token"], "--token-file is for a running host"),
    (["--socket", "/tmp/h.sock", "replay", "t.ndjson", "--plugin", "/p.so"], "--plugin loads a plugin"),
    (["--socket", "/tmp/h.sock", "--tcp", "127.0.0.1:1", "replay", "t.ndjson"], "name two hosts"),
    (["--socket", "tcp:127.0.0.1:7000", "replay", "t.ndjson"], "use --tcp 127.0.0.1:7000"),
    (["--tcp", "127.0.0.1", "replay", "t.ndjson"], "--tcp wants HOST:PORT"),
    (["replay", "t.ndjson", "--fast"], "unknown option '--fast'"),
])
def test_replay_usage_errors(fake_greenroom, args, says):
    r = run(*args, env=clean_env(GREENROOM_BIN=str(fake_greenroom)))
    assert r.returncode == 64 and says in r.stderr and r.stdout == "", r.stderr


def test_replay_passes_the_exit_status_on(fake_greenroom):
    for code in (0, 1, 2):
        r = run("replay", "t.ndjson", env=clean_env(GREENROOM_BIN=str(fake_greenroom), FAKE_REPLAY_EXIT=str(code)))
        assert r.returncode == code


def test_replay_finds_the_binary_or_says_so(fake_greenroom, tmp_path):
    """$GREENROOM_BIN, then greenroom on PATH, then the repository's build beside the script; else a sentence
    and exit 2 (1 would read as "a difference")."""
    repo = tmp_path / "repo"
    (repo / "clients" / "shell").mkdir(parents=True)
    script = repo / "clients" / "shell" / "greenroomctl"
    shutil.copy(SCRIPT, script)
    base = {k: v for k, v in clean_env().items() if k != "GREENROOM_BIN"}
    no_greenroom_path = "/usr/bin:/bin"
    shutil.which("greenroom", path=no_greenroom_path) is None or pytest.skip("a greenroom is installed in /usr/bin")

    def replay(env):
        import subprocess
        return subprocess.run([SHELL, str(script), "replay", "t.ndjson"], capture_output=True, text=True,
                              timeout=30, env=env)

    r = replay(dict(base, PATH=no_greenroom_path))
    assert r.returncode == 2 and "replay needs the greenroom binary" in r.stderr and "GREENROOM_BIN" in r.stderr
    release = repo / ".build" / "release" / "greenroom"
    release.parent.mkdir(parents=True)
    shutil.copy(fake_greenroom, release)
    assert replay(dict(base, PATH=no_greenroom_path)).returncode == 0
    on_path = tmp_path / "path"
    on_path.mkdir()
    shutil.copy(fake_greenroom, on_path / "greenroom")
    os.remove(release)
    assert replay(dict(base, PATH=f"{on_path}:{no_greenroom_path}")).returncode == 0
    r = replay(dict(base, PATH=no_greenroom_path, GREENROOM_BIN=str(tmp_path / "missing")))
    assert r.returncode == 2 and "is not an executable file" in r.stderr


# --------------------------------------------------------------------------
# real host: record a session, replay it


SCRIPT_LINES = "\n".join([
    'events.subscribe {"topics":["lifecycle","page"]}',
    'page.create {"class":"Container","count":3,"width":375,"height":667,"initialIndex":1}',
    'page.willBeginDragging {"session":"p-1","offset":375}',
    'page.didScroll {"session":"p-1","offset":450}',
    'page.didScroll {"session":"p-1","offset":370}',
    'page.willEndDragging {"session":"p-1","offset":200,"velocity":-0.8,"targetOffset":0}',
    'page.didEndDragging {"session":"p-1","offset":200,"willDecelerate":true}',
    'page.didEndDecelerating {"session":"p-1","offset":0}',
    "",
])


def record_on(real_host_args: list[str], out, env=None) -> None:
    r = run(*real_host_args, "session", "--record", str(out), input=SCRIPT_LINES, env=env)
    assert r.returncode == 0, r.stderr


def test_a_recorded_session_replays_the_same(real_host, tmp_path):
    out = tmp_path / "swipe.ndjson"
    record_on(["--socket", real_host.path], out)
    lines = entries(out)
    assert lines[0]["transcript"] == "greenroom" and lines[0]["protocol"] == 1 and lines[0]["clock"] == "virtual"
    env = clean_env(GREENROOM_BIN=str(greenroom_bin()))
    r = run("replay", str(out), env=env)
    assert r.returncode == 0 and "the same (8 requests" in r.stdout, r.stdout + r.stderr
    # And against the running host it was recorded on: reset, then the same (its clock never moved).
    r = run("--socket", real_host.path, "replay", str(out), env=env)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_changed_order_is_exit_1_naming_the_container_and_the_request(real_host, tmp_path):
    out = tmp_path / "swipe.ndjson"
    record_on(["--socket", real_host.path], out)
    text = out.read_text().splitlines()
    at = next(i for i, line in enumerate(text) if '"event":"viewDidAppear"' in line and '"cause":8' in line)
    assert '"event":"viewDidDisappear"' in text[at + 1]
    text[at], text[at + 1] = text[at + 1], text[at]
    out.write_text("\n".join(text) + "\n")
    r = run("replay", str(out), env=clean_env(GREENROOM_BIN=str(greenroom_bin())))
    assert r.returncode == 1, r.stdout + r.stderr
    assert 'under request 8 (page.didEndDecelerating {"session":"p-1","offset":0})' in r.stdout, r.stdout
    assert "c-1 viewDidDisappear (cause 8)" in r.stdout and "c-3 viewDidAppear (cause 8)" in r.stdout


@pytest.mark.parametrize("damage, says", [
    (lambda text: text[:-30], "is cut off"),
    (lambda text: "not json\n" + text, "is not JSON"),
    (lambda text: text.replace('"version":1', '"version":99', 1), "newer Greenroom"),
])
def test_a_file_that_is_not_a_transcript_is_one_sentence_and_exit_2(real_host, tmp_path, damage, says):
    out = tmp_path / "swipe.ndjson"
    record_on(["--socket", real_host.path], out)
    out.write_text(damage(out.read_text()))
    r = run("replay", str(out), env=clean_env(GREENROOM_BIN=str(greenroom_bin())))
    assert r.returncode == 2 and r.stdout == "", r.stdout + r.stderr
    assert says in r.stderr and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


@pytest.fixture
def token_host(tokens):
    from ctlharness import RealHost
    host = RealHost(greenroom_bin(), "--listen", "tcp:127.0.0.1:0", "--listen", "ws:127.0.0.1:0",
                    "--token-file", token_file(tokens))
    yield host
    host.stop()


@pytest.mark.parametrize("scheme", ["tcp", "ws"])
def test_record_and_replay_over_tcp_and_websocket_with_a_token(token_host, tokens, tmp_path, scheme):
    endpoint = ["--" + scheme, token_host.address(scheme), "--token-file", os.path.join(tokens, "token")]
    out = tmp_path / "swipe.ndjson"
    record_on(endpoint, out)
    assert "host.auth" not in out.read_text()
    env = clean_env(GREENROOM_BIN=str(greenroom_bin()))
    r = run("replay", str(out), env=env)  # a fresh host of its own
    assert r.returncode == 0, r.stdout + r.stderr
    tcp = ["--tcp", token_host.address("tcp"), "--token-file", os.path.join(tokens, "token")]
    r = run(*tcp, "replay", str(out), env=env)  # the running host, over TCP with the token
    assert r.returncode == 0, r.stdout + r.stderr
    if scheme == "ws":
        r = run(*endpoint, "replay", str(out), env=env)  # the running host, over its WebSocket listener
        assert r.returncode == 0, r.stdout + r.stderr


def test_the_readme_example_is_true(real_host, tmp_path):
    """The README's record-and-replay block, run as written (greenroomctl on PATH, GREENROOM_SOCKET set):
    the replay prints what its comment says."""
    import re
    import subprocess

    readme = (SCRIPT.parent / "README.md").read_text()
    block = re.search(r"```sh\n(greenroomctl session --record swipe\.ndjson.*?)```", readme, re.S).group(1)
    command, _, said = block.rstrip("\n").rpartition("\n")[2].partition("#")
    commands = block.rstrip("\n").rpartition("\n")[0] + "\n" + command.strip() + "\n"
    env = clean_env(GREENROOM_SOCKET=real_host.path, GREENROOM_BIN=str(greenroom_bin()),
                    PATH=f"{SCRIPT.parent}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run([SHELL, "-c", commands], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == said.strip(), done.stdout
