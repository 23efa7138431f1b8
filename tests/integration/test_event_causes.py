"""docs/protocol.md "Causes": every event names what caused it. The id of the request that caused it when this
connection sent it; `{"id", "connection"}` when a `scope: "all"` observer sees another connection's; `{"notification":
method}` for a request without an id; and, when no request did, `{"timer": label, "scheduledBy": cause}`, `{"idle":
key}`, `{"open": connection}`, `{"close": connection}`, `{"signal": name}`. A batch's events name each call's own id.

Also `clock.settle`: the timers in order and the idle tasks, until nothing is pending or `maxMs` has passed.
Every expectation is worked out from docs/protocol.md and docs/virtual-clock.md; each test starts its own host.
"""

from __future__ import annotations

import json
import signal

from grhost import Closed, encode


def causes(events: list[dict], container: str | None = None) -> list:
    return [e["params"]["cause"] for e in events
            if e["method"] == "lifecycle" and (container is None or e["params"]["container"] == container)]


def test_a_requests_events_name_its_id_whatever_its_type(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["lifecycle", "host"]})
    for rid in ("push-1", 42, 3.5):
        c.events.clear()
        msg = {"jsonrpc": "2.0", "id": rid, "method": "container.create", "params": {"class": "Container"}}
        c.send(msg)
        reply = c.read_reply(rid)
        assert "result" in reply, reply
        assert causes(c.events) == [rid], c.events


