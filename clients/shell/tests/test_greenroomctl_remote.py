"""greenroomctl over the host's other listeners: `--tcp HOST:PORT`, `--ws URL`, and `--token-file F`.

* fake-host tests: the fake of ctlharness.py on TCP, and behind a WebSocket upgrade (FakeWSHost, which
  keeps the upgrade's headers and every frame), script exact behaviour: what goes on the wire (host.auth
  first, one masked text frame per request, a clean close), what comes out (the same bytes a Unix
  socket gives), fragmented messages and pings, refusals.
* real-host tests: `greenroom serve --listen tcp:... --listen ws:... --token-file F --clock virtual`
  driven by every command over both listeners, as docs/security.md's token rules say.

The WebSocket side runs greenroom's wsbridge.py (clients/python/src/greenroom) with python3, as an
installed greenroomctl does.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading

import pytest
from ctlharness import (
    JQ_MODES,
    SCRIPT,
    SHELL,
    RealHost,
    clean_env,
    greenroom_bin,
    read_line,
    run,
    short_tmpdir,
    wait_for,
)

TOKEN = "s3cret-token-0123456789"
BRIDGE = SCRIPT.parent.parent / "python" / "src" / "greenroom" / "wsbridge.py"


def token_file(directory: str, text: str = TOKEN + "\n", name: str = "token") -> str:
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o600)
    return path


@pytest.fixture
def tokens():
    d = short_tmpdir()
    yield d
    shutil.rmtree(d, ignore_errors=True)


def auth_behaviour(token: str = TOKEN):
    """The fake host with docs/security.md's rule: host.auth with the right token, else -32006 for
    everything."""
    state = {"authenticated": False}

    def behaviour(req, conn):
        if req.get("method") == "host.auth":
            if req["params"]["token"] == token:
                state["authenticated"] = True
                conn.result(req, {"authenticated": True})
            else:
                conn.error(req, -32006, "Unauthorized: wrong token", {"kind": "unauthorized", "path": "token"})
        elif not state["authenticated"]:
            conn.error(req, -32006, "Unauthorized", {"kind": "unauthorized", "method": req.get("method")})
        elif req.get("method") == "host.ping":
            conn.result(req, {"pong": True})
        elif req.get("method") == "echo":
            conn.result(req, req.get("params"))
        elif req.get("method") == "events.subscribe":
            conn.result(req, {"topics": req["params"]["topics"]})
            conn.event("host", seq=1, t=0.0, kind="first")
        else:
            conn.error(req, -32601, "Method not found", {"method": req.get("method")})

    return behaviour


# --------------------------------------------------------------------------
# usage


def test_endpoint_usage_errors_exit_64_and_connect_to_nothing(fake, tokens):
    host = fake(tcp=True)
    empty = token_file(tokens, "  \n", "empty")
    for args in [
        ("--tcp", "127.0.0.1", "ping"),                  # no port
        ("--tcp", "127.0.0.1:http", "ping"),
        ("--tcp", "a,b:1", "ping"),                      # socat address syntax is not a host
        ("--tcp", "", "ping"),
        ("--ws", "http://127.0.0.1:1/rpc", "ping"),
        ("--ws", "ws://127.0.0.1:1/a b", "ping"),
        ("--tcp", host.address, "--ws", "ws://127.0.0.1:1/rpc", "ping"),
        ("--socket", host.path, "--tcp", host.address, "ping"),
        ("--tcp", host.address, "--token-file", os.path.join(tokens, "missing"), "ping"),
        ("--tcp", host.address, "--token-file", empty, "ping"),
        ("--tcp", host.address, "--token-file", tokens, "ping"),  # a directory
        ("--socket", "tcp:" + host.address, "ping"),     # the old spelling: now a pointer to --tcp
        ("events", "--tcp", host.address),                # no topic
    ]:
        r = run(*args)
        assert r.returncode == 64, (args, r.stdout, r.stderr)
        assert r.stdout == ""
    r = run("--socket", "tcp:" + host.address, "ping")
    assert f"use --tcp {host.address}" in r.stderr
    assert host.opened == 0


def test_help_names_the_listeners():
    r = run("--help")
    assert r.returncode == 0
    assert "--tcp HOST:PORT" in r.stdout and "--ws URL" in r.stdout and "--token-file F" in r.stdout


# --------------------------------------------------------------------------
# TCP (fake host)


@pytest.mark.parametrize("jq", JQ_MODES)
def test_tcp_gives_what_the_unix_socket_gives(jq, fake):
    """The same fake on a Unix socket and on TCP: every command's output, stderr and status are the same."""
    unix, tcp = fake(), fake(tcp=True)
    for args, stdin in [
        (("ping",), ""),
        (("call", "echo", '{"big":123456789012345678901,"s":"\\u2028"}'), ""),
        (("call", "nosuch"), ""),
        (("batch",), '{"method":"host.ping"}\n{"method":"echo","params":[1]}\n'),
        (("session",), 'host.ping\necho {"a":1}\nnot json {\n'),
    ]:
        a = run("--socket", unix.path, *args, input=stdin, jq=jq)
        b = run("--tcp", tcp.address, *args, input=stdin, jq=jq)
        assert (b.returncode, b.stdout, b.stderr) == (a.returncode, a.stdout, a.stderr), args
    assert tcp.received == unix.received


