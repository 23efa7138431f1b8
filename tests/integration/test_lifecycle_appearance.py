"""The appearance table (docs/lifecycle.md): lifecycle events and their shape, the view loaded lazily just
before the first viewWillAppear, each balanced cell of the table reached by one of the host's flows, the
unbalanced calls (refused, no hook, emitted and counted), the manual appearance calls
(`container.beginAppearanceTransition` / `container.endAppearanceTransition`) and a random workout that
never makes an unbalanced transition.

How the expected sequences are worked out, and the tags the tests compare: lifecyclemodel.py.
"""

from __future__ import annotations

import random

import jsonschema
import pytest
from grhost import EventCursor, tag
from lifecyclemodel import (APPEARANCE, DOC, DOC_URI, Peer, REGISTRY, TABLE, W, lifecycle, load, peer, session,
                            sessions)


LAYOUT = ("viewWillLayoutSubviews", "viewDidLayoutSubviews")


CONTAINMENT = ("willMoveToParent", "didMoveToParent")


STATES = ("disappeared", "appearing", "appeared", "disappearing")


CALLS = ("beginAppearance(true)", "beginAppearance(false)", "endAppearance")


EVENT_SCHEMA = {n["name"]: jsonschema.Draft7Validator({"$ref": DOC_URI + n["params"]["$ref"]}, registry=REGISTRY)
                for n in DOC["x-notifications"]}


# The six balanced cells of docs/lifecycle.md's table, each reached by one of the host's flows.
CELLS = ["disappeared-begin(true)", "appearing-end", "appeared-begin(false)", "disappearing-end",
         "appearing-begin(false)", "disappearing-begin(true)"]


def unbalanced_flow(p: Peer) -> None:
    """Two flows that interleave page changes with an animated stack transition (see the interleaved-flow tests
    at the end); the host's own flows must make no unbalanced call in them."""
    stack = p("stack.create", {"width": W, "height": 200})["stack"]
    s, _ = sessions(p, stack=stack)
    top = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": top, "animated": True})
    p("page.show", {"session": s, "index": 2})
    p("clock.advance", {"ms": 300})
    p("stack.pop", {"stack": stack, "animated": True})
    p("page.show", {"session": s, "index": 3, "animated": False})
    p("clock.advance", {"ms": 300})


LOAD = ["loadView", "viewDidLoad"]


def manual_peer(host) -> EventCursor:
    p = EventCursor(host.connect())
    p.tag = staticmethod(tag)
    return p.subscribe(["lifecycle"])


def test_lifecycle_events_have_the_documented_shape(vhost):
    """docs/lifecycle.md: each hook that runs is one `lifecycle` event {container, class, event, animated?, offscreen,
    page?}
    (+ seq, t; size on layout hooks, parent on containment hooks): checked against the schema and by hand over
    stacks, pools and pages; seq strictly increases from 1 and t is the host clock."""
    p = peer(vhost, topics=("lifecycle", "pool", "page", "host"))
    p("classes.define", {"name": "Card", "hooks": {"configure": {"output": 1}}})
    stack = p("stack.create", {"width": 320, "height": 480})["stack"]
    a = p("container.create", {"class": "Card"})["container"]
    p("stack.push", {"stack": stack, "container": a})
    p("clock.advance", {"ms": 50})
    p("showRendered", {"class": "Card", "stack": stack, "animated": True, "data": {}})
    p("clock.advance", {"ms": 300})
    p("tasks.drain")
    p("showRendered", {"class": "Card"})
    s, _ = sessions(p)
    p("page.show", {"session": s, "index": 2, "animated": False})
    p("host.memoryWarning")
    p("page.destroy", {"session": s})
    p("container.release", {"container": a})
    events = p.events()
    assert len(events) > 40
    seqs = [e["params"]["seq"] for e in events]
    assert seqs[0] == 1 and all(b == a_ + 1 for a_, b in zip(seqs, seqs[1:])), seqs
    bad = []
    for e in events:
        errors = sorted(EVENT_SCHEMA[e["method"]].iter_errors(e["params"]), key=str)
        if errors:
            bad.append(f"{e}: {errors[0].message}")
    assert not bad, "\n".join(bad[:5])
    for e in lifecycle(events):
        assert isinstance(e["t"], float), e
        keys = set(e) - {"seq", "t", "cause", "container", "class", "event", "offscreen"}
        allowed = {"page"} | ({"animated"} if e["event"] in (*APPEARANCE, "viewIsAppearing") else set()) \
            | ({"size"} if e["event"] in LAYOUT else set()) | ({"parent"} if e["event"] in CONTAINMENT else set())
        assert keys <= allowed, e
        if e["event"] in APPEARANCE:
            assert isinstance(e["animated"], bool), e
        if "page" in e:
            assert e["offscreen"] is False and e["page"]["session"] == s, e
    # t is the host clock: the animated push ended at 50 + 300.
    did = [e for e in lifecycle(events, event="viewDidAppear") if e["animated"]]
    assert did and all(e["t"] == 350.0 for e in did), did
    p.assert_balanced()


