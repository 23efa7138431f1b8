"""Modal presentations (`presentation.*`) against the independent UIKit model (uikitmodel.py, written from
Apple's documentation and public logs, not from the host's sources): fixed scenarios for each style, chains,
refusals and the sheet's swipe-down, then random sequences of presents, dismisses, swipes and clock advances on
which the host's events (lifecycle and presentation, with their `animated`, sizes and host-clock times) and its
errors must equal the model's, with zero unbalanced calls.
"""

from __future__ import annotations

import os
import random

import pytest

from grhost import EventCursor
from uikitmodel import STYLES, assert_balanced, from_wire
from uikitpair import H, W, Pair


@pytest.fixture
def pair(vhost) -> Pair:
    return Pair(vhost.connect())


def hooks(reply_events) -> list[str]:
    return [f"{e.container}:{e.hook}" for e in reply_events]


# -- each style ----------------------------------------------------------------------------------------------------


def test_full_screen_removes_the_presenter_and_ends_with_its_did_disappear(pair):
    s, a = pair.window()
    b = pair.container()
    pair.present(s, b, "fullScreen")
    pair.advance(300)
    events = pair.all_events
    assert hooks(events) == [f"{b}:loadView", f"{b}:viewDidLoad", f"{a}:viewWillDisappear", f"{b}:viewWillAppear",
                             f"{b}:viewIsAppearing", f"{b}:viewWillLayoutSubviews", f"{b}:viewDidLayoutSubviews",
                             f"{b}:viewDidAppear", f"{a}:viewDidDisappear"]
    pair.dismiss(b)
    pair.advance(300)
    assert hooks(pair.all_events[9:]) == [f"{b}:viewWillDisappear", f"{a}:viewWillAppear", f"{a}:viewIsAppearing",
                                          f"{a}:viewDidAppear", f"{b}:viewDidDisappear"]
    assert_balanced(pair.all_events, initial={a: "appeared"})


@pytest.mark.parametrize("style", ["pageSheet", "formSheet", "overFullScreen", "overCurrentContext", "custom"])
def test_styles_that_keep_the_presenter_give_it_nothing(pair, style):
    s, a = pair.window()
    b = pair.container()
    pair.present(s, b, style)
    pair.advance(300)
    pair.dismiss(b, animated=False)
    assert all(e.container == b for e in pair.all_events), [str(e) for e in pair.all_events]


def test_custom_that_removes_the_presenters_views_is_full_screen_for_the_calls(pair):
    s, a = pair.window()
    b = pair.container()
    pair.present(s, b, "custom", removes=True, animated=False)
    assert f"{a}:viewDidDisappear" in hooks(pair.all_events)
    e = pair.p.error("presentation.present", {"presenter": s, "container": pair.container(), "style": "fullScreen",
                                              "removesPresenterViews": True})
    assert e["code"] == -32602 and e["data"]["path"] == "removesPresenterViews"


def test_a_covered_stack_runs_only_containment_calls_and_its_new_top_appears_on_dismissal(vhost):
    p = EventCursor(vhost.connect()).subscribe(["lifecycle"])
    s = p("stack.create", {"width": W, "height": H})["stack"]
    a, b, c = (p("container.create", {"class": "Container"})["container"] for _ in range(3))
    p("stack.push", {"stack": s, "container": a})
    p("presentation.present", {"presenter": a, "container": b, "style": "fullScreen", "animated": False})
    p.skip()
    p("stack.push", {"stack": s, "container": c})
    assert [(e["params"]["container"], e["params"]["event"]) for e in p.events()] == [
        (c, "willMoveToParent"), (c, "didMoveToParent")]
    info = p("container.info", {"container": b})
    assert info["parent"] == {"kind": "presentation", "id": s}
    p("presentation.dismiss", {"container": b, "animated": False})
    got = [(e["params"]["container"], e["params"]["event"]) for e in p.events()]
    assert got[:2] == [(b, "viewWillDisappear"), (c, "loadView")], got
    assert (c, "viewDidAppear") in got and (b, "viewDidDisappear") == got[-1], got
    assert p("container.info", {"container": b})["parent"] is None


# -- chains and refusals -------------------------------------------------------------------------------------------


