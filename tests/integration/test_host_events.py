"""docs/protocol.md events: notifications with `seq` (per connection, from 1, strictly increasing) and `t`; events a
request causes are written before its reply."""

from __future__ import annotations

import json

from grhost import encode


def test_memory_warning_event_precedes_its_reply_with_increasing_seq(host):
    c = host.connect()
    sub = c.result("events.subscribe", {"topics": ["host"]})
    assert sub == {"topics": ["host"], "scope": "own"}, sub
    seqs, ts = [], []
    for i, level in enumerate(["warning", "critical", "warning"]):
        rid = c.request("host.memoryWarning", {"level": level})
        event = c.read_json()
        assert "id" not in event and event["jsonrpc"] == "2.0", f"the event comes before the reply: {event}"
        assert event["method"] == "host", event
        p = event["params"]
        assert p["kind"] == "memoryWarning" and p["level"] == level, p
        assert isinstance(p["t"], (int, float)), p
        seqs.append(p["seq"])
        ts.append(p["t"])
        reply = c.read_json()
        assert reply["id"] == rid and reply["result"]["level"] == level, reply
    assert seqs == [1, 2, 3], seqs
    assert ts == sorted(ts), ts


def test_pipelined_requests_keep_event_reply_order(host):
    c = host.connect()
    c.send_raw(
        encode({"jsonrpc": "2.0", "id": "s", "method": "events.subscribe", "params": {"topics": ["host"]}})
        + b"".join(encode({"jsonrpc": "2.0", "id": i, "method": "host.memoryWarning"}) for i in range(20))
    )
    msgs = [c.read_json() for _ in range(41)]
    assert msgs[0]["id"] == "s"
    for i in range(20):
        event, reply = msgs[1 + 2 * i], msgs[2 + 2 * i]
        assert event["method"] == "host" and event["params"]["seq"] == i + 1, event
        assert reply["id"] == i and "result" in reply, reply
    c.assert_quiet(0.1)


def test_seq_is_per_connection_and_unsubscribed_topics_stay_quiet(host):
    a, b, quiet = host.connect(), host.connect(), host.connect()
    a.result("events.subscribe", {"topics": ["host"]})
    a.result("host.memoryWarning")
    assert [e["params"]["seq"] for e in a.events] == [1]
    b.result("events.subscribe", {"topics": ["host"]})
    # b's memory warning reaches a (a host-wide event) and b, each with its own sequence.
    b.result("host.memoryWarning")
    assert [e["params"]["seq"] for e in b.events] == [1]
    ev = a.read_json()
    assert ev["method"] == "host" and ev["params"]["seq"] == 2, ev
    # A connection that never subscribed gets no notifications at all.
    quiet.ping()
    quiet.assert_quiet(0.1)
    assert quiet.events == []


def test_event_lines_are_valid_json_rpc_notifications(host):
    c = host.connect()
    c.result("events.subscribe", {"topics": ["host"], "scope": "all"})
    other = host.connect()
    other.ping()
    other.close()
    lines = [c.read_line(), c.read_line()]
    for line in lines:
        msg = json.loads(line)
        assert set(msg) == {"jsonrpc", "method", "params"}, msg
        assert list(msg["params"])[:2] == ["seq", "t"], msg
    assert [json.loads(x)["params"]["kind"] for x in lines] == ["connectionOpened", "connectionClosed"]
