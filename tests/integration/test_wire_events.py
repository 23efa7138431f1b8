"""docs/protocol.md events: notifications with a topic as method, no id, `seq` (per connection, from 1,
increasing by one across topics, kept across unsubscribe) and `t` (the host clock in ms); the events a request
or notification causes are written before its reply (or the next one); timer events written when they happen;
subscriptions (topics, unknown topics, bad params, unsubscribe) and scopes (a connection receives the events
of its topics for the objects it owns; `scope: "all"` observes every connection's objects, its own once).

Events are written as compact tags, in the order they arrive (grhost.tag):

    "c-2:viewDidLoad~"     lifecycle event `viewDidLoad` of c-2, offscreen (~), "!" when the hook failed

How the expectations are worked out and the hosts started: grhost.py.
"""

from __future__ import annotations

import json

import pytest
from grhost import (LineConn, TOPICS, assert_error, assert_next_is_pong, encode, ids_pattern, lifecycle_pairs,
                    next_is_pong, note, read_events_until, req)
from lifecyclemodel import W, page_peer


def drain_events(c: LineConn, quiet: float = 0.2) -> None:
    """Reads every notification already on its way into c.events (stops after `quiet` s of silence)."""
    while True:
        try:
            msg = c.read_json(quiet)
        except TimeoutError:
            return
        assert isinstance(msg, dict) and "id" not in msg, msg
        c.events.append(msg)


def test_events_have_method_topic_and_no_id(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": TOPICS})
    c.result("container.create", {"class": "Container"})
    c.result("host.memoryWarning")
    assert c.events
    for e in c.events:
        assert set(e) == {"jsonrpc", "method", "params"} and e["jsonrpc"] == "2.0", e
        assert e["method"] in TOPICS and isinstance(e["params"], dict), e


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


def test_event_seq_starts_at_1_and_increases_by_one_across_topics(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["lifecycle", "pool", "host"]})
    c.result("classes.define", {"name": "Card"})
    c.result("host.memoryWarning")
    c.result("showRendered", {"class": "Card"})
    c.result("tasks.drain")
    c.result("host.memoryWarning", {"level": "critical"})
    seqs = [e["params"]["seq"] for e in c.events]
    assert len(seqs) > 5 and seqs == list(range(1, len(seqs) + 1)), seqs
    assert {e["method"] for e in c.events} == {"lifecycle", "pool", "host"}


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


def test_seq_keeps_increasing_after_unsubscribe_and_resubscribe(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["host"]})
    c.result("host.memoryWarning")
    assert c.result("events.unsubscribe", {"topics": ["host"]}) == {"topics": [], "scope": "own"}
    c.result("host.memoryWarning")
    c.result("events.subscribe", {"topics": ["host"]})
    c.result("host.memoryWarning")
    assert [e["params"]["seq"] for e in c.events] == [1, 2], c.events


def test_observer_seq_is_gapless_with_many_connections_interleaving(vhost):
    obs = vhost.connect()
    obs.result("events.subscribe", {"topics": ["lifecycle", "host"], "scope": "all"})
    others = [vhost.connect() for _ in range(4)]
    for o in others:
        o.send_raw(b"".join(encode(req("container.create", {"class": "Container"}, id=i)) for i in range(25)))
    for o in others:
        for _ in range(25):
            assert "result" in o.read_json()
    # 4 connectionOpened + 100 inits.
    read_events_until(obs, lambda evs: len(evs) >= 104)
    next_is_pong(obs)
    seqs = [e["params"]["seq"] for e in obs.events]
    assert seqs == list(range(1, 105)), seqs[:10]
    ts = [e["params"]["t"] for e in obs.events]
    assert ts == sorted(ts)


def test_event_t_is_a_float_in_host_clock_ms(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["host", "lifecycle"]})
    c.result("host.memoryWarning")
    c.result("clock.advance", {"ms": 12.5})
    c.result("host.memoryWarning")
    c.result("container.create", {"class": "Container"})
    ts = [e["params"]["t"] for e in c.events]
    assert all(isinstance(t, float) for t in ts), ts
    assert ts == [0.0, 12.5, 12.5], ts


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


