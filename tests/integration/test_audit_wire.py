"""Audit of docs/protocol.md (wire), rpc-schema/openrpc.json (host and classes methods), docs/tasks.md (task
dispatcher), docs/plugins.md (plugins) and docs/security.md
(running it) against the JSON-RPC 2.0 specification, for rules the other suites leave uncovered.

Expectations come from the contract and the specification, never from what the host happens to print.
Everything is bounded: virtual clocks, tasks.drain, bounded reads and polls.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time

import pytest
from grhost import LineConn, base_env, encode, nested_ping, note, padded_ping, req, write_token

MiB = 1 << 20
KNOWN_CODES = {-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005, -32006, -32007}


# ---------------------------------------------------------------------------------------------------
# helpers


def assert_response_shape(m) -> None:
    """JSON-RPC 2.0 §5: jsonrpc "2.0", an id, exactly one of result / error; an error has an integer code
    and a string message (Greenroom adds data.kind to every one)."""
    assert isinstance(m, dict), m
    assert m.get("jsonrpc") == "2.0", m
    assert "id" in m, m
    assert ("result" in m) != ("error" in m), f"exactly one of result and error: {m}"
    if "error" in m:
        err = m["error"]
        assert type(err["code"]) is int and err["code"] in KNOWN_CODES, m
        assert isinstance(err["message"], str) and err["message"], m
        assert isinstance(err["data"], dict) and isinstance(err["data"].get("kind"), str), m
        assert set(m) == {"jsonrpc", "id", "error"}, m
    else:
        assert set(m) == {"jsonrpc", "id", "result"}, m


def assert_error(m, code, id="<any>", kind=None, path=None) -> dict:
    assert_response_shape(m)
    assert "error" in m and m["error"]["code"] == code, m
    if id != "<any>":
        assert m["id"] == id and type(m["id"]) is type(id), m
    if kind is not None:
        assert m["error"]["data"]["kind"] == kind, m
    if path is not None:
        assert m["error"]["data"].get("path") == path, m
    return m["error"]


def next_is_pong(c: LineConn, rid="mark") -> None:
    c.send(req("host.ping", id=rid))
    line = c.read_json()
    assert line == {"jsonrpc": "2.0", "id": rid, "result": {"pong": True}}, f"unexpected line before the pong: {line}"


def lifecycle(events, container=None):
    return [(e["params"]["container"], e["params"]["event"]) for e in events
            if e["method"] == "lifecycle" and (container is None or e["params"]["container"] == container)]


def drain_events(c: LineConn, quiet: float = 0.2) -> None:
    """Reads every notification already on its way into c.events (stops after `quiet` s of silence)."""
    while True:
        try:
            msg = c.read_json(quiet)
        except TimeoutError:
            return
        assert isinstance(msg, dict) and "id" not in msg, msg
        c.events.append(msg)


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ===================================================================================================
# JSON-RPC 2.0: request, response, batch and notification objects


def test_batch_mixing_invalid_entries_and_notifications_answers_only_the_invalid_ones_in_order(host):
    """JSON-RPC §6: notifications in a batch get no Response; an invalid entry gets an error Response with
    id null. Greenroom answers in request order (README: "always run and answered in order")."""
    c = host.connect()
    c.send_raw(b'[{"jsonrpc":"2.0","method":"host.ping"},1,{"jsonrpc":"2.0","method":"nope"},'
               b'{"jsonrpc":"2.0","id":"a","method":"host.ping"},"x",{"jsonrpc":"2.0","method":"host.ping","params":7}]\n')
    r = c.read_json()
    assert isinstance(r, list) and len(r) == 4, r
    for m in r:
        assert_response_shape(m)
    assert_error(r[0], -32600, id=None)
    assert r[1] == {"jsonrpc": "2.0", "id": "a", "result": {"pong": True}}, r
    assert_error(r[2], -32600, id=None)
    assert_error(r[3], -32600, id=None, path="params")  # invalid params member: an invalid Request, no id
    next_is_pong(c)


def test_batch_replies_keep_request_order_across_kinds_of_reply(vhost):
    c = vhost.connect()
    batch = [req("host.ping", id=i) if i % 3 == 0 else req("nope", id=i) if i % 3 == 1 else
             req("clock.advance", {"ms": -1}, id=i) for i in range(30)]
    c.send(batch)
    r = c.read_json()
    assert [m["id"] for m in r] == list(range(30)), r
    for i, m in enumerate(r):
        assert_response_shape(m)
        assert ("result" in m) == (i % 3 == 0), m


def test_batch_with_one_notification_and_one_request_answers_with_a_one_element_array(host):
    c = host.connect()
    c.send([note("host.ping"), req("host.ping", id=5)])
    assert c.read_json() == [{"jsonrpc": "2.0", "id": 5, "result": {"pong": True}}]
    c.assert_quiet(0.05)


@pytest.mark.parametrize("text,value", [
    (b"-0", 0), (b"1e2", 100.0), (b"1E2", 100.0), (b"1e308", 1e308), (b"-1.7976931348623157e308", -1.7976931348623157e308),
    (b"5e-324", 5e-324), (b"0.1", 0.1), (b"-0.0", -0.0),
])
def test_numeric_ids_come_back_with_the_same_value(host, text, value):
    """JSON-RPC §5: the Response id "MUST be the same as the value of the id member in the Request"."""
    c = host.connect()
    c.send_raw(b'{"jsonrpc":"2.0","id":' + text + b',"method":"host.ping"}\n')
    r = c.read_json()
    assert r["result"] == {"pong": True}, r
    assert r["id"] == value, (text, r)
    assert isinstance(r["id"], type(value)), (text, r)


def test_a_very_long_string_id_is_echoed_exactly(host):
    c = host.connect()
    rid = "é" * 100_000 + "\u2028\"\\end"
    c.send(req("host.ping", id=rid))
    r = c.read_json(timeout=10)
    assert r["id"] == rid and r["result"] == {"pong": True}


def test_an_id_with_duplicate_members_does_not_break_the_reply(host):
    """A request with a duplicate key still gets exactly one well-formed reply."""
    c = host.connect()
    c.send_raw(b'{"jsonrpc":"2.0","id":1,"id":2,"method":"host.ping"}\n')
    r = c.read_json()
    assert_response_shape(r)
    next_is_pong(c)


def test_params_null_is_an_invalid_request_and_a_notification_with_it_is_answered(host):
    """JSON-RPC §4.2: params "MUST be" a structured value (object or array); null is neither. An invalid
    Request is answered even without an id (id null)."""
    c = host.connect()
    c.send_raw(b'{"jsonrpc":"2.0","id":"n","method":"host.ping","params":null}\n')
    assert_error(c.read_json(), -32600, id="n", path="params")
    c.send_raw(b'{"jsonrpc":"2.0","method":"host.ping","params":null}\n')
    assert_error(c.read_json(), -32600, id=None, path="params")
    next_is_pong(c)


@pytest.mark.parametrize("method", ["rpc.ping", "rpc.", "rpc.discover.x", "rpc.Discover", "RPC.discover"])
def test_reserved_rpc_names_other_than_discover_are_method_not_found(host, method):
    """JSON-RPC §4: names starting with "rpc." are reserved for rpc-internal methods; only rpc.discover
    (OpenRPC service discovery) exists."""
    c = host.connect()
    assert_error(c.call(method), -32601, kind="methodNotFound")
    next_is_pong(c)


def test_rpc_discover_as_a_notification_gets_no_reply_and_as_a_batch_entry_one(host):
    c = host.connect()
    c.send(note("rpc.discover"))
    next_is_pong(c)
    c.send([req("rpc.discover", id="d"), note("rpc.discover")])
    r = c.read_json(timeout=10)
    assert isinstance(r, list) and len(r) == 1 and r[0]["id"] == "d" and r[0]["result"]["openrpc"].startswith("1.3"), r


def test_every_reply_to_a_sweep_of_probes_is_a_well_formed_response(vhost):
    """No reply ever carries both result and error, every error has an integer code, a string message and
    data.kind, and an unparseable or unidentifiable message is answered with id null."""
    c = vhost.connect()
    probes = [
        b"{", b"[", b"]", b"nul", b'"', b"[[]]", b"[{}]", b"{}", b'{"jsonrpc":"2.0"}', b'{"id":1}',
        b'{"jsonrpc":"2.0","id":1,"method":"host.ping","params":[]}',
        b'{"jsonrpc":"2.0","id":1.5,"method":"host.info"}',
        b'{"jsonrpc":"2.0","id":null,"method":"host.ping"}',
        b'{"jsonrpc":"2.0","id":"s","method":"clock.advance","params":{"ms":"x"}}',
        b'{"jsonrpc":"2.0","id":"s","method":"container.info","params":{"container":"c-1"}}',
        b'{"jsonrpc":"2.0","id":"s","method":"container.create","params":{"class":"Nope"}}',
        b'{"jsonrpc":"2.0","id":"s","method":"events.subscribe","params":[["lifecycle"],"own",3]}',
        b'[{"jsonrpc":"2.0","id":1,"method":"host.ping"},{"jsonrpc":"2.0","id":2}]',
        b'{"jsonrpc":"2.0","id":"\\ud800","method":"host.ping"}',
        b'{"jsonrpc":"2.0","id":1e400,"method":"host.ping"}',
    ]
    for p in probes:
        c.send_raw(p + b"\n")
        r = c.read_json()
        for m in (r if isinstance(r, list) else [r]):
            assert_response_shape(m)
            if "error" in m and m["error"]["code"] in (-32700,):
                assert m["id"] is None, (p, m)
    next_is_pong(c)


def test_notifications_with_every_kind_of_failure_leave_no_trace_on_the_wire(vhost):
    c = vhost.connect()
    for m in (note("container.info", {"container": "c-9"}), note("container.create", {"class": "Nope"}),
              note("classes.define", {"name": "Container"}), note("host.shutdown", {"bad": 1}),
              note("clock.advance", [1, 2]), note("events.unsubscribe", {"topics": ["x"]})):
        c.send(m)
    next_is_pong(c)
    assert vhost.is_running()


# ===================================================================================================
# docs/protocol.md framing


def test_requests_written_byte_by_byte_with_crlf_and_blank_lines_between_them(host):
    c = host.connect()
    data = (encode(req("host.ping", id=1))[:-1] + b"\r\n" + b"\n \t\n\r\n"
            + encode(req("host.ping", id=2)) + encode([req("host.ping", id=3)]))
    for i in range(len(data)):
        c.send_raw(data[i:i + 1])
    assert c.read_json()["id"] == 1
    assert c.read_json()["id"] == 2
    assert c.read_json() == [{"jsonrpc": "2.0", "id": 3, "result": {"pong": True}}]
    c.assert_quiet(0.05)


def test_many_requests_and_a_partial_one_in_one_write(host):
    c = host.connect()
    whole = b"".join(encode(req("host.ping", id=i)) for i in range(50))
    tail = encode(req("host.ping", id=50))
    c.send_raw(whole + tail[:10])
    assert [c.read_json()["id"] for _ in range(50)] == list(range(50))
    c.assert_quiet(0.05)
    c.send_raw(tail[10:])
    assert c.read_json()["id"] == 50


@pytest.mark.parametrize("split", [False, True], ids=["one-write", "byte-by-byte"])
def test_message_limit_counts_the_line_without_its_crlf(start_host, split):
    """docs/protocol.md: "message 1 MiB" (here --max-message-bytes 200): a line of exactly the limit is read whether it
    ends in \\n or \\r\\n; one byte more is -32600 messageTooLarge with id null; the connection goes on."""
    host = start_host("--max-message-bytes", "200")
    c = host.connect()
    for data, ok in ((padded_ping(200, "at") + b"\r\n", True), (padded_ping(201, "over") + b"\r\n", False),
                     (padded_ping(200, "lf") + b"\n", True), (padded_ping(201, "lf-over") + b"\n", False)):
        if split:
            for i in range(len(data)):
                c.send_raw(data[i:i + 1])
        else:
            c.send_raw(data)
        r = c.read_json()
        if ok:
            assert r["id"] in ("at", "lf") and r["error"]["code"] == -32602, r  # read as a request
        else:
            assert_error(r, -32600, id=None, kind="messageTooLarge")
        next_is_pong(c)


@pytest.mark.parametrize("line", [
    b'{"jsonrpc":"2.0","id":"\xc3","method":"host.ping"}', b'{"jsonrpc":"2.0","id":"\xed\xa0\x80","method":"host.ping"}',
    b'{"jsonrpc":"2.0","id":"\xc0\xaf","method":"host.ping"}', b'{"jsonrpc":"2.0","id":1,"method":"host.ping\xfe"}',
    b"\x80\x81\x82",
], ids=["truncated", "surrogate", "overlong", "bad-byte-in-method", "continuation-bytes"])
def test_non_utf8_lines_are_parse_errors_the_reply_is_valid_utf8_and_the_connection_goes_on(host, line):
    c = host.connect()
    c.send_raw(line + b"\n")
    raw = c.read_line()
    raw.decode("utf-8")  # the reply itself is UTF-8
    assert_error(json.loads(raw), -32700, id=None)
    next_is_pong(c)


def test_half_close_after_pipelined_requests_gets_every_reply_and_event(vhost):
    """A client that writes its requests and shuts its write side (`nc -N`, `socat -t`) still gets every
    reply and the events caused by them, in order, before the host closes."""
    c = vhost.connect()
    data = (encode(req("events.subscribe", {"topics": ["lifecycle"]}, id="s"))
            + encode(req("container.create", {"class": "Container"}, id="k"))
            + b"".join(encode(req("host.ping", id=i)) for i in range(200)))
    c.send_raw(data)
    c.sock.shutdown(socket.SHUT_WR)
    lines = [json.loads(x) for x in c.read_until_closed(timeout=10)]
    ids = [m.get("id") for m in lines if "id" in m]
    assert ids == ["s", "k"] + list(range(200)), ids[:5]
    assert lines[1]["method"] == "lifecycle" and lines[1]["params"]["event"] == "init", lines[:3]


# ===================================================================================================
# docs/protocol.md limits: each flag at and past its value, the connection staying usable


def test_max_batch_flag_at_and_past_the_limit_keeps_the_connection(start_host):
    host = start_host("--max-batch", "3")
    c = host.connect()
    c.send([req("host.ping", id=i) for i in range(3)])
    r = c.read_json()
    assert [m["id"] for m in r] == [0, 1, 2], r
    c.send([note("host.ping")] * 4)
    err = assert_error(c.read_json(), -32600, id=None, kind="batchTooLarge")
    assert err["data"].get("max") == 3, err
    next_is_pong(c)


def test_max_depth_flag_at_and_past_the_limit_keeps_the_connection(start_host):
    host = start_host("--max-depth", "5")
    c = host.connect()
    c.send_raw(nested_ping(5, "d5") + b"\n")
    r = c.read_json()
    assert r["id"] == "d5" and r["error"]["code"] == -32602, r
    c.send_raw(nested_ping(6, "d6") + b"\n")
    assert_error(c.read_json(), -32600, id=None, kind="tooDeep")
    next_is_pong(c)


def test_max_connections_frees_a_slot_when_a_client_leaves(start_host):
    host = start_host("--max-connections", "2")
    a, b = host.connect(), host.connect()
    a.ping()
    b.ping()
    refused = host.connect()
    lines = refused.read_until_closed(timeout=5)
    assert len(lines) == 1, lines
    err = assert_error(json.loads(lines[0]), -32005, id=None, kind="limitExceeded")
    assert err["data"].get("max") == 2, err
    b.close()
    host.wait_stats(lambda s: s["connections"]["open"] == 1, conn=a)
    c = host.connect()
    c.ping()
    st = c.result("host.stats")["connections"]
    assert st["rejectedLimit"] == 1 and st["open"] == 2, st


# ===================================================================================================
# docs/protocol.md events


def test_seq_is_per_connection_each_from_1(vhost):
    a, b = vhost.connect(), vhost.connect()
    a.result("events.subscribe", {"topics": ["host"]})
    a.result("host.memoryWarning")
    a.result("host.memoryWarning")
    b.result("events.subscribe", {"topics": ["lifecycle"]})
    b.result("container.create", {"class": "Container"})
    b.result("container.create", {"class": "Container"})
    a.result("host.memoryWarning")  # host-wide news: b is not subscribed to "host"
    b.result("events.subscribe", {"topics": ["host"]})
    b.result("host.memoryWarning")
    a.ping()
    assert [e["params"]["seq"] for e in a.events] == [1, 2, 3, 4], a.events
    # b's containers get didReceiveMemoryWarning from each warning (lifecycle, which b subscribes to); the
    # host-wide news only once b subscribes to "host".
    assert [e["params"]["seq"] for e in b.events] == [1, 2, 3, 4, 5, 6, 7], b.events
    assert [(e["method"], e["params"].get("event")) for e in b.events] == \
        [("lifecycle", "init")] * 2 + [("lifecycle", "didReceiveMemoryWarning")] * 4 + [("host", None)], b.events


def test_event_t_is_the_host_clock_on_a_real_clock(host):
    c = host.connect()
    c.result("events.subscribe", {"topics": ["host", "lifecycle"]})
    before = c.result("clock.now")["ms"]
    c.result("host.memoryWarning")
    c.result("container.create", {"class": "Container"})
    after = c.result("clock.now")["ms"]
    ts = [e["params"]["t"] for e in c.events]
    assert len(ts) == 2 and all(isinstance(t, float) for t in ts), c.events
    assert before <= ts[0] <= ts[1] <= after, (before, ts, after)


def test_scope_own_never_sees_another_connections_objects_and_all_sees_them_once(vhost):
    own, obs, other = vhost.connect(), vhost.connect(), vhost.connect()
    own.result("events.subscribe", {"topics": ["lifecycle"], "scope": "own"})
    obs.result("events.subscribe", {"topics": ["lifecycle"], "scope": "all"})
    theirs = other.result("container.create", {"class": "Container"})["container"]
    mine = obs.result("container.create", {"class": "Container"})["container"]
    next_is_pong(own)
    drain_events(obs, 0.1)
    assert own.events == []
    assert lifecycle(obs.events) == [(theirs, "init"), (mine, "init")], obs.events


def test_unsubscribe_of_every_topic_stops_events_and_keeps_the_scope(vhost):
    obs, other = vhost.connect(), vhost.connect()
    obs.result("events.subscribe", {"topics": ["lifecycle", "host"], "scope": "all"})
    assert obs.result("events.unsubscribe", {"topics": ["lifecycle", "host"]}) == {"topics": [], "scope": "all"}
    other.result("container.create", {"class": "Container"})
    other.close()
    vhost.wait_stats(lambda s: s["connections"]["open"] == 1, conn=obs)
    next_is_pong(obs)
    assert obs.events == []


def test_disconnect_tears_down_with_events_to_observers_only_for_that_connection(vhost):
    obs = vhost.connect()
    obs.result("events.subscribe", {"topics": ["lifecycle", "host"], "scope": "all"})
    a, b = vhost.connect(), vhost.connect()
    sa = a.result("stack.create", {"width": 10, "height": 10})["stack"]
    ka = a.result("container.create", {"class": "Container"})["container"]
    a.result("stack.push", {"stack": sa, "container": ka, "animated": True})  # mid-animation at disconnect
    kb = b.result("container.create", {"class": "Container"})["container"]
    obs.ping()
    obs.events.clear()
    a.close()
    deadline = time.monotonic() + 5
    while not any(e["method"] == "host" and e["params"].get("kind") == "connectionClosed" for e in obs.events):
        assert time.monotonic() < deadline, obs.events
        try:
            obs.events.append(obs.read_json(0.5))
        except TimeoutError:
            pass
    seq = [ev for cid, ev in lifecycle(obs.events, ka)]
    # The running push completes (didAppear), then disappear, then deinit.
    assert seq.index("viewDidAppear") < seq.index("viewWillDisappear") < seq.index("viewDidDisappear") < seq.index("deinit"), seq
    assert seq[-1] == "deinit" and seq.count("deinit") == 1, seq
    assert all(cid != kb for cid, _ in lifecycle(obs.events)), obs.events
    assert "result" in b.call("container.info", {"container": kb})
    assert obs.result("host.stats")["unbalancedTransitions"] == 0


# ===================================================================================================
# rpc-schema/openrpc.json host methods


def test_clock_advance_on_a_real_clock_never_moves_time_backwards_or_fires(host):
    c = host.connect()
    for params in ({"ms": 10}, [10], {"ms": 0}):
        err = assert_error(c.call("clock.advance", params), -32007, kind="virtualClockOnly")
        assert err["data"].get("method") == "clock.advance", err
    assert c.result("clock.now")["mode"] == "real"


def test_tasks_drain_runs_tasks_enqueued_while_draining_and_reports_pending_zero(vhost):
    c = vhost.connect()
    c.result("classes.define", {"name": "Card"})
    c.result("pool.configure", {"class": "Card", "depth": 2, "policy": "eager"})
    r = c.result("tasks.drain")
    assert r["pending"] == 0 and r["ran"] >= 2, r
    assert c.result("tasks.status")["pending"] == 0
    assert c.result("pool.status", {"class": "Card"})["pools"][0]["idle"] == 2


def test_host_stats_counts_batches_entries_and_invalid_lines(vhost):
    c = vhost.connect()
    s0 = c.result("host.stats")
    c.send([req("host.ping", id=1), req("nope", id=2), note("host.ping"), 7])
    c.read_json()
    c.send_raw(b"{\n")
    c.read_json()
    c.send_raw(b"[]\n")
    c.read_json()
    s1 = c.result("host.stats")
    d = {k: s1[k] - s0[k] for k in ("requests", "notifications", "batches", "errors")}
    # requests: 1, 2 and the second host.stats; errors: nope, 7, the parse error, the empty batch.
    assert d == {"requests": 3, "notifications": 1, "batches": 2, "errors": 4}, d


def test_host_shutdown_inside_a_batch_answers_the_whole_batch_then_exits_0(start_host):
    host = start_host()
    path = host.socket_path
    other = host.connect()
    other.ping()
    c = host.connect()
    c.send([req("host.ping", id=1), req("host.shutdown", id=2), req("host.ping", id=3)])
    lines = [json.loads(x) for x in c.read_until_closed(timeout=10)]
    assert lines and isinstance(lines[0], list), lines
    assert [m["id"] for m in lines[0]] == [1, 2, 3], lines
    assert lines[0][1]["result"] == {"shuttingDown": True}, lines
    other.read_until_closed(timeout=10)
    assert host.wait(10) == 0, host.stderr_text()
    assert not os.path.lexists(path) and not os.path.lexists(path + ".lock")


def test_sigterm_delivers_replies_already_queued_for_a_slow_client(start_host):
    """docs/security.md: SIGTERM "finish in-flight replies": replies the host already produced reach a client that reads
    them only after the signal (within the grace period)."""
    host = start_host("--clock", "virtual")
    c = host.connect()
    c.send_raw(b"".join(encode(req("host.info", id=i)) for i in range(200)))
    host.wait_stats(lambda s: s["requests"] >= 200)
    host.signal(signal.SIGTERM)
    time.sleep(0.2)
    lines = c.read_until_closed(timeout=10)
    ids = [json.loads(x)["id"] for x in lines]
    assert ids == list(range(200)), ids[-3:]
    assert host.wait(10) == 0


# ===================================================================================================
# docs/tasks.md task dispatcher on a real clock


def test_no_busy_loop_while_default_tasks_wait_for_a_tracking_session(start_host):
    """docs/tasks.md: default-mode tasks pause while a session tracks, and "an idle handle keeps the loop turning only
    while runnable tasks exist": a paused queue costs no CPU."""
    host = start_host()
    c = host.connect()
    c.result("classes.define", {"name": "Card"})
    r = c.result("range.create", {"count": 50, "itemLength": 50, "viewport": {"width": 100, "height": 100}})["session"]
    c.result("range.willBeginDragging", {"session": r})
    assert c.result("showRendered", {"class": "Card"})["warm"] is False
    st = c.result("tasks.status")
    assert st["pending"] == 1 and st["runnable"] == 0 and st["paused"] is True, st
    t0 = cpu_seconds(host.pid)
    time.sleep(1.0)
    used = cpu_seconds(host.pid) - t0
    assert used < 0.3, f"the host burnt {used:.2f} s of CPU in 1 s with nothing runnable"
    c.result("range.willEndDragging", {"session": r, "velocity": 0})
    c.call("range.didEndDecelerating", {"session": r})
    host.wait_stats(lambda s: s["tasks"]["pending"] == 0, conn=c)