def test_dismissing_the_middle_of_a_chain_dismisses_what_it_presents_and_only_the_top_animates(pair):
    s, a = pair.window()
    b, c = pair.container(), pair.container()
    pair.present(s, b, "fullScreen", animated=False)
    pair.present(b, c, "overFullScreen", animated=False)
    mark = len(pair.all_events)
    reply = pair.dismiss(b)
    assert reply["result"]["containers"] == [b, c]
    pair.advance(300)
    got = [str(e) for e in pair.all_events[mark:]]
    assert got[0].endswith(f"{c}:viewWillDisappear animated=True") and got[1].endswith(f"{b}:viewWillDisappear animated=False"), got


def test_presenting_from_a_presenter_that_presents_is_refused_and_changes_nothing(pair):
    s, a = pair.window()
    b, c = pair.container(), pair.container()
    pair.present(s, b, "pageSheet")
    pair.advance(300)
    reply = pair.present(s, c)
    assert reply["error"]["data"]["reason"] == "alreadyPresenting"
    assert "already presenting" in reply["error"]["data"]["warning"]
    assert pair.p("container.info", {"container": c})["parent"] is None


def test_presenting_from_a_presentation_still_running_is_refused(pair):
    s, a = pair.window()
    b, c = pair.container(), pair.container()
    pair.present(s, b, "fullScreen")
    reply = pair.present(b, c)
    assert reply["error"]["data"]["reason"] == "presentationInProgress"


def test_presenting_from_off_screen_is_refused(pair, vhost):
    s, a = pair.window()
    b = pair.container()
    loose = pair.container()
    reply = pair.p.conn.call("presentation.present", {"presenter": loose, "container": b})
    assert reply["error"]["code"] == -32003 and reply["error"]["data"]["reason"] == "notInWindowHierarchy", reply
    pair.p("stack.setHidden", {"stack": s, "hidden": True})
    reply = pair.p.conn.call("presentation.present", {"presenter": s, "container": b})
    assert reply["error"]["data"]["reason"] == "notInWindowHierarchy", reply


def test_a_presented_container_cannot_be_released_pushed_or_presented_again(pair):
    s, a = pair.window()
    b = pair.container()
    pair.present(s, b, animated=False)
    for method, params in [("container.release", {"container": b}), ("stack.push", {"stack": s, "container": b}),
                           ("presentation.present", {"presenter": s, "container": b})]:
        e = pair.p.error(method, params)
        assert e["code"] == -32003, (method, e)


def test_bad_params_name_the_member(pair):
    s, a = pair.window()
    b = pair.container()
    for params, path in [({"presenter": s, "container": b, "style": "sideways"}, "style"),
                         ({"presenter": s}, "container"), ({"container": b}, "presenter"),
                         ({"presenter": s, "container": b, "animated": "yes"}, "animated")]:
        e = pair.p.error("presentation.present", params)
        assert e["code"] == -32602 and e["data"]["path"] == path, (params, e)
    e = pair.p.error("presentation.present", {"presenter": "s-99", "container": b})
    assert e["code"] == -32002 and e["data"]["path"] == "presenter", e
    e = pair.p.error("presentation.updateInteractiveDismiss", {"container": b, "progress": 2})
    assert e["code"] == -32602 and e["data"]["path"] == "progress", e


# -- the sheet's swipe-down ----------------------------------------------------------------------------------------


def test_a_finished_swipe_runs_the_delegate_order(pair):
    s, a = pair.window()
    b = pair.container()
    pair.present(s, b, "pageSheet", animated=False)
    mark = len(pair.all_events)
    pair.begin(b)
    pair.update(b, 0.25)
    reply = pair.finish(b)
    assert reply["result"]["remainingMs"] == 225 and reply["result"]["refused"] is False
    pair.advance(225)
    assert hooks(pair.all_events[mark:]) == [f"{b}:shouldDismiss", f"{b}:willDismiss", f"{b}:viewWillDisappear",
                                             f"{b}:viewDidDisappear", f"{b}:didDismiss"]


def test_a_cancelled_swipe_leaves_a_will_disappear_without_its_did(pair):
    s, a = pair.window()
    b = pair.container()
    pair.present(s, b, "formSheet", animated=False)
    mark = len(pair.all_events)
    pair.begin(b)
    pair.update(b, 0.5)
    pair.cancel(b)
    pair.advance(150)
    assert hooks(pair.all_events[mark:]) == [f"{b}:shouldDismiss", f"{b}:willDismiss", f"{b}:viewWillDisappear",
                                             f"{b}:viewWillAppear", f"{b}:viewIsAppearing", f"{b}:viewDidAppear"]