def test_events_caused_by_a_request_are_written_before_its_reply(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    stack = c.result("stack.create", {"width": 100, "height": 100})["stack"]
    cont = c.result("container.create", {"class": "Container"})["container"]
    c.send(req("stack.push", {"stack": stack, "container": cont}, id="push"))
    msgs = []
    while True:
        m = c.read_json()
        msgs.append(m)
        if "id" in m:
            break
    assert msgs[-1]["id"] == "push" and "result" in msgs[-1], msgs
    hooks = [m["params"]["event"] for m in msgs[:-1]]
    assert "viewDidAppear" in hooks and "viewWillAppear" in hooks, hooks
    c.assert_quiet(0.05)


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


def test_events_caused_by_a_notification_come_before_the_next_reply(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["host"]})
    c.send(note("host.memoryWarning", {"level": "critical"}))
    c.send(req("host.ping", id="after"))
    ev = c.read_json()
    assert ev["method"] == "host" and ev["params"]["kind"] == "memoryWarning", ev
    assert c.read_json()["id"] == "after"


def test_timer_events_on_a_real_clock_are_written_when_they_happen(host):
    c = host.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    stack = c.result("stack.create", {"width": 100, "height": 100})["stack"]
    cont = c.result("container.create", {"class": "Container"})["container"]
    c.result("stack.push", {"stack": stack, "container": cont, "animated": True})
    will = [e for e in c.events if e["params"]["event"] == "viewWillAppear"]
    assert len(will) == 1
    # No further request: the animation end is pushed to us by itself.
    read_events_until(c, lambda evs: any(e["params"]["event"] == "viewDidAppear" for e in evs))
    did = next(e for e in c.events if e["params"]["event"] == "viewDidAppear")
    assert did["params"]["t"] >= will[0]["params"]["t"] + 300 - 1e-6, (will, did)
    seqs = [e["params"]["seq"] for e in c.events]
    assert seqs == list(range(1, len(seqs) + 1))


def test_timer_events_reach_an_idle_observer_without_it_asking(vhost):
    obs, owner = vhost.connect(), vhost.connect()
    obs.result("events.subscribe", {"topics": ["lifecycle"], "scope": "all"})
    s = owner.result("stack.create", {"width": 100, "height": 100})["stack"]
    k = owner.result("container.create", {"class": "Container"})["container"]
    owner.result("stack.push", {"stack": s, "container": k, "animated": True})
    owner.result("clock.advance", {"ms": 300})
    read_events_until(obs, lambda evs: (k, "didMoveToParent") in lifecycle_pairs(evs))
    did = [e for e in obs.events if e["params"]["event"] == "viewDidAppear"]
    assert len(did) == 1 and did[0]["params"]["t"] == 300.0, did


def test_own_scope_sees_only_own_objects_and_all_scope_sees_everyones(vhost):
    own, obs, other = vhost.connect(), vhost.connect(), vhost.connect()
    assert own.result("events.subscribe", {"topics": ["lifecycle"]})["scope"] == "own"
    assert obs.result("events.subscribe", {"topics": ["lifecycle"], "scope": "all"})["scope"] == "all"
    cont = other.result("container.create", {"class": "Container"})["container"]
    mine = own.result("container.create", {"class": "Container"})["container"]
    assert lifecycle_pairs(own.events) == [(mine, "init")], own.events
    read_events_until(obs, lambda evs: len(evs) >= 2)
    assert lifecycle_pairs(obs.events) == [(cont, "init"), (mine, "init")], obs.events
    next_is_pong(own)
    next_is_pong(obs)
    assert other.events == []


def test_scope_own_never_sees_another_connections_objects_and_all_sees_them_once(vhost):
    own, obs, other = vhost.connect(), vhost.connect(), vhost.connect()
    own.result("events.subscribe", {"topics": ["lifecycle"], "scope": "own"})
    obs.result("events.subscribe", {"topics": ["lifecycle"], "scope": "all"})
    theirs = other.result("container.create", {"class": "Container"})["container"]
    mine = obs.result("container.create", {"class": "Container"})["container"]
    assert_next_is_pong(own)
    drain_events(obs, 0.1)
    assert own.events == []
    assert lifecycle_pairs(obs.events) == [(theirs, "init"), (mine, "init")], obs.events


def test_scope_own_sees_only_own_objects_and_all_sees_every_connection_once(vhost):
    """docs/protocol.md: a connection receives events of its topics for objects it owns; `scope: "all"` observes every
    connection's objects (its own once, not twice); `scope: "own"` goes back; unsubscribed topics stay quiet."""
    a = page_peer(vhost, topics=("lifecycle",))
    b = page_peer(vhost, topics=("lifecycle",), scope="all")
    x = a("container.create", {"class": "Container"})["container"]
    y = b("container.create", {"class": "Container"})["container"]
    a("host.ping")
    assert a.tags() == [f"{x}:init"]
    assert b.tags() == [f"{x}:init", f"{y}:init"]
    assert b("events.subscribe", {"topics": ["lifecycle"], "scope": "own"})["scope"] == "own"
    z = a("container.create", {"class": "Container"})["container"]
    w = b("container.create", {"class": "Container"})["container"]
    a("host.ping")
    assert a.tags() == [f"{z}:init"] and b.tags() == [f"{w}:init"]
    s = a("page.create", {"class": "Container", "count": 2, "width": W, "height": 200})["session"]
    a("page.show", {"session": s, "index": 1, "animated": False})
    assert not [e for e in a.events() if e["method"] != "lifecycle"]  # `page` not subscribed
    a.assert_balanced()
    b.assert_balanced()


