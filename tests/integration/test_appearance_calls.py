"""`container.beginAppearanceTransition` / `container.endAppearanceTransition`: UIKit's manual appearance calls
for a container with no parent (the way a custom container drives its child by hand), so that a lifecycle test
can make any call of the appearance table (docs/lifecycle.md) — including the unbalanced ones, which run no hook
and are emitted and counted exactly as the host's own would be."""

from __future__ import annotations

from grhost import EventCursor, tag

LOAD = ["loadView", "viewDidLoad"]


def peer(host) -> EventCursor:
    p = EventCursor(host.connect())
    p.tag = staticmethod(tag)
    return p.subscribe(["lifecycle"])


def test_balanced_calls_run_the_table_hooks(vhost):
    p = peer(vhost)
    c = p("container.create", {"class": "Container"})["container"]
    p.skip()
    info = p("container.beginAppearanceTransition", {"container": c, "appearing": True, "animated": True})
    assert info["appearance"] == "appearing"
    events = p.events()
    assert [e["params"]["event"] for e in events] == [*LOAD, "viewWillAppear"]
    assert events[-1]["params"]["animated"] is True
    assert p("container.endAppearanceTransition", {"container": c})["appearance"] == "appeared"
    assert p("container.beginAppearanceTransition", {"container": c, "appearing": False})["appearance"] == "disappearing"
    assert p("container.beginAppearanceTransition", {"container": c, "appearing": True})["appearance"] == "appearing"
    assert p("container.endAppearanceTransition", {"container": c})["appearance"] == "appeared"
    assert [e["params"]["event"] for e in p.events()] == ["viewDidAppear", "viewWillDisappear", "viewWillAppear",
                                                           "viewDidAppear"]
    assert p.stats()["unbalancedTransitions"] == 0
    # Released while appeared: it disappears with balanced calls, then deinit.
    p("container.release", {"container": c})
    assert [e["params"]["event"] for e in p.events()][:2] == ["viewWillDisappear", "viewDidDisappear"]
    assert p.stats()["unbalancedTransitions"] == 0


def test_unbalanced_calls_run_no_hook_and_are_emitted_and_counted(vhost):
    p = peer(vhost)
    c = p("container.create", {"class": "Container"})["container"]
    p.skip()
    info = p("container.endAppearanceTransition", {"container": c})
    assert info["appearance"] == "disappeared"
    [event] = p.events()
    assert {k: event["params"][k] for k in ("container", "event", "call", "state", "offscreen")} == {
        "container": c, "event": "unbalancedAppearanceTransition", "call": "endAppearance", "state": "disappeared",
        "offscreen": False}
    p("container.beginAppearanceTransition", {"container": c, "appearing": True})
    p.skip()
    p("container.beginAppearanceTransition", {"container": c, "appearing": True})
    [event] = p.events()
    assert (event["params"]["call"], event["params"]["state"]) == ("beginAppearance(true)", "appearing")
    assert p.stats()["unbalancedTransitions"] == 2
    assert p("container.info", {"container": c})["appearance"] == "appearing"


def test_containers_with_a_parent_and_bad_params_are_refused(vhost):
    p = peer(vhost)
    stack = p("stack.create", {"width": 100, "height": 100})["stack"]
    c = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": c})
    err = p.error("container.beginAppearanceTransition", {"container": c, "appearing": False})
    assert err["code"] == -32003 and err["data"]["container"] == c and err["data"]["stack"] == stack, err
    err = p.error("container.endAppearanceTransition", {"container": c})
    assert err["code"] == -32003, err
    loose = p("container.create", {"class": "Container"})["container"]
    err = p.error("container.beginAppearanceTransition", {"container": loose})
    assert err["code"] == -32602 and err["data"]["path"] == "appearing", err
    err = p.error("container.beginAppearanceTransition", {"container": loose, "appearing": "yes"})
    assert err["code"] == -32602 and err["data"]["path"] == "appearing", err
    err = p.error("container.endAppearanceTransition", {"container": "c-999"})
    assert err["code"] == -32002, err
    # Another connection's container is not yours.
    other = peer(vhost)
    err = other.error("container.endAppearanceTransition", {"container": loose})
    assert err["code"] == -32002, err
    assert p.stats()["unbalancedTransitions"] == 0
    assert p("host.ping") == {"pong": True}