def test_modal_in_presentation_refuses_the_swipe(pair):
    s, a = pair.window()
    b = pair.container()
    pair.present(s, b, "pageSheet", animated=False, modal=True)
    mark = len(pair.all_events)
    pair.begin(b)
    reply = pair.finish(b)
    assert reply["result"]["refused"] is True
    assert hooks(pair.all_events[mark:]) == [f"{b}:didAttemptToDismiss"]


def test_a_delegate_that_says_no_refuses_the_swipe(pair):
    s, a = pair.window()
    b = pair.container()
    pair.present(s, b, "pageSheet", animated=False)
    mark = len(pair.all_events)
    pair.begin(b, should=False)
    pair.cancel(b)
    assert hooks(pair.all_events[mark:]) == [f"{b}:shouldDismiss", f"{b}:didAttemptToDismiss"]


def test_only_a_sheet_can_be_swiped(pair):
    s, a = pair.window()
    b = pair.container()
    pair.present(s, b, "fullScreen", animated=False)
    assert pair.begin(b)["error"]["code"] == -32003


# -- teardown ------------------------------------------------------------------------------------------------------


def test_destroying_the_stack_dismisses_its_chain_balanced(vhost):
    p = EventCursor(vhost.connect()).subscribe(["lifecycle"])
    s = p("stack.create", {"width": W, "height": H})["stack"]
    a, b, c = (p("container.create", {"class": "Container"})["container"] for _ in range(3))
    p("stack.push", {"stack": s, "container": a})
    p("presentation.present", {"presenter": s, "container": b, "style": "fullScreen", "animated": True})
    p("clock.advance", {"ms": 300})
    p("presentation.present", {"presenter": b, "container": c, "style": "pageSheet", "animated": True})
    p("stack.destroy", {"stack": s})
    p("container.release", {"container": b})
    p("container.release", {"container": c})
    events = [from_wire("lifecycle", e["params"]) for e in p.events() if e["method"] == "lifecycle"]
    assert_balanced(events)
    assert p("host.stats")["unbalancedTransitions"] == 0


def test_closing_the_connection_tears_a_presented_chain_down_balanced(vhost):
    watcher = EventCursor(vhost.connect()).subscribe(["lifecycle"], scope="all")
    conn = vhost.connect()
    p = EventCursor(conn)
    s = p("stack.create", {"width": W, "height": H})["stack"]
    a, b, c = (p("container.create", {"class": "Container"})["container"] for _ in range(3))
    p("stack.push", {"stack": s, "container": a})
    p("presentation.present", {"presenter": s, "container": b, "style": "fullScreen", "animated": False})
    p("presentation.present", {"presenter": b, "container": c, "style": "pageSheet", "animated": True})
    conn.close()
    vhost.wait_stats(lambda stats: stats["containers"]["total"] == 0, conn=watcher.conn)
    events = [from_wire("lifecycle", e["params"]) for e in watcher.events() if e["method"] == "lifecycle"]
    assert_balanced(events)
    assert {e.container for e in events if e.hook == "deinit"} == {a, b, c}


def test_a_presented_container_whose_hook_fails_is_dismissed_and_its_presenter_comes_back(vhost):
    p = EventCursor(vhost.connect()).subscribe(["lifecycle"])
    p("classes.define", {"name": "Fails", "hooks": {"viewWillAppear": {"fail": True}}})
    s = p("stack.create", {"width": W, "height": H})["stack"]
    a = p("container.create", {"class": "Container"})["container"]
    b = p("container.create", {"class": "Fails"})["container"]
    p("stack.push", {"stack": s, "container": a})
    p.skip()
    e = p.error("presentation.present", {"presenter": s, "container": b, "style": "fullScreen"})
    assert e["code"] == -32004 and e["data"]["container"] == b
    got = [(x["params"]["container"], x["params"]["event"]) for x in p.events()]
    assert got[-2:] == [(a, "viewWillAppear"), (a, "viewIsAppearing")] or (a, "viewDidAppear") in got, got
    assert p("container.info", {"container": a})["appearance"] == "appeared"
    assert p("stack.info", {"stack": s})["top"] == a
    p("presentation.present", {"presenter": s, "container": p("container.create", {"class": "Container"})["container"],
                               "style": "fullScreen", "animated": False})


# -- size transitions --------------------------------------------------------------------------------------------