def test_tcp_accepts_the_ready_lines_spelling(fake):
    host = fake(tcp=True)
    r = run("--tcp", "tcp:" + host.address, "ping")
    assert (r.returncode, r.stdout) == (0, '{"pong":true}\n'), r.stderr


def test_token_file_authenticates_first_and_its_reply_is_not_printed(fake, tokens):
    host = fake(auth_behaviour(), tcp=True)
    path = token_file(tokens, f"\t{TOKEN}  \n")  # trimmed as the host trims it
    r = run("--tcp", host.address, "--token-file", path, "call", "echo", '{"n":1}')
    assert (r.returncode, r.stdout, r.stderr) == (0, '{"n":1}\n', "")
    assert host.requests() == [
        {"jsonrpc": "2.0", "id": "greenroomctl:auth", "method": "host.auth", "params": {"token": TOKEN}},
        {"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"n": 1}},
    ]
    # session and batch: ids and replies as without a token (the auth reply is neither printed nor counted).
    r = run("--tcp", host.address, "--token-file", path, "session", input="host.ping\necho [2]\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ['{"jsonrpc":"2.0","id":1,"result":{"pong":true}}',
                                     '{"jsonrpc":"2.0","id":2,"result":[2]}']
    r = run("--tcp", host.address, "--token-file", path, "batch", input='{"method":"host.ping"}\n')
    assert r.stdout == '{"jsonrpc":"2.0","id":1,"result":{"pong":true}}\n', r.stderr
    r = run("--tcp", host.address, "--token-file", path, "events", "--count", "1", "host")
    assert json.loads(r.stdout)["params"]["kind"] == "first", r.stderr


def test_a_token_with_quotes_and_backslashes_is_sent_as_json(fake, tokens):
    odd = 'a"b\\c-0123456789abcdef'
    host = fake(auth_behaviour(odd), tcp=True)
    r = run("--tcp", host.address, "--token-file", token_file(tokens, odd), "ping")
    assert r.returncode == 0, r.stderr
    assert host.requests()[0]["params"] == {"token": odd}


@pytest.mark.parametrize("command,stdin", [
    (("ping",), ""), (("events", "host"), ""), (("batch",), '{"method":"host.ping"}\n'),
    (("session",), "host.ping\nhost.ping\n"),
])
def test_a_refused_token_is_the_outcome_exit_2(fake, tokens, command, stdin):
    host = fake(auth_behaviour(), tcp=True)
    r = run("--tcp", host.address, "--token-file", token_file(tokens, "wrong-token-0123456789"), *command,
            input=stdin)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stdout == ""
    assert json.loads(r.stderr) == {"code": -32006, "message": "Unauthorized: wrong token",
                                    "data": {"kind": "unauthorized", "path": "token"}}


def test_without_a_token_a_tcp_host_with_one_refuses_the_call(fake):
    host = fake(auth_behaviour(), tcp=True)
    r = run("--tcp", host.address, "ping")
    assert r.returncode == 2 and json.loads(r.stderr)["code"] == -32006


def test_the_token_is_never_on_a_command_line(fake, tokens):
    """While greenroomctl waits for a reply, no process on the machine has the token in its arguments."""
    gate = threading.Event()

    def behaviour(req, conn):
        if req.get("method") == "host.auth":
            conn.result(req, {"authenticated": True})
        else:
            gate.wait(10)
            conn.result(req, {"pong": True})

    host = fake(behaviour, tcp=True)
    p = subprocess.Popen([SHELL, str(SCRIPT), "--tcp", host.address, "--token-file", token_file(tokens), "ping"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
    try:
        wait_for(lambda: len(host.received) == 2, 10, "both requests")
        seen = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    seen.append(f.read())
            except OSError:
                continue
        assert len(seen) > 3 and not [c for c in seen if TOKEN.encode() in c]
        gate.set()
        out, err = p.communicate(timeout=10)
        assert (p.returncode, out) == (0, '{"pong":true}\n'), err
    finally:
        gate.set()
        if p.poll() is None:
            p.kill()
            p.wait()


def test_tcp_connection_refused_is_a_transport_failure():
    with socket_closed_port() as port:
        r = run("--tcp", f"127.0.0.1:{port}", "ping")
    assert r.returncode == 1 and r.stdout == ""
    assert f"connection to 127.0.0.1:{port} failed" in r.stderr and "refused" in r.stderr


class socket_closed_port:
    """A loopback port nobody listens on (bound, not listening, for the test's length)."""

    def __enter__(self) -> int:
        import socket

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        return self.sock.getsockname()[1]

    def __exit__(self, *exc: object) -> None:
        self.sock.close()


# --------------------------------------------------------------------------
# WebSocket (fake host)


def test_ws_sends_one_masked_text_frame_per_request_and_closes_cleanly(fake_ws):
    host = fake_ws()
    r = run("--ws", host.url, "call", "echo", '{"a":[1,2]}')
    assert (r.returncode, r.stdout, r.stderr) == (0, '{"a":[1,2]}\n', "")
    [headers] = host.headers
    assert headers["request"] == "GET /rpc HTTP/1.1"
    assert headers["host"] == host.url.split("/")[2] and headers["upgrade"].lower() == "websocket"
    assert headers["sec-websocket-version"] == "13" and headers["sec-websocket-protocol"] == "greenroom"
    assert "origin" not in headers  # a native client: no Origin, as docs/security.md expects
    assert host.wait_closed()
    assert host.frames == [(0x1, True), (0x8, True)] and host.closes == [1000]
    assert host.requests() == [{"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"a": [1, 2]}}]


@pytest.mark.parametrize("jq", JQ_MODES)
def test_ws_gives_what_the_unix_socket_gives(jq, fake, fake_ws):
    unix, ws = fake(), fake_ws(pieces=3, ping=True)  # fragmented messages with a ping inside
    for args, stdin in [
        (("ping",), ""),
        (("call", "echo", '{"big":123456789012345678901,"s":"\\u2028","long":"' + "x" * 70000 + '"}'), ""),
        (("call", "nosuch"), ""),
        (("batch",), '{"method":"host.ping"}\n{"method":"echo","params":[1]}\n'),
        (("session",), 'host.ping\n\n# a comment\necho {"a":1}\nnot json {\n'),
    ]:
        a = run("--socket", unix.path, *args, input=stdin, jq=jq)
        b = run("--ws", ws.url, *args, input=stdin, jq=jq)
        assert (b.returncode, b.stdout, b.stderr) == (a.returncode, a.stdout, a.stderr), args[:1]
    assert ws.received == unix.received
    assert (0xA, True) in ws.frames  # the pings were answered


def test_ws_accepts_the_ready_lines_spelling(fake_ws):
    host = fake_ws()
    r = run("--ws", "ws:" + host.url[len("ws://"):-len("/rpc")], "ping")
    assert (r.returncode, r.stdout) == (0, '{"pong":true}\n'), r.stderr
    assert host.headers[0]["request"] == "GET /rpc HTTP/1.1"


def test_ws_with_a_token_authenticates_first(fake_ws, tokens):
    host = fake_ws(auth_behaviour())
    r = run("--ws", host.url, "--token-file", token_file(tokens), "session", input="host.ping\n")
    assert r.returncode == 0 and r.stdout == '{"jsonrpc":"2.0","id":1,"result":{"pong":true}}\n', r.stderr
    # host.auth first; the last ping is the session's own end-of-input marker (see the README).
    assert [q["id"] for q in host.requests()] == ["greenroomctl:auth", 1, "greenroomctl:eof:1"]
    r = run("--ws", host.url, "--token-file", token_file(tokens, "wrong-token-0123456789", "bad"), "ping")
    assert r.returncode == 2 and json.loads(r.stderr)["message"] == "Unauthorized: wrong token"


def test_ws_refused_upgrade_says_why(fake_ws):
    host = fake_ws(refuse=("403 Forbidden", "Origin not allowed: start the host with --allow-origin ORIGIN"))
    r = run("--ws", host.url, "ping")
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == (f"greenroomctl: connection to {host.url} failed: the host refused the WebSocket upgrade: "
                        "HTTP/1.1 403 Forbidden: Origin not allowed: start the host with --allow-origin ORIGIN\n")


def test_ws_parting_error_then_close_is_the_reply(fake_ws):
    """A host that refuses the connection says why (id null), then closes: that error is call's outcome."""

    def behaviour(req, conn):
        conn.error(None, -32005, "Limit exceeded: too many connections", {"kind": "limitExceeded"})
        conn.close(1008)

    r = run("--ws", fake_ws(behaviour).url, "ping")
    assert r.returncode == 2 and json.loads(r.stderr)["code"] == -32005


def test_ws_host_gone_is_a_transport_failure():
    with socket_closed_port() as port:
        r = run("--ws", f"ws://127.0.0.1:{port}/rpc", "ping")
    assert r.returncode == 1 and r.stdout == ""
    assert f"connection to ws://127.0.0.1:{port}/rpc failed: connect to 127.0.0.1:{port}" in r.stderr


def test_ws_finds_its_bridge_installed_or_in_the_python_package(fake_ws, tokens):
    """Where `make install` puts them (bin/greenroomctl, lib/greenroom/wsbridge.py), run by an interpreter
    that has no greenroom package; else `python -m greenroom.wsbridge` from the package; else it says so."""
    host = fake_ws()
    bare_python = sys._base_executable  # the interpreter under this venv: no greenroom package in it
    os.makedirs(os.path.join(tokens, "bin"))
    os.makedirs(os.path.join(tokens, "lib", "greenroom"))
    script = os.path.join(tokens, "bin", "greenroomctl")
    shutil.copy(SCRIPT, script)
    shutil.copy(BRIDGE, os.path.join(tokens, "lib", "greenroom"))
    bare = {k: v for k, v in clean_env(GREENROOM_PYTHON=bare_python).items() if k != "PYTHONPATH"}
    ctl = [SHELL, script, "--ws", host.url, "ping"]
    r = subprocess.run(ctl, capture_output=True, text=True, timeout=30, env=bare)
    assert (r.returncode, r.stdout) == (0, '{"pong":true}\n'), r.stderr
    os.remove(os.path.join(tokens, "lib", "greenroom", "wsbridge.py"))
    r = subprocess.run(ctl, capture_output=True, text=True, timeout=30, env=bare)
    assert r.returncode == 1 and "neither beside greenroomctl nor importable" in r.stderr
    package = dict(bare, PYTHONPATH=str(BRIDGE.parent.parent))
    r = subprocess.run(ctl, capture_output=True, text=True, timeout=30, env=package)
    assert (r.returncode, r.stdout) == (0, '{"pong":true}\n'), r.stderr


def test_ws_without_python_says_what_it_needs(fake_ws):
    r = run("--ws", fake_ws().url, "ping", env=clean_env(GREENROOM_PYTHON="no-such-python3"))
    assert r.returncode == 1 and "--ws needs python3" in r.stderr


# --------------------------------------------------------------------------
# real host: tcp and ws listeners with a token


@pytest.fixture
def remote_host(tokens):
    host = RealHost(greenroom_bin(), "--listen", "tcp:127.0.0.1:0", "--listen", "ws:127.0.0.1:0",
                    "--token-file", token_file(tokens))
    yield host
    host.stop()


@pytest.fixture(params=["tcp", "ws"])
def endpoint(request, remote_host, tokens):
    """greenroomctl's arguments for one listener of `remote_host`, with the token."""
    address = remote_host.address(request.param)
    return ["--" + request.param, address, "--token-file", os.path.join(tokens, "token")]


def test_real_call_and_errors_over_each_listener(remote_host, endpoint):
    r = run(*endpoint, "call", "clock.advance", '{"ms":300}')
    assert (r.returncode, r.stdout, r.stderr) == (0, '{"now":300.0,"ms":300.0,"fired":0}\n', "")
    r = run(*endpoint, "call", "container.info", '{"container":"c-404"}')
    assert r.returncode == 2 and json.loads(r.stderr)["code"] == -32002
    r = run(*endpoint[:2], "ping")  # no token: docs/security.md's -32006 until host.auth
    assert r.returncode == 2 and json.loads(r.stderr)["data"]["kind"] == "unauthorized"


def test_real_session_keeps_its_objects_over_each_listener(remote_host, endpoint):
    r = run(*endpoint, "session", input='classes.define {"name":"Card"}\nshowRendered {"class":"Card"}\n'
                                        'container.info {"container":"c-1"}\n')
    assert r.returncode == 0, r.stderr
    replies = [json.loads(line) for line in r.stdout.splitlines()]
    assert [m["id"] for m in replies] == [1, 2, 3]
    assert replies[1]["result"]["container"] == "c-1" and replies[2]["result"]["container"] == "c-1"


def test_real_batch_and_events_over_each_listener(remote_host, endpoint):
    ready = os.path.join(remote_host.dir, "ready")
    p = subprocess.Popen([SHELL, str(SCRIPT), *endpoint, "events", "--scope", "all", "--count", "2",
                          "--ready-file", ready, "lifecycle"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
    try:
        wait_for(lambda: os.path.exists(ready) or p.poll() is not None, 30, "the subscription")
        assert p.poll() is None, p.communicate()
        r = run(*endpoint, "batch", input='{"method":"container.create","params":{"class":"Container"}}\n')
        assert r.returncode == 0 and json.loads(r.stdout)["result"]["container"] == "c-1", r.stderr
        first = json.loads(read_line(p, 30))
        out, err = p.communicate(timeout=30)
        assert p.returncode == 0, err
        # The batch's connection made c-1 and, closing, released it: init, then deinit.
        assert [first["params"]["event"], json.loads(out)["params"]["event"]] == ["init", "deinit"]
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_real_ws_session_stops_cleanly_on_sigint(remote_host, tokens):
    p = subprocess.Popen([SHELL, str(SCRIPT), "--ws", remote_host.address("ws"), "--token-file",
                          os.path.join(tokens, "token"), "session"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=clean_env())
    try:
        p.stdin.write("host.ping\n")
        p.stdin.flush()
        assert json.loads(read_line(p, 30))["result"] == {"pong": True}
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=30)
        assert p.returncode == 130
        r = run("--socket", remote_host.path, "call", "host.stats")
        closes = json.loads(r.stdout)["connections"]["webSocketCloses"]
        assert closes == {"1000": 1}, closes  # our close, not a dropped connection
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
