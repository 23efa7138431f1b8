"""Containers and stacks: the push and pop order (UINavigationController's: the old top's willDisappear, the new
top's willAppear and layout, then the old top's didDisappear and the new one's didAppear),
animated pushes and pops ending 300 ms after they started, a container pushed twice or from another stack,
hidden stacks, resizes that lay the top out again, container.configure / container.release /
container.info, memory warnings reaching every live container, and teardown when a connection goes.

How the expected sequences are worked out, and the tags the tests compare: lifecyclemodel.py.
"""

from __future__ import annotations

from grhost import tag
from lifecyclemodel import APPEARANCE, lifecycle, page_peer, peer, session, sessions


def test_push_order_is_the_navigation_controllers(vhost):
    """docs/lifecycle.md: push: the new top joins and loads, the old top gets willDisappear, the new top willAppear
    and then its layout, then the old top didDisappear and the new top didAppear and didMoveToParent; not animated:
    all at once, with animated: false."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 375, "height": 667})["stack"]
    a = p("container.create", {"class": "Container"})["container"]
    b = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": a})
    p.skip()
    info = p("stack.push", {"stack": stack, "container": b})
    assert (info["containers"], info["top"], info["animating"]) == ([a, b], b, False)
    events = p.events()
    assert [tag(e) for e in events] == [f"{b}:willMoveToParent", f"{b}:loadView", f"{b}:viewDidLoad",
                                        f"{a}:viewWillDisappear", f"{b}:viewWillAppear", f"{b}:viewIsAppearing",
                                        f"{b}:viewWillLayoutSubviews", f"{b}:viewDidLayoutSubviews",
                                        f"{a}:viewDidDisappear", f"{b}:viewDidAppear", f"{b}:didMoveToParent"]
    assert all(e["animated"] is False for e in lifecycle(events) if e["event"] in APPEARANCE)
    assert p.info(a)["appearance"] == "disappeared" and p.info(b)["appearance"] == "appeared"
    p.assert_balanced()


def test_animated_pop_ends_exactly_300ms_after_it_started(vhost):
    """docs/lifecycle.md: after 300 ms on the host clock when animated: not one ms before, exactly at (t of the
    events)."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 375, "height": 667})["stack"]
    a = p("container.create", {"class": "Container"})["container"]
    b = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": a})
    p("stack.push", {"stack": stack, "container": b})
    p("clock.advance", {"ms": 1234.5})
    p.skip()
    popped = p("stack.pop", {"stack": stack, "animated": True})
    assert popped["container"] == b and popped["stack"]["animating"] is True
    assert p.tags() == [f"{b}:willMoveToParent", f"{b}:viewWillDisappear", f"{a}:viewWillAppear", f"{a}:viewIsAppearing"]
    p("clock.advance", {"ms": 150})
    p("clock.advance", {"ms": 149.5})
    assert p.tags() == []
    assert p.info(a)["appearance"] == "appearing" and p.info(b)["appearance"] == "disappearing"
    p("clock.advance", {"ms": 0.5})
    events = p.events()
    assert [tag(e) for e in events] == [f"{b}:viewDidDisappear", f"{a}:viewDidAppear", f"{b}:didMoveToParent"]
    assert all(e["params"]["t"] == 1534.5 for e in events), events
    assert all(e["animated"] is True for e in lifecycle(events) if e["event"] in APPEARANCE)
    assert p("stack.info", {"stack": stack})["animating"] is False
    p.assert_balanced()