def test_tasks_that_do_not_fit_the_slice_wait_for_the_next_pass(start_host):
    """docs/tasks.md: each pass runs at least one task and stops when the next one's running-average cost will not fit
    in the slice (4 ms): warm-ups costing 20 ms each run one per pass."""
    host = start_host()
    c = host.connect()
    c.result("classes.define", {"name": "Slow", "hooks": {"viewDidLoad": {"costMs": 20}}})
    s0 = c.result("tasks.status")
    c.result("pool.configure", {"class": "Slow", "depth": 4, "policy": "eager"})
    host.wait_stats(lambda s: s["pools"]["idle"] == 4 and s["tasks"]["pending"] == 0, conn=c)
    s1 = c.result("tasks.status")
    ran, passes = s1["ran"] - s0["ran"], s1["passes"] - s0["passes"]
    assert ran == 4 and passes >= 4, (ran, passes)


# ===================================================================================================
# docs/security.md running it


def test_tcp_notification_before_auth_gets_no_reply_and_a_batch_can_authenticate_first(start_host, tmp_short):
    token = write_token(tmp_short, "tok-0123456789abcdef")
    host = start_host("--listen", "tcp:127.0.0.1:0", "--token-file", token)
    c = host.connect_tcp()
    c.send(note("host.ping"))
    c.send(note("classes.define", {"name": "Sneaky"}))
    r = c.call("host.ping")
    assert_error(r, -32006, kind="unauthorized")
    c.send([req("host.auth", {"token": "tok-0123456789abcdef"}, id=1), req("host.ping", id=2)])
    r = c.read_json()
    assert r == [{"jsonrpc": "2.0", "id": 1, "result": {"authenticated": True}},
                 {"jsonrpc": "2.0", "id": 2, "result": {"pong": True}}], r
    names = [k["name"] for k in c.result("classes.list")["classes"]]
    assert "Sneaky" not in names, "an unauthenticated notification took effect"