def test_a_resize_tells_the_top_and_the_presented_chain_before_their_layouts(pair):
    s, a = pair.window()
    b, c = pair.container(), pair.container()
    pair.present(s, b, "fullScreen", animated=False)
    pair.present(b, c, "formSheet", animated=False)
    mark = len(pair.all_events)
    pair.resize(s, H, W)
    got = [str(e).split(" ", 1)[1] for e in pair.all_events[mark:]]
    assert got == [f"{a}:viewWillTransitionToSize size=({H}, {W})", f"{b}:viewWillTransitionToSize size=({H}, {W})",
                   f"{c}:viewWillTransitionToSize size=({H}, {W})",
                   f"{b}:viewWillLayoutSubviews size=({H}, {W})", f"{b}:viewDidLayoutSubviews size=({H}, {W})",
                   f"{c}:viewWillLayoutSubviews size=({H}, {W})", f"{c}:viewDidLayoutSubviews size=({H}, {W})"], got
    # The covered presenters lay out when they come back.
    pair.dismiss(b, animated=False)
    assert f"{a}:viewWillLayoutSubviews" in hooks(pair.all_events[mark:])


def test_a_hidden_stack_changes_size_silently(vhost):
    p = EventCursor(vhost.connect()).subscribe(["lifecycle"])
    s = p("stack.create", {"width": W, "height": H})["stack"]
    a = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": s, "container": a})
    p("stack.setHidden", {"stack": s, "hidden": True})
    p.skip()
    p("stack.resize", {"stack": s, "width": H, "height": W})
    assert p.events() == []
    p("stack.setHidden", {"stack": s, "hidden": False})
    assert "viewWillTransitionToSize" not in [e["params"]["event"] for e in p.events()]


def test_a_live_swipe_refuses_the_resize(pair):
    s, a = pair.window()
    b = pair.container()
    pair.present(s, b, "pageSheet", animated=False)
    pair.begin(b)
    assert pair.resize(s, H, W)["error"]["code"] == -32003


# -- random sequences against the model ------------------------------------------------------------------------


def random_run(pair: Pair, rng: random.Random, steps: int) -> None:
    s, root = pair.window()
    free = [pair.container() for _ in range(4)]
    for _ in range(steps):
        presented = [c for c in pair.m.nodes if pair.m.nodes[c].pres is not None]
        op = rng.random()
        if op < 0.3 and free:
            presenter = rng.choice([s, root] + presented)
            x = rng.choice(free)
            style = rng.choice(STYLES)
            removes = rng.choice([None, True, False]) if style == "custom" else None
            reply = pair.present(presenter, x, style, rng.random() < 0.7, rng.choice([None, 0, 120, 300]),
                                 rng.random() < 0.2, removes)
            if "result" in reply:
                free.remove(x)
        elif op < 0.45 and presented:
            pair.dismiss(rng.choice(presented), rng.random() < 0.7, rng.choice([None, 0, 200]))
        elif op < 0.55 and presented:
            pair.begin(rng.choice(presented), rng.random() < 0.85)
        elif op < 0.62 and pair.m.sheet_gestures:
            pair.update(rng.choice(sorted(pair.m.sheet_gestures)), rng.choice([0, 0.3, 0.5, 1]))
        elif op < 0.72 and pair.m.sheet_gestures:
            x = rng.choice(sorted(pair.m.sheet_gestures))
            (pair.finish if rng.random() < 0.5 else pair.cancel)(x, rng.choice([None, 0, 400]))
        elif op < 0.8:
            pair.advance(rng.choice([0, 50, 150, 300, 1000]))
        elif op < 0.9:
            pair.resize(s, *rng.choice([(W, H), (H, W), (W, H / 2)]))
        else:
            free += [c for c in list(pair.m.nodes) if c not in free and pair.m.nodes[c].pres is None
                     and pair.m.nodes[c].window is None and pair.m.nodes[c].appearance == "disappeared"
                     and c in free]
        for c in list(pair.m.nodes):
            n = pair.m.nodes[c]
            if c != root and n.pres is None and n.appearance == "disappeared" and c not in free \
                    and not any(p.keys & {c} for p in pair.m.pending):
                free.append(c)
    for x in sorted(pair.m.sheet_gestures):
        pair.finish(x)
    pair.advance(5000)
    assert_balanced(pair.all_events, initial={root: "appeared"})
    assert pair.p("host.stats")["unbalancedTransitions"] == 0


@pytest.mark.parametrize("seed", range(int(os.environ.get("GREENROOM_MODEL_SEEDS", 40))))
def test_random_sequences_match_the_model(vhost, seed):
    random_run(Pair(vhost.connect()), random.Random(seed), 80)


