"""docs/protocol.md object ids and ownership: ids have their documented formats, another connection's object
is -32002 for every kind, and a disconnect tears down only that connection's objects (with lifecycle events to
observers only for it).

How the expectations are worked out and the hosts started: grhost.py.
"""

from __future__ import annotations

import time

import pytest
from grhost import assert_error, ids_pattern, lifecycle_pairs, next_is_pong, read_events_until


def test_object_ids_have_their_documented_formats(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["batch"]})
    s = c.result("stack.create", {"width": 100, "height": 100})["stack"]
    k = c.result("container.create", {"class": "Container"})["container"]
    p = c.result("page.create", {"class": "Container", "count": 2, "width": 100, "height": 100})["session"]
    r = c.result("range.create", {"count": 1, "itemLength": 10, "viewport": {"width": 100, "height": 100}})
    assert ids_pattern("s").match(s), s
    assert ids_pattern("c").match(k), k
    assert ids_pattern("p").match(p), p
    assert ids_pattern("r").match(r["session"]), r
    ctx = [e["params"]["context"] for e in c.events if e["method"] == "batch"]
    assert len(ctx) == 1 and ids_pattern("b").match(ctx[0]), c.events


@pytest.mark.parametrize("kind", ["container", "stack", "page", "range"])
def test_another_connections_object_is_32002(vhost, kind):
    a, b = vhost.connect(), vhost.connect()
    if kind == "container":
        oid = a.result("container.create", {"class": "Container"})["container"]
        method, params, path = "container.info", {"container": oid}, "container"
        check = ("container.info", {"container": oid})
    elif kind == "stack":
        oid = a.result("stack.create", {"width": 100, "height": 100})["stack"]
        method, params, path = "stack.destroy", {"stack": oid}, "stack"
        check = ("stack.info", {"stack": oid})
    elif kind == "page":
        oid = a.result("page.create", {"class": "Container", "count": 2, "width": 100, "height": 100})["session"]
        method, params, path = "page.destroy", {"session": oid}, "session"
        check = ("page.info", {"session": oid})
    else:
        oid = a.result("range.create", {"count": 5, "itemLength": 10, "viewport": {"width": 100, "height": 100}})["session"]
        method, params, path = "range.destroy", {"session": oid}, "session"
        check = ("range.state", {"session": oid})
    err = assert_error(b.call(method, params), -32002, kind="unknownObject", path=path)
    assert err["data"].get("id") == oid, err
    assert "result" in a.call(*check), "the owner's object must be untouched"


def test_disconnect_tears_down_only_that_connections_objects(vhost):
    obs = vhost.connect()
    obs.result("events.subscribe", {"topics": ["lifecycle"], "scope": "all"})
    a, b = vhost.connect(), vhost.connect()
    made = {}
    for name, c in (("a", a), ("b", b)):
        s = c.result("stack.create", {"width": 100, "height": 100})["stack"]
        k = c.result("container.create", {"class": "Container"})["container"]
        c.result("stack.push", {"stack": s, "container": k})
        p = c.result("page.create", {"class": "Container", "count": 3, "width": 100, "height": 100})["session"]
        r = c.result("range.create", {"count": 50, "itemLength": 10, "viewport": {"width": 100, "height": 100}})["session"]
        made[name] = (s, k, p, r)
    before = obs.result("host.stats")
    assert before["stacks"] == 2 and before["sessions"]["page"] == 2 and before["sessions"]["range"] == 2, before
    b_stack = b.result("stack.info", {"stack": made["b"][0]})
    b_page = b.result("page.info", {"session": made["b"][2]})
    a_page = a.result("page.info", {"session": made["a"][2]})
    a_child = [ch["container"] for ch in a_page["children"] if ch["state"] == "appeared"]
    assert len(a_child) == 1, a_page
    before_total = before["containers"]["total"]
    next_is_pong(obs)
    obs.events.clear()
    a.close()
    ka = made["a"][1]
    read_events_until(obs, lambda evs: {(ka, "deinit"), (a_child[0], "deinit")} <= set(lifecycle_pairs(evs)))
    for cont in (ka, a_child[0]):
        seq = [ev for (cid, ev) in lifecycle_pairs(obs.events) if cid == cont]
        # Disappear, then deinit (containment calls may sit in between).
        assert seq[:2] == ["viewWillDisappear", "viewDidDisappear"] and seq[-1] == "deinit", (cont, seq)
        assert seq.count("deinit") == 1, (cont, seq)
    after = vhost.wait_stats(lambda s: s["connections"]["open"] == 2 and s["stacks"] == 1, conn=obs)
    assert after["sessions"]["page"] == 1 and after["sessions"]["range"] == 1, after
    assert b.result("stack.info", {"stack": made["b"][0]}) == b_stack
    assert b.result("page.info", {"session": made["b"][2]}) == b_page
    touched = {cid for cid, _ in lifecycle_pairs(obs.events)}
    assert made["b"][1] not in touched, "b's container was disturbed"
    assert not {ch["container"] for ch in b_page["children"]} & touched, "b's page children were disturbed"
    deinited = {cid for cid, ev in lifecycle_pairs(obs.events) if ev == "deinit"}
    assert after["containers"]["total"] == before_total - len(deinited), (before_total, deinited, after)
    assert after["unbalancedTransitions"] == 0, after


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
    seq = [ev for cid, ev in lifecycle_pairs(obs.events, ka)]
    # The running push completes (didAppear), then disappear, then deinit.
    assert seq.index("viewDidAppear") < seq.index("viewWillDisappear") < seq.index("viewDidDisappear") < seq.index("deinit"), seq
    assert seq[-1] == "deinit" and seq.count("deinit") == 1, seq
    assert all(cid != kb for cid, _ in lifecycle_pairs(obs.events)), obs.events
    assert "result" in b.call("container.info", {"container": kb})
    assert obs.result("host.stats")["unbalancedTransitions"] == 0