def test_animated_push_and_pop_finish_after_300ms(vhost):
    s = session(vhost)
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]
    a = s("container.create", {"class": "Container"})["container"]
    b = s("container.create", {"class": "Container"})["container"]
    s("stack.push", {"stack": stack, "container": a})
    s.skip()

    assert s("stack.push", {"stack": stack, "container": b, "animated": True})["animating"] is True
    events = s.events()
    assert [tag(e) for e in events] == [f"{b}:willMoveToParent", f"{b}:loadView", f"{b}:viewDidLoad",
                                        f"{a}:viewWillDisappear", f"{b}:viewWillAppear", f"{b}:viewIsAppearing",
                                        f"{b}:viewWillLayoutSubviews", f"{b}:viewDidLayoutSubviews"]
    assert all(e["params"]["animated"] is True for e in events if e["params"]["event"] in APPEARANCE)
    assert s("clock.advance", {"ms": 299}) == {"now": 299, "ms": 299, "fired": 0}
    assert s.tags() == []
    assert s("stack.info", {"stack": stack})["animating"] is True
    assert s("clock.advance", {"ms": 1})["fired"] == 1
    events = s.events()
    assert [tag(e) for e in events] == [f"{a}:viewDidDisappear", f"{b}:viewDidAppear", f"{b}:didMoveToParent"]
    assert all(e["params"]["t"] == 300 for e in events)
    assert all(e["params"]["animated"] is True for e in events if e["params"]["event"] in APPEARANCE)
    assert s("stack.info", {"stack": stack})["animating"] is False

    popped = s("stack.pop", {"stack": stack, "animated": True})
    assert popped["container"] == b and popped["stack"]["containers"] == [a] and popped["stack"]["animating"]
    assert s.tags() == [f"{b}:willMoveToParent", f"{b}:viewWillDisappear", f"{a}:viewWillAppear", f"{a}:viewIsAppearing"]
    s("clock.advance", {"ms": 299})
    assert s.tags() == []
    s("clock.advance", {"ms": 1})
    assert s.tags() == [f"{b}:viewDidDisappear", f"{a}:viewDidAppear", f"{b}:didMoveToParent"]
    assert s("container.info", {"container": b})["parent"] is None

    # A transition started while another runs completes the running one first (its end calls are delivered).
    s("stack.push", {"stack": stack, "container": b, "animated": True})
    s.skip()
    c = s("container.create", {"class": "Container"})["container"]
    s("stack.push", {"stack": stack, "container": c, "animated": True})
    assert s.tags()[:4] == [f"{c}:init", f"{a}:viewDidDisappear", f"{b}:viewDidAppear", f"{b}:didMoveToParent"]
    s("clock.advance", {"ms": 300})
    assert s("stack.info", {"stack": stack})["containers"] == [a, b, c]
    s.assert_balanced()


def test_clock_advance_ends_overlapping_animations_each_at_its_own_deadline(vhost):
    """rpc-schema/openrpc.json clock.advance runs due timers and animations in time order: a stack push (t=0) and a
    page.show (t=100),
    both animated, end at 300 and 400, in that order, within one clock.advance."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 375, "height": 667})["stack"]
    c = p("container.create", {"class": "Container"})["container"]
    s, _ = sessions(p)
    p("stack.push", {"stack": stack, "container": c, "animated": True})
    p("clock.advance", {"ms": 100})
    p("page.show", {"session": s, "index": 2})
    p.skip()
    assert p("clock.advance", {"ms": 1000}) == {"now": 1100, "ms": 1100, "fired": 2}
    ends = [(e["params"]["t"], e["params"].get("event") or e["params"].get("kind")) for e in p.events()]
    assert ends == [(300, "viewDidAppear"), (300, "didMoveToParent"), (400, "viewDidAppear"),
                    (400, "viewDidDisappear"), (400, "didTransition")], ends
    p.assert_balanced()


def test_a_refused_pop_keeps_the_running_pop_animation(vhost):
    """docs/lifecycle.md: an animated pop's end calls come after exactly 300 ms of host clock. A stack.pop refused
    because the
    stack is now empty (-32003) changes nothing: no event, the running pop still ends at 300 ms."""
    p = page_peer(vhost)
    stack = p("stack.create", {"width": 320, "height": 480})["stack"]
    c = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": c})
    p.skip()
    assert p("stack.pop", {"stack": stack, "animated": True})["container"] == c
    assert p.tags() == [f"{c}:willMoveToParent", f"{c}:viewWillDisappear"]
    err = p.error("stack.pop", {"stack": stack})
    assert err["code"] == -32003 and err["data"]["kind"] == "invalidState", err
    assert p.events() == []
    assert p("stack.info", {"stack": stack})["animating"] is True
    p("clock.advance", {"ms": 299})
    assert p.events() == []
    p("clock.advance", {"ms": 1})
    events = p.events()
    assert [tag(e) for e in events] == [f"{c}:viewDidDisappear", f"{c}:didMoveToParent"]
    assert all(e["params"]["t"] == 300.0 for e in events)
    p.assert_balanced()


def test_pushing_a_container_lower_in_the_same_stack_is_invalid_state(vhost):
    """docs/lifecycle.md: a container is in at most one stack; pushing one already in the same stack (not only its top)
    is
    invalidState, and nothing changes."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 375, "height": 667})["stack"]
    a = p("container.create", {"class": "Container"})["container"]
    b = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": a})
    p("stack.push", {"stack": stack, "container": b, "animated": True})
    before = p("stack.info", {"stack": stack})
    p.skip()
    err = p.error("stack.push", {"stack": stack, "container": a})
    assert err["code"] == -32003 and err["data"]["kind"] == "invalidState", err
    assert err["data"].get("container") == a and err["data"].get("stack") == stack, err
    assert p.tags() == []
    assert p("stack.info", {"stack": stack}) == before
    p("clock.advance", {"ms": 300})
    p.assert_balanced()