def test_greenroom_call_exit_codes(start_host):
    host = start_host("--clock", "virtual")
    env = base_env(host.tmpdir)

    def call(*args):
        return subprocess.run([start_host.bin, "call", *args, "--socket", host.socket_path], capture_output=True,
                              text=True, env=env, timeout=15, stdin=subprocess.DEVNULL)

    r = call("clock.advance", '{"ms": 5}')
    assert r.returncode == 0 and json.loads(r.stdout) == {"now": 5.0, "ms": 5.0, "fired": 0}, r
    r = call("clock.advance", "[2.5]")
    assert r.returncode == 0 and json.loads(r.stdout)["ms"] == 7.5, r
    r = call("host.ping", "5")  # params that are not structured: the host answers -32600
    assert r.returncode == 2 and r.stdout == "", r
    assert json.loads(r.stderr.strip().splitlines()[-1])["code"] == -32600, r
    r = call("container.info", '{"container": "c-1"}')
    assert r.returncode == 2 and json.loads(r.stderr.strip().splitlines()[-1])["code"] == -32002, r


# ===================================================================================================
# docs/plugins.md a failing hook fails that container (-32004, torn down) and nothing else


@pytest.mark.parametrize("hook", ["viewDidAppear", "didMoveToParent"])
def test_a_container_failing_at_the_end_of_an_animated_push_leaves_the_covered_one_balanced(vhost, hook):
    """The pushed container fails when the animation ends: it is torn down, the container it was covering
    is the top again and appears, with no unbalanced call (docs/lifecycle.md: flows the host drives produce none)."""
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    c.result("classes.define", {"name": "Bad", "hooks": {hook: {"fail": True}}})
    s = c.result("stack.create", {"width": 100, "height": 100})["stack"]
    under = c.result("container.create", {"class": "Container"})["container"]
    c.result("stack.push", {"stack": s, "container": under})
    bad = c.result("container.create", {"class": "Bad"})["container"]
    c.result("stack.push", {"stack": s, "container": bad, "animated": True})
    c.events.clear()
    c.result("clock.advance", {"ms": 300})
    assert "unbalancedAppearanceTransition" not in [ev for _, ev in lifecycle(c.events)], c.events
    assert [ev for _, ev in lifecycle(c.events, bad)][-1] == "deinit", c.events
    assert [ev for _, ev in lifecycle(c.events, under)] == ["viewWillAppear", "viewDidAppear"], c.events
    assert_error(c.call("container.info", {"container": bad}), -32002)
    info = c.result("stack.info", {"stack": s})
    assert info["containers"] == [under] and info["animating"] is False, info
    assert c.result("container.info", {"container": under})["appearance"] == "appeared"
    assert c.result("host.stats")["unbalancedTransitions"] == 0