def test_view_loads_lazily_just_before_the_first_will_appear(vhost):
    """docs/lifecycle.md: loadView then viewDidLoad run just before the first viewWillAppear (the layout at the window's
    size
    between them, rpc-schema stack.push); not on create, configure, a hidden push, or a second appearance."""
    p = peer(vhost)
    p("classes.define", {"name": "Web", "hooks": {"configure": {"output": "bound"}}})
    hidden = p("stack.create", {"width": 320, "height": 480, "hidden": True})["stack"]
    shown = p("stack.create", {"width": 375, "height": 667})["stack"]
    c = p("container.create", {"class": "Web", "data": {"id": 1}})["container"]
    assert p("container.configure", {"container": c, "data": {"url": "x"}}) == {"container": c, "output": "bound"}
    p("stack.push", {"stack": hidden, "container": c})
    assert p.tags() == [f"{c}:init", f"{c}:configure", f"{c}:willMoveToParent", f"{c}:didMoveToParent"]
    info = p.info(c)
    assert (info["state"], info["viewLoaded"], info["size"]) == ("fresh", False, None), info

    p("stack.push", {"stack": shown, "container": c})  # moved from the hidden stack: loads on the way in
    tags = p.tags()
    i = tags.index(f"{c}:loadView")
    assert tags[i:i + 6] == [f"{c}:loadView", f"{c}:viewDidLoad", f"{c}:viewWillAppear", f"{c}:viewIsAppearing", f"{c}:viewWillLayoutSubviews",
                             f"{c}:viewDidLayoutSubviews"], tags
    assert tags.count(f"{c}:loadView") == 1 and tags.count(f"{c}:viewDidLoad") == 1
    assert p.info(c)["size"] == {"width": 375, "height": 667}

    other = p("container.create", {"class": "Web"})["container"]
    p("stack.push", {"stack": shown, "container": other})
    p("stack.pop", {"stack": shown})
    tags = p.tags()
    assert f"{c}:viewWillAppear" in tags and f"{c}:loadView" not in tags, tags  # loaded once
    p.assert_balanced()


@pytest.mark.parametrize("cell", CELLS)
def test_appearance_table_cell(vhost, cell):
    """docs/lifecycle.md: state, call -> new state and hook: observed through container.info / page.info before and
    after."""
    p = peer(vhost)
    if cell in CELLS[:4]:
        stack = p("stack.create", {"width": 375, "height": 667})["stack"]
        a = p("container.create", {"class": "Container"})["container"]
        b = p("container.create", {"class": "Container"})["container"]
        p("stack.push", {"stack": stack, "container": a})
        assert p.info(a)["appearance"] == "appeared"
        assert p.info(b)["appearance"] == "disappeared"
        p.skip()
        p("stack.push", {"stack": stack, "container": b, "animated": True})
        tags = p.tags()
        if cell == "disappeared-begin(true)":
            assert f"{b}:viewWillAppear" in tags and p.info(b)["appearance"] == "appearing"
        elif cell == "appeared-begin(false)":
            assert f"{a}:viewWillDisappear" in tags and p.info(a)["appearance"] == "disappearing"
        else:
            assert (p.info(a)["appearance"], p.info(b)["appearance"]) == ("disappearing", "appearing")
            p("clock.advance", {"ms": 300})
            tags = p.tags()
            if cell == "appearing-end":
                assert f"{b}:viewDidAppear" in tags and p.info(b)["appearance"] == "appeared"
            else:
                assert f"{a}:viewDidDisappear" in tags and p.info(a)["appearance"] == "disappeared"
    else:
        s, _ = sessions(p)
        S = {"session": s}
        p("page.willBeginDragging", {**S, "offset": 100})
        p("page.didScroll", {**S, "offset": 120})  # toward 2: page 2 appearing, page 1 disappearing
        states = {c["index"]: c["state"] for c in p.page(s)["children"]}
        assert (states[1], states[2]) == ("disappearing", "appearing"), states
        p.skip()
        if cell == "appearing-begin(false)":
            p("page.didScroll", {**S, "offset": 80})  # back toward 0: page 2 begins disappearing
            assert p.hooks(s)[:3] == ["willAppear 0", "willDisappear 2", "didDisappear 2"]
        else:
            p("page.didEndDragging", {**S, "offset": 100, "willDecelerate": False})  # cancelled: 1 comes back
            assert p.hooks(s)[:2] == ["willAppear 1", "didAppear 1"]
    p.assert_balanced()


def test_unbalanced_calls_are_refused_cells_run_no_hook_and_are_counted(vhost):
    """docs/lifecycle.md: an unbalanced call runs no hook; it emits `unbalancedAppearanceTransition` (with the refused
    call and
    the state that refused it: a cell docs/lifecycle.md's table calls unbalanced) and is counted in host.stats. No
    method lets
    a client make such a call, so this checks whatever the host's own flows produce (ideally nothing)."""
    p = peer(vhost)
    unbalanced_flow(p)
    p._feed()
    events = p.model.unbalanced
    assert p.stats()["unbalancedTransitions"] == len(events)
    for e in events:
        assert e["call"] in CALLS and e["state"] in STATES, e
        assert (e["state"], e["call"]) not in TABLE, f"a balanced call was reported unbalanced: {e}"
        # No hook ran: the container is still in the state that refused the call.
        info = p.info(e["container"])
        assert info["appearance"] == e["state"], (e, info)