def test_pushing_a_container_twice_onto_the_same_stack_is_invalid_state(vhost):
    s = session(vhost)
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]
    c = s("container.create", {"class": "Container"})["container"]
    s("stack.push", {"stack": stack, "container": c})
    s.skip()
    err = s.error("stack.push", {"stack": stack, "container": c})
    assert err["code"] == -32003 and err["data"]["kind"] == "invalidState", err
    assert err["data"]["container"] == c and err["data"]["stack"] == stack, err
    assert s.tags() == []
    assert s("stack.info", {"stack": stack})["containers"] == [c]
    assert s("container.info", {"container": c})["state"] == "appeared"
    s.conn.ping()
    s.assert_balanced()


def test_push_from_another_stack_mid_animation_completes_it_then_moves(vhost):
    """docs/lifecycle.md: pushing a container that sits in another stack moves it: it disappears there first. That
    stack's
    running animation is delivered before (rpc-schema: a running transition completes first)."""
    p = peer(vhost)
    s1 = p("stack.create", {"width": 375, "height": 667})["stack"]
    s2 = p("stack.create", {"width": 375, "height": 667})["stack"]
    under = p("container.create", {"class": "Container"})["container"]
    moved = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": s1, "container": under})
    p("stack.push", {"stack": s1, "container": moved, "animated": True})
    p.skip()
    p("stack.push", {"stack": s2, "container": moved})
    tags = p.tags()
    assert tags == [f"{under}:viewDidDisappear", f"{moved}:viewDidAppear", f"{moved}:didMoveToParent",
                    f"{moved}:willMoveToParent", f"{moved}:viewWillDisappear", f"{under}:viewWillAppear", f"{under}:viewIsAppearing",
                    f"{moved}:viewDidDisappear", f"{under}:viewDidAppear", f"{moved}:didMoveToParent",
                    f"{moved}:willMoveToParent", f"{moved}:viewWillAppear", f"{moved}:viewIsAppearing", f"{moved}:viewDidAppear",
                    f"{moved}:didMoveToParent"], tags
    assert p("stack.info", {"stack": s1})["containers"] == [under]
    assert p("stack.info", {"stack": s2})["containers"] == [moved]
    assert p.info(moved)["parent"] == {"kind": "stack", "id": s2}
    p.assert_balanced()


def test_pushing_a_container_from_another_stack_moves_it(vhost):
    s = session(vhost)
    s1 = s("stack.create", {"width": 375, "height": 667})["stack"]
    s2 = s("stack.create", {"width": 768, "height": 1024})["stack"]
    under = s("container.create", {"class": "Container"})["container"]
    moved = s("container.create", {"class": "Container"})["container"]
    s("stack.push", {"stack": s1, "container": under})
    s("stack.push", {"stack": s1, "container": moved})
    s.skip()
    info = s("stack.push", {"stack": s2, "container": moved})
    assert info["containers"] == [moved] and info["top"] == moved
    events = s.events()
    # It disappears in s1 first (s1's next container appears), then appears in s2 and lays out at s2's size.
    assert [tag(e) for e in events] == [
        f"{moved}:willMoveToParent", f"{moved}:viewWillDisappear", f"{under}:viewWillAppear", f"{under}:viewIsAppearing",
        f"{moved}:viewDidDisappear", f"{under}:viewDidAppear", f"{moved}:didMoveToParent",
        f"{moved}:willMoveToParent", f"{moved}:viewWillAppear", f"{moved}:viewIsAppearing", f"{moved}:viewWillLayoutSubviews",
        f"{moved}:viewDidLayoutSubviews", f"{moved}:viewDidAppear", f"{moved}:didMoveToParent",
    ]
    assert [e["params"]["parent"] for e in events if "MoveToParent" in e["params"]["event"]] == [None, None, s2, s2]
    assert events[10]["params"]["size"] == {"width": 768, "height": 1024}
    assert s("stack.info", {"stack": s1})["containers"] == [under]
    s.assert_balanced()