def _pages_with_a_bad_second_page(c, hook):
    c.result("events.subscribe", {"topics": ["lifecycle", "page"]})
    c.result("classes.define", {"name": "Bad", "hooks": {hook: {"fail": True}}})
    p = c.result("page.create", {"pages": [{"class": "Container"}, {"class": "Bad"}, {"class": "Container"}],
                                 "width": 100, "height": 100})["session"]
    first = c.result("page.info", {"session": p})["children"][0]["container"]
    c.events.clear()
    return p, first


def _assert_rest_on(c, p, index, container):
    info = c.result("page.info", {"session": p})
    assert info["index"] == index and info["phase"] == "idle", info
    states = {ch["container"]: ch["state"] for ch in info["children"]}
    assert states.get(container) == "appeared", info
    assert all(st == "disappeared" for k, st in states.items() if k != container), info
    for ch in info["children"]:
        assert "result" in c.call("container.info", {"container": ch["container"]}), f"page.info lists a dead container: {info}"
    assert c.result("host.stats")["unbalancedTransitions"] == 0


def test_a_page_failing_in_viewDidAppear_on_page_show_is_32004_and_torn_down(vhost):
    c = vhost.connect()
    p, first = _pages_with_a_bad_second_page(c, "viewDidAppear")
    err = assert_error(c.call("page.show", {"session": p, "index": 1, "animated": False}), -32004, kind="pluginFailed")
    bad = err["data"]["container"]
    assert err["data"]["hook"] == "viewDidAppear", err
    assert_error(c.call("container.info", {"container": bad}), -32002)
    assert [ev for _, ev in lifecycle(c.events, bad)][-1] == "deinit", c.events
    # The page it was leaving comes back, balanced.
    assert [ev for _, ev in lifecycle(c.events, first)] == ["viewWillDisappear", "viewDidDisappear",
                                                             "viewWillAppear", "viewDidAppear"], c.events
    _assert_rest_on(c, p, 0, first)
    c.result("page.show", {"session": p, "index": 2, "animated": False})
    assert c.result("host.stats")["unbalancedTransitions"] == 0