def test_balanced_calls_run_the_table_hooks(vhost):
    p = manual_peer(vhost)
    c = p("container.create", {"class": "Container"})["container"]
    p.skip()
    info = p("container.beginAppearanceTransition", {"container": c, "appearing": True, "animated": True})
    assert info["appearance"] == "appearing"
    events = p.events()
    assert [e["params"]["event"] for e in events] == [*LOAD, "viewWillAppear", "viewIsAppearing"]
    assert events[-1]["params"]["animated"] is True
    assert p("container.endAppearanceTransition", {"container": c})["appearance"] == "appeared"
    assert p("container.beginAppearanceTransition", {"container": c, "appearing": False})["appearance"] == "disappearing"
    assert p("container.beginAppearanceTransition", {"container": c, "appearing": True})["appearance"] == "appearing"
    assert p("container.endAppearanceTransition", {"container": c})["appearance"] == "appeared"
    assert [e["params"]["event"] for e in p.events()] == ["viewDidAppear", "viewWillDisappear", "viewWillAppear",
                                                           "viewIsAppearing", "viewDidAppear"]
    assert p.stats()["unbalancedTransitions"] == 0
    # Released while appeared: it disappears with balanced calls, then deinit.
    p("container.release", {"container": c})
    assert [e["params"]["event"] for e in p.events()][:2] == ["viewWillDisappear", "viewDidDisappear"]
    assert p.stats()["unbalancedTransitions"] == 0


def test_unbalanced_calls_run_no_hook_and_are_emitted_and_counted(vhost):
    p = manual_peer(vhost)
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
    p = manual_peer(vhost)
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
    other = manual_peer(vhost)
    err = other.error("container.endAppearanceTransition", {"container": loose})
    assert err["code"] == -32002, err
    assert p.stats()["unbalancedTransitions"] == 0
    assert p("host.ping") == {"pong": True}


def test_no_unbalanced_transition_across_a_random_workout(vhost):
    """300 seeded random operations (push, move, pop, animated or not, hide, resize, release, showRendered,
    warm-ups, clock, purges, memory warnings). After each: zero unbalanced transitions, and every stack at
    rest is consistent — shown: the top appeared, the rest disappeared; hidden: nothing appeared."""
    s = session(vhost)
    rng = random.Random(20240607)
    for name in ("A", "B"):
        s("classes.define", {"name": name, "memoryBytes": 4096})
    s("pool.configure", {"class": "A", "depth": 2, "policy": "eager", "width": 375, "height": 667})
    stacks = [s("stack.create", {"width": 375, "height": 667})["stack"],
              s("stack.create", {"width": 320, "height": 568})["stack"]]
    mine: list[str] = []
    for step in range(300):
        op = rng.choice(["push", "push", "pop", "create", "show", "show", "hide", "resize", "release",
                         "advance", "drain", "purge", "warning", "configure"])
        st = rng.choice(stacks)
        animated = rng.random() < 0.5
        if op == "push" and mine:
            reply = s.conn.call("stack.push", {"stack": st, "container": rng.choice(mine), "animated": animated})
            assert "result" in reply or reply["error"]["code"] == -32003, reply
        elif op == "pop":
            reply = s.conn.call("stack.pop", {"stack": st, "animated": animated})
            assert "result" in reply or reply["error"]["code"] == -32003, reply
        elif op == "create":
            mine.append(s("container.create", {"class": rng.choice(["A", "B"])})["container"])
        elif op == "show":
            params = {"class": rng.choice(["A", "B"]), "animated": animated, "data": {"step": step}}
            if rng.random() < 0.8:
                params["stack"] = st
            mine.append(s("showRendered", params)["container"])
        elif op == "hide":
            s("stack.setHidden", {"stack": st, "hidden": rng.random() < 0.4})
        elif op == "resize":
            s("stack.resize", {"stack": st, "width": rng.choice([320, 375, 414]), "height": 667})
        elif op == "release" and mine:
            s("container.release", {"container": mine.pop(rng.randrange(len(mine)))})
        elif op == "advance":
            s("clock.advance", {"ms": rng.choice([100, 300, 5000])})
        elif op == "drain":
            s("tasks.drain")
        elif op == "purge":
            s("pool.purge", {"class": rng.choice(["A", "B"])} if rng.random() < 0.5 else {})
        elif op == "warning":
            s("host.memoryWarning")
        elif op == "configure" and mine:
            s("container.configure", {"container": rng.choice(mine), "data": step})
        assert s.stats()["unbalancedTransitions"] == 0, f"step {step}: {op}"
        for sid in stacks:
            info = s("stack.info", {"stack": sid})
            if info["animating"]:
                continue
            for cid in info["containers"]:
                state = s("container.info", {"container": cid})["appearance"]
                expected = "appeared" if cid == info["top"] and not info["hidden"] else "disappeared"
                assert state == expected, f"step {step} ({op}): {cid} in {info} is {state}"
    s.assert_balanced()
