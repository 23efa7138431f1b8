"""Tests for clients/shell/greenroomctl.

Two groups:

* fake-host tests: a tiny line-oriented JSON-RPC server in this file (a
  socketserver on a Unix socket) scripts exact host behaviour: events before
  the reply, slow replies, error replies, dropped connections.
* real-host tests: start `greenroom serve --socket PATH --clock virtual`
  (env GREENROOM_BIN, else <repo>/.build/debug/greenroom) and drive it. A
  missing binary fails those tests with a clear message; it never skips them.

Every test runs the script under dash when dash is installed (the script's
target shell), else under sh; GREENROOM_TEST_SHELL (e.g. bash) overrides it,
and AWK=... picks the awk the script uses. Tests that touch jq-vs-awk code
paths run both ways (GREENROOM_NO_JQ=1 forces the awk fallback).

Run from the repo root: python -m pytest -q clients/shell/tests
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time

import pytest
from ctlharness import (
    JQ_MODES,
    SCRIPT,
    SHELL,
    Close,
    clean_env,
    default_behaviour,
    read_line,
    run,
    short_tmpdir,
    wait_for,
)


# --------------------------------------------------------------------------
# static checks


def test_sh_syntax():
    for sh in {SHELL, "/bin/sh"}:
        r = subprocess.run([sh, "-n", str(SCRIPT)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def test_shellcheck():
    shellcheck = shutil.which("shellcheck")
    assert shellcheck, "shellcheck is not installed (scripts/install-deps.sh test installs it)"
    r = subprocess.run([shellcheck, "-s", "sh", str(SCRIPT)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_help_and_usage_errors():
    r = run("--help")
    assert r.returncode == 0
    assert "Exit status" in r.stdout and "GREENROOM_SOCKET" in r.stdout
    assert run("help").returncode == 0
    assert run().returncode == 64
    assert run("frobnicate").returncode == 64
    assert run("--bogus", "ping").returncode == 64
    assert run("call").returncode == 64
    assert run("ping", "extra").returncode == 64
    assert run("--timeout", "soon", "ping").returncode == 64
    assert run("events").returncode == 64  # no topic


@pytest.mark.parametrize("jq", JQ_MODES)
def test_invalid_params_are_usage_errors(jq, fake):
    host = fake()
    for bad in ['"a string"', "42", "{nope", ""]:
        if not jq and bad == "{nope":
            continue  # without jq only the shape is checked; the host reports the rest
        r = run("--socket", host.path, "call", "echo", bad, jq=jq)
        assert r.returncode == 64, (bad, r.stderr)
        assert "params" in r.stderr
    assert host.received == []


# --------------------------------------------------------------------------
# fake-host tests


@pytest.mark.parametrize("jq", JQ_MODES)
def test_call_ping_request_shape(jq, fake):
    host = fake()
    r = run("--socket", host.path, "ping", jq=jq)
    assert r.returncode == 0, r.stderr
    assert r.stdout == '{"pong":true}\n'
    assert r.stderr == ""
    # params omitted when not given
    assert host.requests() == [{"jsonrpc": "2.0", "id": 1, "method": "host.ping"}]


@pytest.mark.parametrize("jq", JQ_MODES)
def test_call_params_object_array_and_stdin(jq, fake):
    host = fake()
    r = run("--socket", host.path, "call", "echo", '{"a": [1, 2], "b": "x\\"y"}', jq=jq)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"a": [1, 2], "b": 'x"y'}
    assert r.stdout.count("\n") == 1

    r = run("--socket", host.path, "call", "echo", "[1,true,null]", jq=jq)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [1, True, None]

    r = run(
        "--socket", host.path, "call", "echo", "-",
        input='{\n  "multi": "line",\n  "n": 3\n}\n', jq=jq,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"multi": "line", "n": 3}
    sent = host.requests()[-1]
    assert sent == {"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"multi": "line", "n": 3}}
    # every request is one line
    assert all("\n" not in line for line in host.received)


@pytest.mark.parametrize("jq", JQ_MODES)
def test_call_result_is_one_compact_line(jq, fake):
    def behaviour(req, conn):
        # a host may pad its output; the client still prints one line
        conn.send('{"jsonrpc":"2.0","id":1,"result":{"k":[1,{"x":"a,b}"}],"s":"q\\"}"}}')

    host = fake(behaviour)
    r = run("--socket", host.path, "call", "anything", jq=jq)
    assert r.returncode == 0, r.stderr
    assert r.stdout.endswith("\n") and r.stdout.count("\n") == 1
    assert json.loads(r.stdout) == {"k": [1, {"x": "a,b}"}], "s": 'q"}'}


@pytest.mark.parametrize("jq", JQ_MODES)
def test_events_before_the_reply_are_skipped(jq, fake):
    def behaviour(req, conn):
        conn.event("lifecycle", seq=1, t=0.0, container="c-1", hook="viewDidLoad")
        # notifications whose params look like replies must not fool the client
        conn.event("range", seq=2, t=0.0, id=1, result={"fake": True})
        conn.send('{"jsonrpc":"2.0","method":"page","params":{"note":"\\"id\\":1,\\"result\\":0","seq":3}}')
        conn.send('{"method":"pool","jsonrpc":"2.0","params":{"seq":4,"nested":{"id":1,"error":{}}}}')
        # a reply to some other request id
        conn.send({"jsonrpc": "2.0", "id": 99, "result": "not ours"})
        conn.result(req, {"container": "c-1", "warm": True})
        conn.event("lifecycle", seq=5, t=0.0, container="c-1", hook="viewDidAppear")

    host = fake(behaviour)
    r = run("--socket", host.path, "call", "showRendered", '{"class":"Card"}', jq=jq)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"container": "c-1", "warm": True}


@pytest.mark.parametrize("jq", JQ_MODES)
def test_error_reply_exits_2_with_error_on_stderr(jq, fake):
    host = fake()
    r = run("--socket", host.path, "call", "no.such.method", jq=jq)
    assert r.returncode == 2
    assert r.stdout == ""
    err = json.loads(r.stderr)
    assert err == {"code": -32601, "message": "Method not found", "data": {"method": "no.such.method"}}


@pytest.mark.parametrize("jq", JQ_MODES)
def test_id_null_error_is_the_reply(jq, fake):
    def behaviour(req, conn):
        conn.event("host", seq=1, t=0.0, kind="noise")
        conn.send('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}')

    host = fake(behaviour)
    r = run("--socket", host.path, "call", "x", jq=jq)
    assert r.returncode == 2
    assert json.loads(r.stderr)["code"] == -32700


@pytest.mark.parametrize("jq", JQ_MODES)
def test_crlf_replies(jq, fake):
    def behaviour(req, conn):
        conn.sock.sendall(b'{"jsonrpc":"2.0","method":"host","params":{"seq":1}}\r\n')
        conn.sock.sendall(b'{"jsonrpc":"2.0","id":1,"result":{"ok":1}}\r\n')

    host = fake(behaviour)
    r = run("--socket", host.path, "call", "x", jq=jq)
    assert r.returncode == 0, r.stderr
    assert r.stdout == '{"ok":1}\n'


def test_slow_reply_is_not_cut_off(fake):
    # longer than socat's default 0.5 s half-close timeout
    def behaviour(req, conn):
        time.sleep(2.0)
        conn.result(req, {"slow": True})

    host = fake(behaviour)
    r = run("--socket", host.path, "call", "slow")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"slow": True}


def test_reply_split_across_writes(fake):
    def behaviour(req, conn):
        line = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"parts": 3}}).encode() + b"\n"
        for i in range(0, len(line), 7):
            conn.sock.sendall(line[i : i + 7])
            time.sleep(0.05)

    host = fake(behaviour)
    r = run("--socket", host.path, "call", "x")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"parts": 3}


def test_no_reply_times_out(fake):
    host = fake(lambda req, conn: None)
    t0 = time.monotonic()
    r = run("--timeout", "1", "--socket", host.path, "call", "host.ping")
    elapsed = time.monotonic() - t0
    assert r.returncode == 1
    assert "timed out" in r.stderr
    assert elapsed < 10
    assert host.wait_closed(), "the client must close its connection"

    # GREENROOM_TIMEOUT works too
    r = run("--socket", host.path, "call", "host.ping", env=clean_env(GREENROOM_TIMEOUT="1"))
    assert r.returncode == 1 and "timed out" in r.stderr


def test_connection_closed_before_reply(fake):
    def behaviour(req, conn):
        conn.event("host", seq=1, t=0.0, kind="bye")
        raise Close

    host = fake(behaviour)
    r = run("--socket", host.path, "call", "host.shutdown")
    assert r.returncode == 1
    assert "closed the connection" in r.stderr


def test_multiline_reply_is_reported_as_protocol_violation(fake):
    def behaviour(req, conn):
        conn.send(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"pong": True}}, indent=4))
        raise Close

    host = fake(behaviour)
    r = run("--socket", host.path, "ping")
    assert r.returncode == 1
    assert r.stdout == ""
    assert "protocol violation" in r.stderr


def test_no_socket_is_a_transport_failure():
    d = short_tmpdir()
    try:
        r = run("--socket", os.path.join(d, "missing.sock"), "ping")
        assert r.returncode == 1
        assert "missing.sock" in r.stderr
        # a path that exists but nobody listens on
        path = os.path.join(d, "dead.sock")
        s = socket.socket(socket.AF_UNIX)
        s.bind(path)
        s.close()
        r = run("--socket", path, "ping")
        assert r.returncode == 1
        assert "connect" in r.stderr.lower() or "refused" in r.stderr.lower()
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_socket_resolution_order(fake):
    a, b, c = fake(), fake(), fake()
    # XDG_RUNTIME_DIR/greenroom/host.sock
    xdg = short_tmpdir()
    try:
        os.mkdir(os.path.join(xdg, "greenroom"))
        os.symlink(c.path, os.path.join(xdg, "greenroom", "host.sock"))
        r = run("ping", env=clean_env(XDG_RUNTIME_DIR=xdg))
        assert r.returncode == 0, r.stderr
        assert len(c.received) == 1

        r = run("ping", env=clean_env(XDG_RUNTIME_DIR=xdg, GREENROOM_SOCKET=b.path))
        assert r.returncode == 0, r.stderr
        assert len(b.received) == 1 and len(c.received) == 1

        r = run("--socket", a.path, "ping", env=clean_env(XDG_RUNTIME_DIR=xdg, GREENROOM_SOCKET=b.path))
        assert r.returncode == 0, r.stderr
        assert len(a.received) == 1 and len(b.received) == 1

        # unix: prefix (as printed in the host's ready line) and --socket=PATH
        assert run(f"--socket=unix:{a.path}", "ping").returncode == 0
        assert len(a.received) == 2
    finally:
        shutil.rmtree(xdg, ignore_errors=True)

    # last resort: /tmp/greenroom-$UID/host.sock
    env = clean_env()
    env.pop("XDG_RUNTIME_DIR", None)
    default = f"/tmp/greenroom-{os.getuid()}/host.sock"
    if not os.path.exists(default):
        r = run("ping", env=env)
        assert r.returncode == 1
        assert default in r.stderr


def test_socket_path_with_socat_special_characters(fake):
    host = fake()
    d = short_tmpdir()
    try:
        odd = os.path.join(d, "a,b:c!d")
        os.mkdir(odd)
        link = os.path.join(odd, "h.sock")
        os.symlink(host.path, link)
        r = run("--socket", link, "ping")
        assert r.returncode == 0, r.stderr
        assert r.stdout == '{"pong":true}\n'
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.mark.parametrize("jq", JQ_MODES)
def test_large_reply(jq, fake):
    big = {"items": [{"i": i, "s": "x" * 50, "q": 'a"b\\c'} for i in range(5000)]}

    def behaviour(req, conn):
        conn.event("host", seq=1, t=0.0, kind="before")
        conn.result(req, big)

    host = fake(behaviour)
    r = run("--socket", host.path, "call", "big", jq=jq)
    assert r.returncode == 0, r.stderr[:500]
    assert json.loads(r.stdout) == big


def subscribe_then(events_after, close=False):
    """A behaviour: answer events.subscribe, then send events from a thread."""

    def behaviour(req, conn):
        if req.get("method") != "events.subscribe":
            default_behaviour(req, conn)
            return
        conn.result(req, {"topics": req["params"]["topics"]})

        def later():
            try:
                for i, ev in enumerate(events_after, 1):
                    time.sleep(0.05)
                    conn.event(ev[0], seq=i, t=float(i), **ev[1])
                if close:
                    conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        threading.Thread(target=later, daemon=True).start()

    return behaviour


def test_events_stream_with_count(fake):
    evs = [("lifecycle", {"hook": "viewDidLoad", "id": 1}), ("host", {"kind": "connectionOpened"}), ("pool", {})]
    host = fake(subscribe_then(evs))
    r = run("--socket", host.path, "events", "--scope", "all", "--count", "2", "lifecycle", "host")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 2
    msgs = [json.loads(line) for line in lines]
    assert [m["method"] for m in msgs] == ["lifecycle", "host"]
    assert msgs[0] == {"jsonrpc": "2.0", "method": "lifecycle", "params": {"seq": 1, "t": 1.0, "hook": "viewDidLoad", "id": 1}}
    assert host.requests() == [
        {"jsonrpc": "2.0", "id": 1, "method": "events.subscribe", "params": {"topics": ["lifecycle", "host"], "scope": "all"}}
    ]
    assert host.wait_closed()


def test_events_without_scope_and_until_close(fake):
    evs = [("page", {"index": 0}), ("page", {"index": 1}), ("page", {"index": 2})]
    host = fake(subscribe_then(evs, close=True))
    r = run("--socket", host.path, "events", "page")
    assert r.returncode == 0, r.stderr
    assert [json.loads(x)["params"]["index"] for x in r.stdout.splitlines()] == [0, 1, 2]
    assert host.requests()[0]["params"] == {"topics": ["page"]}


def test_events_connection_closed_before_count(fake):
    host = fake(subscribe_then([("page", {})], close=True))
    r = run("--socket", host.path, "events", "--count", "5", "page")
    assert r.returncode == 1
    assert len(r.stdout.splitlines()) == 1
    assert "before 5 events" in r.stderr


@pytest.mark.parametrize("jq", JQ_MODES)
def test_events_subscribe_error(jq, fake):
    def behaviour(req, conn):
        conn.error(req, -32602, "Invalid params", {"path": "topics[0]"})

    host = fake(behaviour)
    r = run("--socket", host.path, "events", "nosuchtopic", jq=jq)
    assert r.returncode == 2
    assert r.stdout == ""
    assert json.loads(r.stderr) == {"code": -32602, "message": "Invalid params", "data": {"path": "topics[0]"}}


def test_events_ready_file_and_streaming(fake):
    """Events are printed as they arrive, not when the stream ends."""
    gate = threading.Event()

    def behaviour(req, conn):
        conn.result(req, {})

        def later():
            conn.event("host", seq=1, t=0.0, kind="first")
            gate.wait(10)
            conn.event("host", seq=2, t=0.0, kind="second")

        threading.Thread(target=later, daemon=True).start()

    host = fake(behaviour)
    ready = os.path.join(host.dir, "ready")
    p = subprocess.Popen(
        [SHELL, str(SCRIPT), "--socket", host.path, "events", "--ready-file", ready, "--count", "2", "host"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(),
    )
    try:
        first = read_line(p, 10)
        assert json.loads(first)["params"]["kind"] == "first"
        assert os.path.exists(ready)
        gate.set()
        out, err = p.communicate(timeout=10)
        assert p.returncode == 0, err
        assert json.loads(out)["params"]["kind"] == "second"
    finally:
        gate.set()
        if p.poll() is None:
            p.kill()
            p.wait()


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_events_stop_on_signal(fake, sig, code):
    host = fake()  # answers subscribe, then stays silent
    ready = os.path.join(host.dir, "ready")
    p = subprocess.Popen(
        [SHELL, str(SCRIPT), "--socket", host.path, "events", "--ready-file", ready, "host"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(),
    )
    try:
        wait_for(lambda: os.path.exists(ready), 10, "subscription")
        p.send_signal(sig)  # to the script only, not its process group
        p.communicate(timeout=10)
        assert p.returncode == code
        assert host.wait_closed(), "the connection must be closed"
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


@pytest.mark.parametrize("jq", JQ_MODES)
def test_batch(jq, fake):
    host = fake()
    lines = [
        '{"method":"host.ping"}',
        "",
        '{"method":"echo","params":{"n":2},"id":"ignored"}',
        '{"method":"nope"}',
    ]
    r = run("--socket", host.path, "batch", input="\n".join(lines) + "\n", jq=jq)
    assert r.returncode == 2, r.stderr  # one error reply
    replies = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["id"] for x in replies] == [1, 2, 3]
    assert replies[0]["result"] == {"pong": True}
    assert replies[1]["result"] == {"n": 2}
    assert replies[2]["error"]["code"] == -32601
    assert [q["id"] for q in host.requests()] == [1, 2, 3]
    assert host.opened == 1

    r = run("--socket", host.path, "batch", input='{"method":"host.ping"}\n', jq=jq)
    assert r.returncode == 0
    r = run("--socket", host.path, "batch", input="not json\n", jq=jq)
    assert r.returncode == 64


# --------------------------------------------------------------------------
# real host


@pytest.mark.parametrize("jq", JQ_MODES)
def test_real_ping(real_host, jq):
    r = run("--socket", real_host.path, "call", "host.ping", jq=jq)
    assert r.returncode == 0, r.stderr
    assert r.stdout == '{"pong":true}\n'
    r = run("--socket", real_host.path, "ping", jq=jq)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"pong": True}


@pytest.mark.parametrize("jq", JQ_MODES)
def test_real_unknown_method(real_host, jq):
    r = run("--socket", real_host.path, "call", "no.such.method", jq=jq)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stdout == ""
    err = json.loads(r.stderr)
    assert err["code"] == -32601
    assert isinstance(err["message"], str)


def test_real_greenroom_socket_env(real_host):
    r = run("ping", env=clean_env(GREENROOM_SOCKET=real_host.path))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"pong": True}


def test_real_events_host_connection_opened(real_host):
    ready = os.path.join(real_host.dir, "subscribed")
    p = subprocess.Popen(
        [SHELL, str(SCRIPT), "--socket", real_host.path, "events", "--scope", "all",
         "--ready-file", ready, "host", "--count", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(),
    )
    try:
        wait_for(lambda: os.path.exists(ready) or p.poll() is not None, 30, "the subscription")
        assert p.poll() is None, p.communicate()
        r = run("--socket", real_host.path, "ping")  # another client connects
        assert r.returncode == 0, r.stderr
        out, err = p.communicate(timeout=30)
        assert p.returncode == 0, err
        lines = out.splitlines()
        assert len(lines) == 1
        ev = json.loads(lines[0])
        assert ev["jsonrpc"] == "2.0" and ev["method"] == "host" and "id" not in ev
        assert ev["params"]["kind"] == "connectionOpened", ev
        assert re.fullmatch(r"conn-\d+", ev["params"]["connection"]), ev
        assert ev["params"]["seq"] == 1
        assert isinstance(ev["params"]["t"], (int, float))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_real_events_count_without_ready_file(real_host):
    """The brief's form: `events --scope all host --count 1`; poke until it sees one."""
    p = subprocess.Popen(
        [SHELL, str(SCRIPT), "--socket", real_host.path, "events", "--scope", "all", "host", "--count", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(),
    )
    try:
        deadline = time.monotonic() + 30
        while p.poll() is None and time.monotonic() < deadline:
            assert run("--socket", real_host.path, "ping").returncode == 0
        out, err = p.communicate(timeout=10)
        assert p.returncode == 0, err
        ev = json.loads(out)
        assert ev["method"] == "host"
        assert ev["params"]["kind"] in ("connectionOpened", "connectionClosed")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


@pytest.mark.parametrize("jq", JQ_MODES)
def test_real_clock_advance(real_host, jq):
    r = run("--socket", real_host.path, "call", "clock.now", jq=jq)
    assert r.returncode == 0, r.stderr
    before = json.loads(r.stdout)
    r = run("--socket", real_host.path, "call", "clock.advance", '{"ms":5}', jq=jq)
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 1
    advanced = json.loads(r.stdout)
    assert now_ms(advanced) - now_ms(before) == pytest.approx(5)
    r = run("--socket", real_host.path, "call", "clock.now", jq=jq)
    assert r.returncode == 0, r.stderr
    after = json.loads(r.stdout)
    assert now_ms(after) - now_ms(before) == pytest.approx(5)


def now_ms(v) -> float:
    if isinstance(v, (int, float)):
        return float(v)
    for key in ("ms", "now", "t"):
        if key in v:
            return float(v[key])
    raise AssertionError(f"clock.now result has no time member: {v}")


def test_real_invalid_params(real_host):
    r = run("--socket", real_host.path, "call", "clock.advance", '{"ms":"soon"}')
    assert r.returncode == 2, (r.stdout, r.stderr)
    err = json.loads(r.stderr)
    assert err["code"] == -32602
    assert "ms" in json.dumps(err.get("data", {}))


def test_real_batch(real_host):
    r = run(
        "--socket", real_host.path, "batch",
        input='{"method":"host.ping"}\n{"method":"clock.advance","params":{"ms":1}}\n',
    )
    assert r.returncode == 0, r.stderr
    replies = [json.loads(x) for x in r.stdout.splitlines()]
    assert sorted(x["id"] for x in replies) == [1, 2]
    assert replies[0]["result"] == {"pong": True}