def test_hidden_stack_is_unhidden_by_set_hidden_and_lays_out_at_its_current_size(vhost):
    """docs/lifecycle.md + rpc-schema stack.setHidden: a hidden stack loads and shows nothing (an animated push there
    has no
    animation); `stack.setHidden false` unhides it: the top loads, lays out at the stack's size (as resized while
    hidden) and appears."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 375, "height": 667, "hidden": True})["stack"]
    c = p("container.create", {"class": "Container"})["container"]
    p.skip()
    info = p("stack.push", {"stack": stack, "container": c, "animated": True})
    assert info["hidden"] is True and info["animating"] is False, info
    p("stack.resize", {"stack": stack, "width": 500, "height": 300})
    assert p.tags() == [f"{c}:willMoveToParent", f"{c}:didMoveToParent"]
    assert p("host.stats")["timers"] == 0
    assert p.info(c)["viewLoaded"] is False
    p("stack.setHidden", {"stack": stack, "hidden": False})
    events = p.events()
    assert [tag(e) for e in events] == [f"{c}:loadView", f"{c}:viewDidLoad", f"{c}:viewWillAppear", f"{c}:viewIsAppearing",
                                        f"{c}:viewWillLayoutSubviews", f"{c}:viewDidLayoutSubviews", f"{c}:viewDidAppear"]
    assert lifecycle(events, c, "viewDidLayoutSubviews")[0]["size"] == {"width": 500, "height": 300}
    assert p.info(c)["appearance"] == "appeared"
    p.assert_balanced()


def test_a_hidden_stack_loads_nothing_until_shown(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Web"})
    stack = s("stack.create", {"width": 375, "height": 667, "hidden": True})["stack"]
    first = s("container.create", {"class": "Web"})["container"]
    s.skip()
    s("stack.push", {"stack": stack, "container": first})
    assert s.tags() == [f"{first}:willMoveToParent", f"{first}:didMoveToParent"]
    shown = s("showRendered", {"class": "Web", "stack": stack, "data": {"n": 1}})["container"]
    assert s.tags() == [f"{shown}:init", f"pool:miss:{shown}", f"{shown}:willMoveToParent",
                        f"{shown}:didMoveToParent", f"{shown}:configure"]
    for c in (first, shown):
        info = s("container.info", {"container": c})
        assert (info["state"], info["viewLoaded"], info["size"]) == ("fresh", False, None), info

    s("stack.setHidden", {"stack": stack, "hidden": False})
    assert s.tags() == [f"{shown}:loadView", f"{shown}:viewDidLoad", f"{shown}:viewWillAppear", f"{shown}:viewIsAppearing",
                        f"{shown}:viewWillLayoutSubviews", f"{shown}:viewDidLayoutSubviews", f"{shown}:viewDidAppear"]
    assert s("container.info", {"container": first})["viewLoaded"] is False  # only the top is shown
    s("stack.setHidden", {"stack": stack, "hidden": True})
    assert s.tags() == [f"{shown}:viewWillDisappear", f"{shown}:viewDidDisappear"]
    s("stack.setHidden", {"stack": stack, "hidden": False})
    assert s.tags() == [f"{shown}:viewWillAppear", f"{shown}:viewIsAppearing", f"{shown}:viewDidAppear"]  # loaded once
    s.assert_balanced()


def test_pop_reveals_the_one_below_laid_out_at_the_new_size(vhost):
    """rpc-schema stack.resize: the others lay out when they next appear (after their viewWillAppear, as a
    navigation controller lays out the incoming view inside the transition)."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 375, "height": 667})["stack"]
    a = p("container.create", {"class": "Container"})["container"]
    b = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": a})
    p("stack.push", {"stack": stack, "container": b})
    p("stack.resize", {"stack": stack, "width": 667, "height": 375})
    p.skip()
    p("stack.pop", {"stack": stack})
    events = p.events()
    assert [tag(e) for e in events] == [f"{b}:willMoveToParent", f"{b}:viewWillDisappear", f"{a}:viewWillAppear", f"{a}:viewIsAppearing",
                                        f"{a}:viewWillLayoutSubviews", f"{a}:viewDidLayoutSubviews",
                                        f"{b}:viewDidDisappear", f"{a}:viewDidAppear", f"{b}:didMoveToParent"]
    assert lifecycle(events, a, "viewWillLayoutSubviews")[0]["size"] == {"width": 667, "height": 375}
    p.assert_balanced()