def test_subscribe_without_scope_keeps_the_scope_and_own_switches_back(vhost):
    c = vhost.connect()
    assert c.result("events.subscribe", {"topics": ["host"], "scope": "all"}) == {"topics": ["host"], "scope": "all"}
    assert c.result("events.subscribe", {"topics": ["pool"]}) == {"topics": ["pool", "host"], "scope": "all"}
    assert c.result("events.subscribe", {"topics": [], "scope": "own"}) == {"topics": ["pool", "host"], "scope": "own"}
    other = vhost.connect()
    other.result("container.create", {"class": "Container"})
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    other.result("container.create", {"class": "Container"})
    next_is_pong(c)
    assert c.events == []


def test_subscription_topics_are_listed_in_host_info_order_without_duplicates(host):
    c = host.connect()
    r = c.result("events.subscribe", {"topics": ["host", "lifecycle", "host", "batch"]})
    assert r == {"topics": ["lifecycle", "batch", "host"], "scope": "own"}, r
    assert c.result("events.subscribe", {"topics": list(reversed(TOPICS))})["topics"] == TOPICS


def test_subscribe_to_an_unknown_topic_is_32602_naming_it_and_changes_nothing(host):
    c = host.connect()
    err = assert_error(c.call("events.subscribe", {"topics": ["host", "nope"], "scope": "all"}), -32602,
                       kind="invalidParams", path="topics[1]")
    assert "nope" in err["message"] or "nope" in err["data"].get("reason", ""), err
    # The failed call subscribed nothing and left the scope alone.
    assert c.result("events.unsubscribe", {"topics": ["lifecycle"]}) == {"topics": [], "scope": "own"}


@pytest.mark.parametrize("params,path", [
    ({}, "topics"), ({"topics": "host"}, "topics"), ({"topics": [1]}, "topics[0]"),
    ({"topics": ["HOST"]}, "topics[0]"), ({"topics": ["host"], "scope": "everyone"}, "scope"),
    ({"topics": ["host"], "scope": 1}, "scope"), ({"topics": ["host"], "extra": 1}, "extra"),
])
def test_subscribe_bad_params_are_32602_with_path(host, params, path):
    c = host.connect()
    assert_error(c.call("events.subscribe", params), -32602, kind="invalidParams", path=path)


def test_unsubscribe_stops_events_ignores_unsubscribed_topics_and_checks_names(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["host", "pool"], "scope": "all"})
    assert c.result("events.unsubscribe", {"topics": ["host", "lifecycle"]}) == {"topics": ["pool"], "scope": "all"}
    c.result("host.memoryWarning")
    next_is_pong(c)
    assert c.events == []
    assert_error(c.call("events.unsubscribe", {"topics": ["nope"]}), -32602, path="topics[0]")
    assert_error(c.call("events.unsubscribe", {}), -32602, path="topics")


def test_unsubscribe_of_every_topic_stops_events_and_keeps_the_scope(vhost):
    obs, other = vhost.connect(), vhost.connect()
    obs.result("events.subscribe", {"topics": ["lifecycle", "host"], "scope": "all"})
    assert obs.result("events.unsubscribe", {"topics": ["lifecycle", "host"]}) == {"topics": [], "scope": "all"}
    other.result("container.create", {"class": "Container"})
    other.close()
    vhost.wait_stats(lambda s: s["connections"]["open"] == 1, conn=obs)
    assert_next_is_pong(obs)
    assert obs.events == []


def test_host_connection_events_go_to_all_scope_observers_only(host):
    own, obs = host.connect(), host.connect()
    own.result("events.subscribe", {"topics": ["host"]})
    obs.result("events.subscribe", {"topics": ["host"], "scope": "all"})
    x = host.connect()
    x.ping()
    x.close()
    read_events_until(obs, lambda evs: [e["params"]["kind"] for e in evs] == ["connectionOpened", "connectionClosed"])
    for e in obs.events:
        assert ids_pattern("conn").match(e["params"]["connection"]), e
    next_is_pong(own)
    assert own.events == []
