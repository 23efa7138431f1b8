"""`greenroomctl session`: one connection for a whole script or a person typing.

Driven the way a bash coproc drives it: the test writes one request line, reads lines until its reply
(events interleaved), then writes the next. Fake-host tests script the host exactly (events before
replies, replies out of order, a host that hangs up); real-host tests show that objects live across
requests. Every test runs the script under dash when installed (ctlharness.SHELL).
"""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import threading
import time

import pytest
from ctlharness import JQ_MODES, SCRIPT, SHELL, Close, clean_env, default_behaviour, read_line, run


class Session:
    """greenroomctl session as a coproc: stdin and stdout are pipes held by the test."""

    def __init__(self, sock: str, *opts: str, jq: bool = True):
        env = clean_env() if jq else clean_env(GREENROOM_NO_JQ="1")
        self.proc = subprocess.Popen(
            [SHELL, str(SCRIPT), "--socket", sock, *opts, "session"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        )

    def send(self, line: str) -> None:
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def line(self, timeout: float = 10) -> dict:
        return json.loads(read_line(self.proc, timeout))

    def until_reply(self, timeout: float = 10) -> tuple[dict, list[dict]]:
        """Lines up to and including the next reply: (reply, events before it)."""
        events = []
        while True:
            msg = self.line(timeout)
            if "id" in msg:
                assert "method" not in msg, msg
                return msg, events
            assert msg["jsonrpc"] == "2.0" and "method" in msg, msg
            events.append(msg)

    def call(self, line: str) -> tuple[dict, list[dict]]:
        self.send(line)
        return self.until_reply()

    def finish(self, timeout: float = 15) -> tuple[list[dict], str]:
        """Close stdin (EOF) and collect what is left and stderr."""
        out, err = self.proc.communicate(timeout=timeout)
        return [json.loads(x) for x in out.decode().splitlines()], err.decode()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except OSError:
                pass


@pytest.fixture
def session():
    made: list[Session] = []

    def start(sock: str, *opts: str, jq: bool = True) -> Session:
        s = Session(sock, *opts, jq=jq)
        made.append(s)
        return s

    yield start
    for s in made:
        s.kill()


def user_requests(host) -> list[dict]:
    """What the fake host received from the user (not greenroomctl's own host.ping markers)."""
    return [r for r in host.requests() if not str(r["id"]).startswith("greenroomctl:")]


def chatty(req, conn):
    """Two events before every reply to the user, one with reply-like params."""
    if not str(req["id"]).startswith("greenroomctl:"):
        conn.event("lifecycle", seq=1, t=0.0, container="c-1", event="viewDidLoad")
        conn.event("range", seq=2, t=0.0, id=1, result={"fake": True})
    default_behaviour(req, conn)


# --------------------------------------------------------------------------
# fake host


@pytest.mark.parametrize("jq", JQ_MODES)
def test_coproc_lockstep_with_events_told_apart(jq, fake, session):
    host = fake(chatty)
    s = session(host.path, jq=jq)
    reply, events = s.call('echo {"n": 1}')  # a person's line
    assert reply == {"jsonrpc": "2.0", "id": 1, "result": {"n": 1}}
    assert [e["method"] for e in events] == ["lifecycle", "range"]
    # a script's line: a JSON object; its own id and jsonrpc members are ignored
    reply, events = s.call('{"jsonrpc":"1.0","id":"mine","method":"echo","params":[1,"a b"]}')
    assert reply == {"jsonrpc": "2.0", "id": 2, "result": [1, "a b"]}
    assert len(events) == 2
    reply, _ = s.call("host.ping")
    assert reply == {"jsonrpc": "2.0", "id": 3, "result": {"pong": True}}
    rest, err = s.finish()
    assert rest == [] and err == ""
    assert s.proc.returncode == 0
    assert user_requests(host) == [
        {"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"n": 1}},
        {"jsonrpc": "2.0", "id": 2, "method": "echo", "params": [1, "a b"]},
        {"jsonrpc": "2.0", "id": 3, "method": "host.ping"},
    ]
    assert host.opened == 1


@pytest.mark.parametrize("jq", JQ_MODES)
def test_a_bad_line_then_a_good_one(jq, fake, session):
    host = fake()
    s = session(host.path, jq=jq)
    reply, _ = s.call("echo 7")
    assert reply == {"jsonrpc": "2.0", "id": 1, "error": {
        "code": -32600, "message": "Invalid Request: PARAMS must be a JSON object or array",
        "data": {"kind": "invalidRequest", "source": "greenroomctl", "line": 1,
                 "reason": "PARAMS must be a JSON object or array"}}}
    s.send("# a comment, then a blank line: neither is a request")
    s.send("")
    reply, _ = s.call('echo {"after": 1}')
    assert reply == {"jsonrpc": "2.0", "id": 2, "result": {"after": 1}}
    rest, err = s.finish()
    assert rest == [] and err == ""
    assert s.proc.returncode == 2  # one reply was an error
    assert user_requests(host) == [{"jsonrpc": "2.0", "id": 2, "method": "echo", "params": {"after": 1}}]


@pytest.mark.parametrize("jq", JQ_MODES)
def test_params_that_are_not_json_are_a_parse_error_with_the_column(jq, fake, session):
    """As the README says: -32700 for text that is not JSON, with the column where it breaks (not -32600,
    which is for JSON that is no request)."""
    host = fake()
    s = session(host.path, jq=jq)
    reply, _ = s.call('host.ping {"x":1')
    assert reply == {"jsonrpc": "2.0", "id": 1, "error": {
        "code": -32700, "message": "Parse error: PARAMS: expected a comma or } at column 7",
        "data": {"kind": "parseError", "source": "greenroomctl", "line": 1,
                 "reason": "PARAMS: expected a comma or } at column 7"}}}
    reply, _ = s.call('host.ping {"x":1}')
    assert reply == {"jsonrpc": "2.0", "id": 2, "result": {"pong": True}}
    rest, err = s.finish()
    assert rest == [] and err == ""
    assert s.proc.returncode == 2
    assert user_requests(host) == [{"jsonrpc": "2.0", "id": 2, "method": "host.ping", "params": {"x": 1}}]


@pytest.mark.parametrize("jq", JQ_MODES)
def test_every_kind_of_bad_line(jq, fake):
    """Each bad line, then a good one, piped in at once: each gets its own numbered error line. The
    same with and without jq: greenroomctl checks the JSON itself."""
    host = fake()
    bad = [
        ('{"params":{}}', -32600, '"method"'),
        ('{"method":42}', -32600, "string"),
        ('{"method":"echo","params":7}', -32600, "params"),
        ("echo 7", -32600, "PARAMS"),
        ('echo "text"', -32600, "PARAMS must be a JSON object or array"),  # JSON, but not params
        ('echo {"x":1', -32700, "PARAMS: expected a comma or } at column 7"),  # not JSON: where it breaks
        ("echo [1,2", -32700, "PARAMS: expected a comma or ] at column 5"),
        ('echo {"x":1} and more', -32700, "PARAMS: more after the JSON value at column 9"),
        ("echo nope", -32700, "PARAMS: unexpected character n at column 1"),
        ('ec"ho {}', -32600, "METHOD"),
        ("[1,2]", -32600, "one request per line"),
        ('{"method":"echo"} trailing', -32700, "more after the JSON value at column 19"),
        ("echo {nope}", -32700, "PARAMS: expected a member name at column 2"),
        ('echo {"a":01}', -32700, "PARAMS: expected a comma or } at column 7"),
        ('{"method":"echo",}', -32700, "expected a member name at column 18"),
        ('{"method":"echo","params":["x\\qy"]}', -32700, "bad escape"),
        ('{"method":"echo","params":["\t"]}', -32700, "control character"),
        ('{"method":"echo","params":[tru]}', -32700, "unexpected character t"),
        ('{"method" "echo"}', -32700, "expected a colon"),
        ("[" * 600 + "]" * 600, -32600, "batch"),
        ("echo " + "[" * 600 + "]" * 600, -32700, "nested too deep"),
    ]
    lines = []
    for i, (line, _, _) in enumerate(bad):
        lines += [line, 'echo {"after":%d}' % i]
    r = run("--socket", host.path, "session", input="\n".join(lines) + "\n", jq=jq)
    assert r.returncode == 2, r.stderr
    out = {m["id"]: m for m in map(json.loads, r.stdout.splitlines())}
    assert sorted(out) == list(range(1, 2 * len(bad) + 1))
    for i, (line, code, why) in enumerate(bad):
        err = out[2 * i + 1]["error"]
        assert err["code"] == code, (line, err)
        assert err["data"]["source"] == "greenroomctl" and err["data"]["line"] == 2 * i + 1
        assert why in err["data"]["reason"], (line, err)
        assert err["message"].endswith(err["data"]["reason"])
        assert out[2 * i + 2]["result"] == {"after": i}
    assert [r["params"] for r in user_requests(host)] == [{"after": i} for i in range(len(bad))]


def test_good_json_of_every_kind_is_sent_as_written(fake):
    params = ('{"a":[1,2.5,-3e+2,0.5E-1,true,false,null,{},[]],"s":"x\\"y\\\\z\\/\\u00e9\\n",'
              '"u":"\u00e9 \u4e2d","big":9007199254740993, "sp" : [ 1 , { "k" : "v" } ] }')
    host = fake()
    r = run("--socket", host.path, "session", input=f"echo {params}\n" + '{"method":"echo","params":%s}\n' % params)
    assert r.returncode == 0, r.stdout + r.stderr
    assert [json.loads(x)["result"] for x in r.stdout.splitlines()] == [json.loads(params)] * 2
    sent = [line for line in host.received if '"greenroomctl:' not in line]
    assert sent == ['{"jsonrpc":"2.0","id":1,"method":"echo","params":%s}' % params,
                    '{"jsonrpc":"2.0","id":2,"method":"echo","params":%s}' % params]


@pytest.mark.parametrize("jq", JQ_MODES)
def test_an_error_reply_is_a_line_and_the_session_goes_on(jq, fake, session):
    host = fake()
    s = session(host.path, jq=jq)
    reply, _ = s.call("no.such.method")
    assert reply == {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found",
                                                          "data": {"method": "no.such.method"}}}
    reply, _ = s.call("host.ping")
    assert reply["result"] == {"pong": True}
    rest, err = s.finish()
    assert rest == [] and err == ""
    assert s.proc.returncode == 2


def test_eof_drains_replies_still_due_in_any_order(fake):
    """stdin ends at once; the first reply comes last (after greenroomctl's end-of-input marker)."""
    gate = threading.Event()

    def behaviour(req, conn):
        if req["method"] == "slow":
            def later():
                gate.wait(10)
                conn.event("page", seq=9, t=0.0, kind="late")
                conn.result(req, {"slow": True})
            threading.Thread(target=later, daemon=True).start()
        else:
            default_behaviour(req, conn)
            if str(req["id"]).startswith("greenroomctl:eof"):
                gate.set()  # the marker is answered: only now the slow reply goes out

    host = fake(behaviour)
    r = run("--socket", host.path, "session", input="slow\nhost.ping\necho [3]\n")
    assert r.returncode == 0, r.stderr
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert out == [
        {"jsonrpc": "2.0", "id": 2, "result": {"pong": True}},
        {"jsonrpc": "2.0", "id": 3, "result": [3]},
        {"jsonrpc": "2.0", "method": "page", "params": {"seq": 9, "t": 0.0, "kind": "late"}},
        {"jsonrpc": "2.0", "id": 1, "result": {"slow": True}},
    ]
    assert host.wait_closed()


def test_eof_with_nothing_sent_ends_at_once(fake):
    host = fake()
    r = run("--socket", host.path, "session", input="# nothing\n\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""


def test_a_reply_that_never_comes_times_out_after_eof_only(fake, session):
    host = fake(lambda req, conn: None if req["method"] == "hang" else default_behaviour(req, conn))
    s = session(host.path, "--timeout", "1")
    time.sleep(1.5)  # idle longer than the timeout: the session stays open
    reply, _ = s.call("host.ping")
    assert reply["result"] == {"pong": True}
    s.send("hang")
    t0 = time.monotonic()
    rest, err = s.finish()
    assert s.proc.returncode == 1
    assert rest == []
    assert "timed out after 1s" in err
    assert time.monotonic() - t0 < 10
    assert host.wait_closed()


def test_the_host_hanging_up_ends_the_session_with_stdin_still_open(fake, session):
    def behaviour(req, conn):
        if req["method"] == "host.shutdown":
            conn.result(req, {})
            raise Close
        default_behaviour(req, conn)

    host = fake(behaviour)
    s = session(host.path)
    assert s.call("host.ping")[0]["result"] == {"pong": True}
    assert s.call("host.shutdown")[0] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    # stdin is still open: the session ends because the connection did
    assert s.proc.wait(timeout=10) == 1
    assert "closed the connection" in s.proc.stderr.read().decode()


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_an_idle_session_and_its_connection(fake, session, sig, code):
    host = fake()
    s = session(host.path)
    assert s.call("host.ping")[0]["id"] == 1
    s.proc.send_signal(sig)  # to the script only, not its process group
    assert s.proc.wait(timeout=10) == code
    assert host.wait_closed(), "the connection must be closed"


def test_session_usage_and_transport_errors(fake, tmp_path):
    host = fake()
    assert run("--socket", host.path, "session", "extra").returncode == 64
    r = run("--socket", str(tmp_path / "none.sock"), "session", input="host.ping\n")
    assert r.returncode == 1 and "none.sock" in r.stderr
    assert host.received == []


def test_batch_prints_events_too(fake):
    host = fake(chatty)
    r = run("--socket", host.path, "batch", input='{"method":"host.ping"}\n{"method":"echo","params":[2]}\n')
    assert r.returncode == 0, r.stderr
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert [m.get("method", m.get("id")) for m in out] == ["lifecycle", "range", 1, "lifecycle", "range", 2]
    assert out[2]["result"] == {"pong": True} and out[5]["result"] == [2]


# --------------------------------------------------------------------------
# real host


@pytest.mark.parametrize("jq", JQ_MODES)
def test_real_objects_live_across_requests(real_host, session, jq):
    s = session(real_host.path, jq=jq)
    assert s.call('events.subscribe {"topics":["lifecycle"]}')[0]["result"]["topics"] == ["lifecycle"]
    assert s.call('classes.define {"name":"Card"}')[0]["id"] == 2
    shown, events = s.call('{"method":"showRendered","params":{"class":"Card"}}')
    container = shown["result"]["container"]
    assert [e["params"]["container"] for e in events] == [container] * len(events)
    assert events and events[0]["params"]["event"] == "init"
    # the container is still ours: a later request on the same connection uses it
    info, _ = s.call('container.info {"container":"%s"}' % container)
    assert info["id"] == 4 and info["result"]["container"] == container
    missing, _ = s.call('container.info {"container":"c-999"}')
    assert missing["error"]["code"] == -32002
    rest, err = s.finish()
    assert rest == [] and err == ""
    assert s.proc.returncode == 2
    # a new connection does not have it: it went with the session's connection
    r = run("--socket", real_host.path, "call", "container.info", '{"container":"%s"}' % container)
    assert r.returncode == 2 and json.loads(r.stderr)["code"] == -32002


def test_real_person_typing(real_host):
    r = run("--socket", real_host.path, "session", input="host.ping\n  clock.advance   {\"ms\": 5}  \n")
    assert r.returncode == 0, r.stderr
    first, second = r.stdout.splitlines()
    assert first == '{"jsonrpc":"2.0","id":1,"result":{"pong":true}}'
    assert json.loads(second)["id"] == 2


def test_an_event_while_idle_is_printed_at_once(fake, session):
    """Nothing is buffered: an event the host sends on its own, with no request in flight, can be read."""
    later = threading.Event()

    def behaviour(req, conn):
        default_behaviour(req, conn)
        if req["method"] == "events.subscribe":
            def send():
                later.wait(10)
                conn.event("host", seq=1, t=5.0, kind="memoryWarning")
            threading.Thread(target=send, daemon=True).start()

    host = fake(behaviour)
    s = session(host.path)
    assert s.call('events.subscribe {"topics":["host"]}')[0]["id"] == 1
    later.set()
    assert s.line() == {"jsonrpc": "2.0", "method": "host", "params": {"seq": 1, "t": 5.0, "kind": "memoryWarning"}}
    assert s.call("host.ping")[0]["id"] == 2


def test_a_person_at_a_terminal(fake):
    """stdin is a terminal: each line typed is sent when typed; Ctrl-D (EOF) ends the session."""
    host = fake()
    leader, follower = pty.openpty()
    p = subprocess.Popen(
        [SHELL, str(SCRIPT), "--socket", host.path, "session"],
        stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env(),
    )
    os.close(follower)
    try:
        os.write(leader, b"host.ping\n")
        assert json.loads(read_line(p, 10)) == {"jsonrpc": "2.0", "id": 1, "result": {"pong": True}}
        os.write(leader, b'echo {"typed": true}\n')
        assert json.loads(read_line(p, 10))["result"] == {"typed": True}
        os.write(leader, b"\x04")  # Ctrl-D at the start of a line: EOF
        assert p.wait(timeout=10) == 0
    finally:
        os.close(leader)
        if p.poll() is None:
            p.kill()
            p.wait()


def test_real_interactive_pop_from_a_shell_session(real_host, session):
    """The edge-swipe back gesture is four plain calls, so a shell script streams it like any other: begin,
    progress, then cancel (the stack is as it was) or finish (after the rest of the duration, on the
    virtual clock)."""
    s = session(real_host.path)
    s.call('events.subscribe {"topics":["lifecycle"]}')
    stack = s.call('stack.create {"width":375,"height":667}')[0]["result"]["stack"]
    a = s.call('container.create {"class":"Container"}')[0]["result"]["container"]
    b = s.call('container.create {"class":"Container"}')[0]["result"]["container"]
    s.call('stack.push {"stack":"%s","container":"%s"}' % (stack, a))
    s.call('stack.push {"stack":"%s","container":"%s"}' % (stack, b))

    def calls(events):
        return [f'{e["params"]["container"]} {e["params"]["event"]}' for e in events]

    began, events = s.call('stack.beginInteractivePop {"stack":"%s"}' % stack)
    assert began["result"]["stack"]["interactivePop"] == {"container": b, "revealed": a, "progress": 0}
    assert calls(events) == [f"{b} willMoveToParent", f"{b} viewWillDisappear", f"{a} viewWillAppear", f"{a} viewIsAppearing"]
    refused, events = s.call('stack.pop {"stack":"%s"}' % stack)
    assert refused["error"]["code"] == -32003 and events == []
    s.call('stack.updateInteractivePop {"stack":"%s","progress":0.5}' % stack)
    cancelled, events = s.call('stack.cancelInteractivePop {"stack":"%s","duration":0}' % stack)
    assert cancelled["result"]["stack"]["containers"] == [a, b]
    assert calls(events) == [f"{a} viewWillDisappear", f"{a} viewDidDisappear", f"{b} viewWillAppear",
                             f"{b} viewIsAppearing", f"{b} viewDidAppear", f"{b} didMoveToParent"]

    s.call('stack.beginInteractivePop {"stack":"%s"}' % stack)
    s.call('stack.updateInteractivePop {"stack":"%s","progress":0.25}' % stack)
    finished, events = s.call('stack.finishInteractivePop {"stack":"%s","duration":400}' % stack)
    assert finished["result"]["container"] == b and events == []
    assert "clock.advance" in finished["result"]["note"]
    _, events = s.call('clock.advance {"ms":300}')
    assert calls(events) == [f"{b} viewDidDisappear", f"{a} viewDidAppear", f"{b} didMoveToParent"]
    assert all(e["params"]["t"] == 300 for e in events)
    rest, err = s.finish()
    assert rest == [] and err == ""


def test_real_show_rendered_answering_after_the_appearance(real_host, session):
    """`reply: "afterAppear"` holds a reply until the container has appeared: a session goes on meanwhile, and
    the held reply is printed when it comes (after the lifecycle event it waited for); at EOF the session
    still waits for it."""
    s = session(real_host.path)
    s.call('events.subscribe {"topics":["lifecycle"]}')
    stack = s.call('stack.create {"width":375,"height":667}')[0]["result"]["stack"]
    s.send('showRendered {"class":"Container","stack":"%s","animated":true,"reply":"afterAppear"}' % stack)
    s.send("host.ping")
    pong, _ = s.until_reply()
    assert pong["result"] == {"pong": True}, "the ping is answered while the push animates"
    s.send('clock.advance {"ms":300}')
    held, events = s.until_reply()
    assert held["result"]["transitionMs"] == 300 and held["result"]["warm"] is False, held
    assert events[-1]["params"]["event"] == "viewDidAppear", events
    advanced, _ = s.until_reply()
    assert advanced["result"]["now"] == 300
    # A held reply still due when stdin ends is waited for.
    s.send('stack.push {"stack":"%s","container":"%s","animated":true,"reply":"afterAppear"}'
           % (stack, s.call('container.create {"class":"Container"}')[0]["result"]["container"]))
    s.send('clock.advance {"ms":300}')
    rest, err = s.finish()
    replies = [m for m in rest if "id" in m]
    assert [("transitionMs" in r["result"]) for r in replies] == [True, False], rest
    assert err == ""