def test_a_page_failing_at_the_end_of_an_animated_page_show_is_torn_down(vhost):
    c = vhost.connect()
    p, first = _pages_with_a_bad_second_page(c, "viewDidAppear")
    c.result("page.show", {"session": p, "index": 1, "animated": True})
    c.result("clock.advance", {"ms": 300})
    deinit = [cid for cid, ev in lifecycle(c.events) if ev == "deinit"]
    assert len(deinit) == 1, c.events
    assert_error(c.call("container.info", {"container": deinit[0]}), -32002)
    _assert_rest_on(c, p, 0, first)
    done = [e["params"] for e in c.events if e["method"] == "page" and e["params"]["kind"] == "didTransition"]
    assert done and done[-1]["completed"] is False, done


def test_a_page_failing_when_a_swipe_comes_to_rest_leaves_the_other_page_balanced(vhost):
    c = vhost.connect()
    p, first = _pages_with_a_bad_second_page(c, "viewDidAppear")
    c.result("page.willBeginDragging", {"session": p, "offset": 0})
    c.result("page.didScroll", {"session": p, "offset": 60})
    c.result("page.willEndDragging", {"session": p, "offset": 60, "velocity": 1})
    c.result("page.didEndDragging", {"session": p, "offset": 60, "willDecelerate": True})
    err = assert_error(c.call("page.didEndDecelerating", {"session": p, "offset": 100}), -32004, kind="pluginFailed")
    assert_error(c.call("container.info", {"container": err["data"]["container"]}), -32002)
    _assert_rest_on(c, p, 0, first)
    assert c.result("host.stats")["sessions"]["pageTracking"] == 0