def test_random_sequences_match_the_model_on_uikit_16(start_host):
    host = start_host("--clock", "virtual", "--uikit", "16")
    for seed in range(3):
        random_run(Pair(host.connect(), uikit=16), random.Random(100 + seed), 40)


# -- showRendered presents what it hands over ----------------------------------------------------------------------


def test_show_rendered_presents_a_warm_container_with_no_second_load(vhost):
    p = EventCursor(vhost.connect()).subscribe(["lifecycle", "pool"])
    s = p("stack.create", {"width": W, "height": H})["stack"]
    a = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": s, "container": a})
    p("pool.configure", {"class": "Container", "width": W, "height": H, "depth": 1, "policy": "eager"})
    p("tasks.drain")
    p.skip()
    shown = p("showRendered", {"class": "Container", "present": {"presenter": s, "style": "fullScreen"}})
    assert shown["warm"] is True and shown["presentation"]["style"] == "fullScreen"
    x = shown["container"]
    mine = [(e["params"]["container"], e["params"]["event"]) for e in p.events() if e["method"] == "lifecycle"
            and not e["params"]["offscreen"]]
    assert (x, "loadView") not in mine, mine
    assert mine[-3:] == [(x, "viewIsAppearing"), (x, "viewDidAppear"), (a, "viewDidDisappear")], mine
    assert p("container.info", {"container": x})["parent"] == {"kind": "presentation", "id": s}


def test_a_refused_show_rendered_presentation_takes_nothing_from_the_pool(vhost):
    p = EventCursor(vhost.connect())
    s = p("stack.create", {"width": W, "height": H, "hidden": True})["stack"]
    p("stack.push", {"stack": s, "container": p("container.create", {"class": "Container"})["container"]})
    p("pool.configure", {"class": "Container", "width": W, "height": H, "depth": 1, "policy": "eager"})
    p("tasks.drain")
    e = p.error("showRendered", {"class": "Container", "present": {"presenter": s}})
    assert e["code"] == -32003 and e["data"]["reason"] == "notInWindowHierarchy", e
    assert p("pool.status", {"class": "Container"})["pools"][0]["idle"] == 1


def test_show_rendered_present_checks_its_members(vhost):
    p = EventCursor(vhost.connect())
    s = p("stack.create", {"width": W, "height": H})["stack"]
    for present, path in [({"presenter": s, "style": "sideways"}, "present.style"), ({}, "present.presenter"),
                          ({"presenter": s, "colour": 1}, "present.colour"), ("later", "present"),
                          ({"presenter": s, "removesPresenterViews": True}, "present.removesPresenterViews")]:
        e = p.error("showRendered", {"class": "Container", "present": present})
        assert e["code"] == -32602 and e["data"]["path"] == path, (present, e)
    e = p.error("showRendered", {"class": "Container", "stack": s, "present": {"presenter": s}})
    assert e["code"] == -32602 and e["data"]["path"] == "present"


def test_replies_and_presentation_events_validate_against_the_schema(vhost):
    """Real replies of presentation.* and tabs.*, and real `presentation` events, against rpc-schema/openrpc.json."""
    import jsonschema
    from lifecyclemodel import DOC_URI, REGISTRY

    def check(schema_name: str, value) -> None:
        jsonschema.Draft7Validator({"$ref": f"{DOC_URI}#/components/schemas/{schema_name}"},
                                   registry=REGISTRY).validate(value)

    p = EventCursor(vhost.connect()).subscribe(["presentation"])
    s = p("stack.create", {"width": W, "height": H})["stack"]
    a, b = (p("container.create", {"class": "Container"})["container"] for _ in range(2))
    p("stack.push", {"stack": s, "container": a})
    check("PresentationInfo", p("presentation.present", {"presenter": s, "container": b})["presentation"])
    p("clock.advance", {"ms": 300})
    check("PresentationInfo", p("presentation.beginInteractiveDismiss", {"container": b}))
    check("PresentationInfo", p("presentation.finishInteractiveDismiss", {"container": b})["presentation"])
    p("clock.advance", {"ms": 300})
    kinds = [e["params"]["kind"] for e in p.events() if e["method"] == "presentation"]
    assert kinds == ["shouldDismiss", "willDismiss", "didDismiss"], kinds
    for e in p.conn.events:
        if e["method"] == "presentation":
            check("PresentationEvent", e["params"])
    c = p("container.create", {"class": "Container"})["container"]
    check("TabsInfo", p("tabs.create", {"width": W, "height": H, "containers": [b, c]}))