def test_resize_lays_the_top_out_again(vhost):
    s = session(vhost)
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]
    c = s("container.create", {"class": "Container"})["container"]
    s("stack.push", {"stack": stack, "container": c})
    s.skip()
    info = s("stack.resize", {"stack": stack, "width": 667, "height": 375})
    assert (info["width"], info["height"]) == (667, 375)
    events = s.events()
    assert [tag(e) for e in events] == [f"{c}:viewWillLayoutSubviews", f"{c}:viewDidLayoutSubviews"]
    assert events[1]["params"]["size"] == {"width": 667, "height": 375}
    s("stack.resize", {"stack": stack, "width": 667, "height": 375})
    assert s.tags() == []  # same size: no layout
    s.assert_balanced()


def test_stack_pop_on_an_empty_stack_and_destroy(vhost):
    s = session(vhost)
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]
    err = s.error("stack.pop", {"stack": stack})
    assert err["code"] == -32003 and err["data"]["stack"] == stack, err
    a = s("container.create", {"class": "Container"})["container"]
    b = s("container.create", {"class": "Container"})["container"]
    s("stack.push", {"stack": stack, "container": a})
    s("stack.push", {"stack": stack, "container": b})
    s.skip()
    assert s("stack.destroy", {"stack": stack}) == {"stack": stack, "destroyed": True, "released": [b, a]}
    assert s.tags() == [f"{b}:viewWillDisappear", f"{b}:viewDidDisappear", f"{b}:deinit", f"{a}:deinit"]
    assert s.error("stack.info", {"stack": stack})["code"] == -32002
    assert s.error("container.info", {"container": a})["code"] == -32002
    s.assert_balanced()


def test_container_configure_returns_the_hook_output(vhost):
    """rpc-schema/openrpc.json: container.configure {container, data} -> {container, output} (null when the hook returns
    none),
    binding data after display; it neither loads nor shows the view."""
    p = peer(vhost)
    p("classes.define", {"name": "Bound", "hooks": {"configure": {"output": {"rendered": [1, 2]}}}})
    c = p("container.create", {"class": "Bound"})["container"]
    assert p("container.configure", {"container": c, "data": None}) == {"container": c, "output": {"rendered": [1, 2]}}
    plain = p("container.create", {"class": "Container"})["container"]
    assert p("container.configure", {"container": plain, "data": [1]}) == {"container": plain, "output": None}
    assert p.tags() == [f"{c}:init", f"{c}:configure", f"{plain}:init", f"{plain}:configure"]
    assert p.info(c)["state"] == "fresh"
    err = p.error("container.configure", {"container": "c-99", "data": 1})
    assert err["code"] == -32002 and err["data"]["kind"] == "unknownObject"


def test_container_release_disappears_then_deinits(vhost):
    """rpc-schema/openrpc.json, docs/protocol.md: container.release takes it out of its stack (the top disappears, the
    one below appears), then
    deinit; a container covered in the stack or fresh just deinits; a page child is invalidState."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 375, "height": 667})["stack"]
    a = p("container.create", {"class": "Container"})["container"]
    b = p("container.create", {"class": "Container"})["container"]
    c = p("container.create", {"class": "Container"})["container"]
    fresh = p("container.create", {"class": "Container"})["container"]
    for x in (a, b, c):
        p("stack.push", {"stack": stack, "container": x})
    p.skip()
    assert p("container.release", {"container": c}) == {"container": c, "released": True}
    assert p.tags() == [f"{c}:willMoveToParent", f"{c}:viewWillDisappear", f"{b}:viewWillAppear", f"{b}:viewIsAppearing",
                        f"{c}:viewDidDisappear", f"{b}:viewDidAppear", f"{c}:didMoveToParent", f"{c}:deinit"]
    p("container.release", {"container": a})  # covered: already disappeared
    assert p.tags() == [f"{a}:willMoveToParent", f"{a}:didMoveToParent", f"{a}:deinit"]
    p("container.release", {"container": fresh})
    assert p.tags() == [f"{fresh}:deinit"]
    assert p("stack.info", {"stack": stack})["containers"] == [b]
    assert p.error("container.info", {"container": c})["code"] == -32002
    s, info = sessions(p)
    child = info["children"][0]["container"]
    err = p.error("container.release", {"container": child})
    assert err["code"] == -32003, err
    assert p.page(s)["children"][0]["container"] == child
    p.assert_balanced()


def test_container_info_reports_state_appearance_and_parent(vhost):
    """rpc-schema/openrpc.json container.info: fresh (view not loaded) or the appearance state, viewLoaded, last layout
    size, parent
    (null, a stack, a page session at an index), offscreen false for the caller's containers."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 320, "height": 480})["stack"]
    c = p("container.create", {"class": "Container"})["container"]
    info = p.info(c)
    assert (info["state"], info["appearance"], info["viewLoaded"], info["size"], info["parent"], info["offscreen"]) \
        == ("fresh", "disappeared", False, None, None, False), info
    p("stack.push", {"stack": stack, "container": c, "animated": True})
    info = p.info(c)
    assert (info["state"], info["appearance"], info["viewLoaded"], info["size"], info["parent"]) == \
        ("appearing", "appearing", True, {"width": 320, "height": 480}, {"kind": "stack", "id": stack}), info
    p("clock.advance", {"ms": 300})
    assert p.info(c)["state"] == "appeared"
    p("stack.pop", {"stack": stack})
    info = p.info(c)
    assert (info["state"], info["parent"]) == ("disappeared", None), info
    s, pinfo = sessions(p)
    child = pinfo["children"][0]["container"]
    assert p.info(child)["parent"] == {"kind": "page", "id": s, "index": 1}