def test_a_notification_is_named_by_its_method(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    c.send({"jsonrpc": "2.0", "method": "container.create", "params": {"class": "Container"}})
    c.ping()
    assert causes(c.events) == [{"notification": "container.create"}], c.events


def test_a_batch_names_each_calls_own_id(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    s = c.result("stack.create", {"width": 100, "height": 100})["stack"]
    batch = [{"jsonrpc": "2.0", "id": "a", "method": "container.create", "params": {"class": "Container"}},
             {"jsonrpc": "2.0", "id": "b", "method": "container.create", "params": {"class": "Container"}},
             {"jsonrpc": "2.0", "id": "c", "method": "stack.push", "params": {"stack": s, "container": "c-1"}}]
    c.events.clear()
    c.send_raw(encode(batch))
    while True:
        msg = c.read_json()
        if isinstance(msg, list):
            break
        c.events.append(msg)
    assert [r["id"] for r in msg] == ["a", "b", "c"]
    assert causes(c.events, "c-2") == ["b"]
    assert set(causes(c.events, "c-1")) == {"a", "c"} and causes(c.events, "c-1")[0] == "a"


def test_an_observer_sees_the_other_connections_request(vhost):
    watcher = vhost.connect()
    watcher.result("events.subscribe", {"topics": ["lifecycle"], "scope": "all"})
    owner = vhost.connect()
    owner.result("events.subscribe", {"topics": ["lifecycle"]})
    conn = vhost.connect()
    conn_id = None
    # Who `owner` is, as events name connections: the host event of its own opening says.
    info = watcher.result("host.stats")
    assert info["connections"]["open"] == 3
    rid = owner.request("container.create", {"class": "Container"})
    owner.read_reply(rid)
    watcher.ping()
    seen = causes(watcher.events)
    assert len(seen) == 1 and seen[0]["id"] == rid, seen
    conn_id = seen[0]["connection"]
    assert conn_id.startswith("conn-") and causes(owner.events) == [rid]
    conn.close()


def test_an_animation_end_names_its_timer_and_the_request_that_started_it(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    s = c.result("stack.create", {"width": 100, "height": 100})["stack"]
    box = c.result("container.create", {"class": "Container"})["container"]
    rid = c.request("stack.push", {"stack": s, "container": box, "animated": True})
    c.read_reply(rid)
    c.events.clear()
    c.result("clock.advance", {"ms": 300})
    assert causes(c.events) == [{"timer": f"{s} transition", "scheduledBy": rid}] * 2, c.events


def test_a_warm_up_names_its_idle_task_even_when_tasks_drain_ran_it(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["lifecycle", "pool"]})
    c.result("pool.warm", {"class": "Container"})
    c.events.clear()
    c.result("tasks.drain")
    assert c.events
    for e in c.events:
        assert set(e["params"]["cause"]) == {"idle"} and e["params"]["cause"]["idle"].startswith("warm:"), e


def test_a_closing_connection_names_itself_to_observers(vhost):
    watcher = vhost.connect()
    watcher.result("events.subscribe", {"topics": ["lifecycle", "host"], "scope": "all"})
    other = vhost.connect()
    other.result("container.create", {"class": "Container"})
    watcher.ping()
    conn_id = watcher.events[-1]["params"]["cause"]["connection"]
    watcher.events.clear()
    other.close()
    vhost.wait_stats(lambda s: s["connections"]["open"] == 1, conn=watcher)
    teardown = [e["params"] for e in watcher.events]
    assert [p.get("event") or p.get("kind") for p in teardown] == ["deinit", "connectionClosed"], teardown
    assert all(p["cause"] == {"close": conn_id} for p in teardown), teardown


def test_a_signal_names_the_shutdown(start_host):
    h = start_host("--clock", "virtual")
    watcher = h.connect()
    watcher.result("events.subscribe", {"topics": ["lifecycle", "host"], "scope": "all"})
    watcher.result("container.create", {"class": "Container"})
    h.signal(signal.SIGTERM)
    seen = []
    try:
        while True:
            seen.append(watcher.read_json(10))
    except Closed:
        pass
    teardown = [m["params"] for m in seen if m.get("method") in ("lifecycle", "host")]
    assert teardown and all(p["cause"] == {"signal": "SIGTERM"} for p in teardown), teardown
    assert h.process.wait(10) == 0, "a shutdown by signal exits cleanly, every handle closed"


def test_opening_names_the_connection(vhost):
    watcher = vhost.connect()
    watcher.result("events.subscribe", {"topics": ["host"], "scope": "all"})
    vhost.connect().ping()
    watcher.ping()
    opened = [e["params"] for e in watcher.events if e["params"]["kind"] == "connectionOpened"]
    assert opened and opened[0]["cause"] == {"open": opened[0]["connection"]}, opened


# clock.settle


def test_settle_runs_every_timer_and_task_in_order_and_says_so(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["lifecycle", "pool"]})
    c.result("classes.define", {"name": "Card"})
    s = c.result("stack.create", {"width": 100, "height": 100})["stack"]
    c.result("pool.configure", {"class": "Card"})
    c.result("host.memoryWarning", {"level": "critical"})  # the pool's 5 s cool-down: a timer
    c.result("showRendered", {"class": "Card", "stack": s, "animated": True})  # a miss: a warm-up, an animation
    c.events.clear()
    r = c.result("clock.settle")
    assert r["settled"] is True and r["pending"] == {"timers": 0, "nextTimerAt": None, "tasks": 0}, r
    assert r["fired"] == 2 and r["ran"] == 1 and r["paused"] == [], r
    assert r["now"] == 5000 and r["advancedMs"] == 5000, r
    kinds = [e["params"]["cause"] for e in c.events]
    assert kinds[0] == {"idle": kinds[0]["idle"]}, "the runnable warm-up first, before any time moves"
    assert any(isinstance(k, dict) and k.get("timer") == f"{s} transition" for k in kinds)
    assert c.result("clock.settle") == {"now": 5000, "advancedMs": 0, "fired": 0, "ran": 0, "settled": True,
                                        "pending": {"timers": 0, "nextTimerAt": None, "tasks": 0}, "paused": []}


def test_settle_stops_at_max_ms_and_reports_what_waits(vhost):
    c = vhost.connect()
    c.result("pool.configure", {"class": "Container"})
    c.result("host.memoryWarning")  # the pool's cool-down ends at 5000
    r = c.result("clock.settle", {"maxMs": 1000})
    assert r["settled"] is False and r["now"] == 1000 and r["fired"] == 0, r
    assert r["pending"] == {"timers": 1, "nextTimerAt": 5000, "tasks": 0}, r


def test_settle_reports_tasks_a_live_drag_pauses_and_does_not_end_the_gesture(vhost):
    c = vhost.connect()
    page = c.result("page.create", {"class": "Container", "count": 3, "width": 100, "height": 100})["session"]
    c.result("page.willBeginDragging", {"session": page, "offset": 0})
    c.result("pool.warm", {"class": "Container"})
    r = c.result("clock.settle")
    assert r["ran"] == 0 and r["settled"] is False and len(r["paused"]) == 1, r
    assert r["paused"][0]["mode"] == "default" and r["paused"][0]["key"].startswith("warm:"), r
    assert c.result("page.info", {"session": page})["phase"] == "dragging"


def test_settle_refuses_a_real_clock_and_a_bad_limit(host, vhost):
    real = host.connect().call("clock.settle")
    assert real["error"]["code"] == -32007 and real["error"]["data"]["method"] == "clock.settle", real
    bad = vhost.connect().call("clock.settle", {"maxMs": -1})
    assert bad["error"]["code"] == -32602 and bad["error"]["data"]["path"] == "maxMs", bad
    wrong = vhost.connect().call("clock.settle", {"maxMs": "soon"})
    assert wrong["error"]["code"] == -32602 and wrong["error"]["data"]["path"] == "maxMs", wrong
    assert json.dumps(vhost.connect().result("host.ping")) == '{"pong": true}'
