"""Host-wide state can be undone: `classes.undefine` for scripted classes (refused while instances live) and
`host.reset` for test scripts sharing one host (virtual clock, or `--allow-reset`)."""

from __future__ import annotations


def _err(reply):
    assert "error" in reply, reply
    return reply["error"]


def test_undefine_removes_a_scripted_class_and_its_name_can_be_used_again(vhost):
    c = vhost.connect()
    c.result("classes.define", {"name": "Card", "hooks": {"viewDidLoad": {"costMs": 1}}})
    assert c.result("classes.undefine", {"name": "Card"}) == {"name": "Card", "undefined": True}
    names = [k["name"] for k in c.result("classes.list")["classes"]]
    assert "Card" not in names
    err = _err(c.call("container.create", {"class": "Card"}))
    assert err["code"] == -32001 and err["data"]["class"] == "Card", err
    # The name is free again, with new hooks.
    c.result("classes.define", {"name": "Card", "memoryBytes": 64})
    assert c.result("container.create", {"class": "Card"})["container"]


def test_undefine_is_refused_while_instances_live_naming_them(vhost):
    c = vhost.connect()
    c.result("classes.define", {"name": "Card"})
    made = c.result("container.create", {"class": "Card"})["container"]
    c.result("pool.configure", {"class": "Card", "depth": 2, "policy": "eager"})
    c.result("tasks.drain")
    err = _err(c.call("classes.undefine", {"name": "Card"}))
    assert err["code"] == -32003 and err["data"]["kind"] == "invalidState", err
    assert made in err["data"]["containers"] and len(err["data"]["containers"]) == 3, err
    assert err["data"]["pooled"] == 2 and "pool.purge" in err["message"], err
    # Nothing changed: the class still works.
    second = c.result("container.create", {"class": "Card"})["container"]
    # Release what the connection holds, purge the pool: now it can go, and its pools with it.
    c.result("container.release", {"container": made})
    c.result("container.release", {"container": second})
    err = _err(c.call("classes.undefine", {"name": "Card"}))
    assert err["data"]["pooled"] == 2 and len(err["data"]["containers"]) == 2, err
    c.result("pool.purge", {"class": "Card"})
    assert c.result("classes.undefine", {"name": "Card"})["undefined"] is True
    assert all(p["class"] != "Card" for p in c.result("pool.status")["pools"])


def test_undefine_refuses_built_in_and_unknown_classes(vhost):
    c = vhost.connect()
    err = _err(c.call("classes.undefine", {"name": "Container"}))
    assert err["code"] == -32003 and "built in" in err["message"], err
    err = _err(c.call("classes.undefine", {"name": "NoSuchClass"}))
    assert err["code"] == -32001 and err["data"]["path"] == "name", err
    err = _err(c.call("classes.undefine", {}))
    assert err["code"] == -32602 and err["data"]["path"] == "name", err
    assert c.result("host.ping") == {"pong": True}


def test_reset_tears_everything_down_with_lifecycle_and_keeps_connections(vhost):
    observer = vhost.connect()
    observer.result("events.subscribe", {"topics": ["lifecycle", "host"], "scope": "all"})
    a, b = vhost.connect(), vhost.connect()
    a.result("classes.define", {"name": "Card"})
    s = a.result("stack.create", {"width": 100, "height": 100})["stack"]
    shown = a.result("showRendered", {"class": "Card", "stack": s})["container"]
    a.result("tasks.drain")  # the lazy pool warms a replacement
    b.result("page.create", {"class": "Container", "count": 3, "width": 100, "height": 100})
    b.result("range.create", {"count": 100, "itemLength": 44, "viewport": {"width": 375, "height": 667}})
    observer.result("host.ping")  # take in what it has heard so far
    before = len(observer.events)
    result = b.result("host.reset")
    observer.result("host.ping")  # everything the reset caused comes before this reply
    assert result["reset"] is True
    assert result["tornDown"] == {"containers": result["tornDown"]["containers"], "stacks": 1,
                                  "pageSessions": 1, "rangeSessions": 1}, result
    assert result["tornDown"]["containers"] >= 3 and result["classesUndefined"] == ["Card"], result
    assert result["pools"] >= 1 and result["pooledContainers"] == 1, result
    events = [n["params"] for n in observer.events[before:] if n["method"] == "lifecycle"]
    shown_events = [e["event"] for e in events if e["container"] == shown]
    assert shown_events[:2] == ["viewWillDisappear", "viewDidDisappear"] and shown_events[-1] == "deinit", shown_events
    assert not [e for e in events if e["event"] == "unbalancedAppearanceTransition"], events
    resets = [n["params"] for n in observer.events[before:] if n["params"].get("kind") == "reset"]
    assert len(resets) == 1 and resets[0]["connection"], resets
    stats = observer.result("host.stats")
    assert stats["containers"]["total"] == 0 and stats["stacks"] == 0 and stats["resets"] == 1, stats
    assert stats["unbalancedTransitions"] == 0
    assert observer.result("pool.status")["pools"] == []
    assert "Card" not in [k["name"] for k in observer.result("classes.list")["classes"]]
    # Every connection is still open, and ids start from 1 again.
    assert a.result("host.ping") == {"pong": True}
    assert a.result("stack.create", {"width": 10, "height": 10})["stack"] == "s-1"
    assert a.result("container.create", {"class": "Container"})["container"] == "c-1"
    assert b.result("range.create", {"count": 5, "viewport": {"width": 100, "height": 100}})["session"] == "r-1"


def test_reset_needs_the_virtual_clock_or_allow_reset(start_host):
    real = start_host()
    c = real.connect()
    c.result("stack.create", {"width": 10, "height": 10})
    err = _err(c.call("host.reset"))
    assert err["code"] == -32007 and err["data"]["flag"] == "--allow-reset", err
    assert c.result("host.stats")["stacks"] == 1  # nothing was touched
    allowed = start_host("--allow-reset").connect()
    allowed.result("stack.create", {"width": 10, "height": 10})
    assert allowed.result("host.reset")["tornDown"]["stacks"] == 1


def test_reset_takes_no_params(vhost):
    c = vhost.connect()
    err = _err(c.call("host.reset", {"everything": True}))
    assert err["code"] == -32602, err