def test_memory_warning_reaches_every_live_container_loaded_or_not(vhost):
    """UIKit sends didReceiveMemoryWarning to every view controller, whether or not its view was ever loaded:
    a fresh container and one in a hidden stack (which loads nothing) get it too; idle pooled ones are purged
    instead, and a released one gets nothing."""
    s = session(vhost)
    fresh = s("container.create", {"class": "Container"})["container"]
    gone = s("container.create", {"class": "Container"})["container"]
    s("container.release", {"container": gone})
    hidden = s("stack.create", {"width": 375, "height": 667, "hidden": True})["stack"]
    waiting = s("container.create", {"class": "Container"})["container"]
    s("stack.push", {"stack": hidden, "container": waiting})
    assert s("container.info", {"container": waiting})["viewLoaded"] is False
    s.skip()
    reply = s("host.memoryWarning")
    assert reply["purged"]["notifiedContainers"] == 2, reply
    assert s.tags() == [f"{fresh}:didReceiveMemoryWarning", f"{waiting}:didReceiveMemoryWarning"]
    assert s("container.info", {"container": waiting})["viewLoaded"] is False  # the warning loads nothing
    s.assert_balanced()


def test_disconnect_tears_every_object_down_with_lifecycle(vhost):
    observer = session(vhost, scope="all")
    owner = session(vhost)
    owner("classes.define", {"name": "Card"})
    stack = owner("stack.create", {"width": 375, "height": 667})["stack"]
    bottom = owner("container.create", {"class": "Card"})["container"]
    owner("stack.push", {"stack": stack, "container": bottom})
    loose = owner("container.create", {"class": "Card"})["container"]  # fresh, in no stack
    popped = owner("container.create", {"class": "Card"})["container"]
    owner("stack.push", {"stack": stack, "container": popped})
    owner("stack.pop", {"stack": stack})                               # loaded, disappeared, parentless
    top = owner("container.create", {"class": "Card"})["container"]
    owner("stack.push", {"stack": stack, "container": top, "animated": True})  # still animating
    owner("pool.warm", {"class": "Card"})
    owner("tasks.drain")                                               # a pooled container: the host's
    observer("host.ping")
    observer.skip()

    owner.conn.close()
    mine = {bottom, loose, popped, top}
    observer.pump(lambda evs: {e["params"]["container"] for e in evs if e["method"] == "lifecycle"
                               and e["params"]["event"] == "deinit"} >= mine)
    observer("host.ping")
    tags = observer.tags()
    by = {c: [t.split(":", 1)[1] for t in tags if t.startswith(c + ":")] for c in mine}
    # The running animation is delivered first, then the top disappears before it deinits.
    assert by[top] == ["viewDidAppear", "didMoveToParent", "viewWillDisappear", "viewDidDisappear", "deinit"], by
    assert by[bottom] == ["viewDidDisappear", "deinit"], by
    assert by[loose] == ["deinit"] and by[popped] == ["deinit"], by
    assert not [t for t in tags if t.split(":")[0] not in mine], tags  # the pool is not affected
    stats = observer.stats()
    assert stats["stacks"] == 0 and stats["containers"]["total"] == 1 and stats["containers"]["pooled"] == 1, stats
    assert observer.pool("Card")["idle"] == 1
    observer.assert_balanced()