def test_a_page_child_failing_on_a_memory_warning_leaves_its_session(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    c.result("classes.define", {"name": "Fragile", "hooks": {"didReceiveMemoryWarning": {"fail": True}}})
    p = c.result("page.create", {"pages": [{"class": "Container"}, {"class": "Fragile"}], "width": 100,
                                 "height": 100, "initialIndex": 1})["session"]
    fragile = c.result("page.info", {"session": p})["children"][0]["container"]
    c.result("host.memoryWarning")
    assert_error(c.call("container.info", {"container": fragile}), -32002)
    info = c.result("page.info", {"session": p})
    assert fragile not in [ch["container"] for ch in info["children"]], info
    c.result("page.show", {"session": p, "index": 0, "animated": False})
    assert c.result("host.stats")["unbalancedTransitions"] == 0


# ===================================================================================================
# docs/protocol.md queued outbound bytes: "past it the connection is closed and counted — a slow reader never grows
# the host's memory without bound"


def _peak_rss_mib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    raise AssertionError("no VmHWM")


def test_a_burst_of_cheap_requests_with_large_replies_is_cut_off_at_the_outbound_limit(host):
    """2000 `rpc.discover` requests (96 KiB, one write) from a client that reads nothing ask for ~240 MiB of
    replies. The host stops at the 8 MiB outbound limit: it closes that connection (counted) instead of
    building every reply first, so its peak memory stays far below what the burst asks for and other
    clients keep being answered."""
    keeper = host.connect()
    keeper.ping()
    doc_bytes = len(json.dumps(keeper.result("rpc.discover", timeout=10), separators=(",", ":")))
    n = 2000
    assert n * doc_bytes > 200 * MiB
    base = _peak_rss_mib(host.pid)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(host.socket_path)
    try:
        s.sendall(b"".join(encode(req("rpc.discover", id=i)) for i in range(n)))
        st = host.wait_stats(lambda st: st["connections"]["closedSlowReader"] == 1, conn=keeper, timeout=60)
        assert st["connections"]["open"] == 1, st
        keeper.ping()
        grew = _peak_rss_mib(host.pid) - base
        assert grew < 128, f"peak RSS grew by {grew} MiB for an 8 MiB outbound limit"
    finally:
        s.close()


# ===================================================================================================
# docs/security.md the lock file


def test_a_lock_file_that_is_a_symlink_is_refused_and_its_target_untouched(start_host, tmp_short):
    """README "Sockets and security": the host truncates and rewrites its lock file (`host.sock.lock`). In a
    shared directory a lock file planted as a symlink must not make it overwrite the file it points to."""
    precious = os.path.join(tmp_short, "precious.txt")
    with open(precious, "w") as f:
        f.write("keep me\n")
    path = os.path.join(tmp_short, "h.sock")
    os.symlink(precious, path + ".lock")
    err = start_host.fail("--socket", path)
    assert err.returncode == 2 and "lock file" in err.stderr, err
    with open(precious) as f:
        assert f.read() == "keep me\n"
    assert not os.path.lexists(path)


def test_a_lock_file_that_is_a_directory_is_refused(start_host, tmp_short):
    path = os.path.join(tmp_short, "h.sock")
    os.mkdir(path + ".lock")
    err = start_host.fail("--socket", path)
    assert err.returncode == 2 and "lock file" in err.stderr, err
    assert os.path.isdir(path + ".lock")
