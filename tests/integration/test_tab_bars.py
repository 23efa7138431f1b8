"""Tab bars (`tabs.*`) against the independent UIKit model (uikitmodel.py): only the selected tab loads at
first, a switch runs the new tab's viewWillAppear before the old tab's viewWillDisappear, reselecting runs
nothing, setContainers follows Apple's reselection rule with containment calls, a covered or hidden tab bar
switches silently; then random sequences of selects, setContainers, presentations over the tab bar and clock
advances, equal to the model's with zero unbalanced calls.
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


def hooks(events) -> list[str]:
    return [f"{e.container}:{e.hook}" for e in events]


def test_only_the_selected_tab_loads_at_first(pair):
    t, (a, b, c) = pair.tabs(3, selected=1)
    got = hooks(pair.all_events)
    assert got[:6] == [f"{a}:willMoveToParent", f"{a}:didMoveToParent", f"{b}:willMoveToParent",
                       f"{b}:didMoveToParent", f"{c}:willMoveToParent", f"{c}:didMoveToParent"]
    assert got[6:] == [f"{b}:loadView", f"{b}:viewDidLoad", f"{b}:viewWillAppear", f"{b}:viewIsAppearing",
                       f"{b}:viewWillLayoutSubviews", f"{b}:viewDidLayoutSubviews", f"{b}:viewDidAppear"]
    info = pair.p("tabs.info", {"tabs": t})
    assert info["selectedContainer"] == b and info["containers"] == [a, b, c]
    assert pair.p("container.info", {"container": a})["parent"] == {"kind": "tabs", "id": t}
    assert pair.p("container.info", {"container": a})["viewLoaded"] is False


def test_a_switch_runs_the_new_tabs_will_appear_before_the_old_tabs_will_disappear(pair):
    t, (a, b) = pair.tabs(2)
    mark = len(pair.all_events)
    pair.select(t, 1)
    assert hooks(pair.all_events[mark:]) == [
        f"{b}:loadView", f"{b}:viewDidLoad", f"{b}:viewWillAppear", f"{b}:viewIsAppearing",
        f"{b}:viewWillLayoutSubviews", f"{b}:viewDidLayoutSubviews", f"{a}:viewWillDisappear",
        f"{a}:viewDidDisappear", f"{b}:viewDidAppear"]
    assert all(e.get("animated") in (None, False) for e in pair.all_events[mark:])
    mark = len(pair.all_events)
    pair.select(t, 1)
    assert pair.all_events[mark:] == []


def test_set_containers_keeps_the_selected_child_and_moves_the_others(pair):
    t, (a, b, c) = pair.tabs(3, selected=1)
    d = pair.container()
    mark = len(pair.all_events)
    pair.set_tabs(t, [d, b])
    assert hooks(pair.all_events[mark:]) == [f"{a}:willMoveToParent", f"{c}:willMoveToParent",
                                             f"{d}:willMoveToParent", f"{a}:didMoveToParent",
                                             f"{c}:didMoveToParent", f"{d}:didMoveToParent"]
    assert pair.p("tabs.info", {"tabs": t})["selected"] == 1
    mark = len(pair.all_events)
    pair.set_tabs(t, [a, c])  # b leaves: index 1 is kept, c shows
    got = hooks(pair.all_events[mark:])
    assert got.index(f"{c}:viewWillAppear") < got.index(f"{b}:viewWillDisappear"), got
    assert pair.p("container.info", {"container": b})["parent"] is None


def test_a_covered_tab_bar_switches_silently_and_shows_its_new_tab_on_dismissal(pair):
    t, (a, b) = pair.tabs(2)
    x = pair.container()
    pair.present(t, x, "fullScreen", animated=False)
    mark = len(pair.all_events)
    pair.select(t, 1)
    assert pair.all_events[mark:] == []
    pair.dismiss(x, animated=False)
    got = hooks(pair.all_events[mark:])
    assert f"{b}:viewDidAppear" in got and f"{a}:viewWillAppear" not in got, got
    assert pair.p("tabs.info", {"tabs": t})["covered"] is False


def test_a_resize_tells_only_the_selected_tab(pair):
    t, (a, b) = pair.tabs(2)
    mark = len(pair.all_events)
    pair.resize(t, H, W, method="tabs.resize")
    assert hooks(pair.all_events[mark:]) == [f"{a}:viewWillTransitionToSize", f"{a}:viewWillLayoutSubviews",
                                             f"{a}:viewDidLayoutSubviews"]
    mark = len(pair.all_events)
    pair.select(t, 1)
    assert [e.get("size") for e in pair.all_events[mark:] if e.hook == "viewWillLayoutSubviews"] == [(H, W)]


def test_bad_input_names_the_member(pair):
    a, b = pair.container(), pair.container()
    for params, path in [({"width": W, "height": H, "containers": [a, a]}, "containers[1]"),
                         ({"width": W, "height": H, "containers": [a], "selected": 1}, "selected"),
                         ({"width": 0, "height": H, "containers": []}, "width")]:
        e = pair.p.error("tabs.create", params)
        assert e["code"] == -32602 and e["data"]["path"] == path, (params, e)
    t = pair.p("tabs.create", {"width": W, "height": H, "containers": [a]})["tabs"]
    e = pair.p.error("tabs.select", {"tabs": t, "index": 3})
    assert e["code"] == -32602 and e["data"]["path"] == "index"
    e = pair.p.error("tabs.create", {"width": W, "height": H, "containers": [a]})
    assert e["code"] == -32003 and e["data"]["path"] == "containers[0]"
    e = pair.p.error("tabs.info", {"tabs": "t-99"})
    assert e["code"] == -32002


def test_destroy_and_close_tear_the_tabs_down_balanced(vhost):
    watcher = EventCursor(vhost.connect()).subscribe(["lifecycle"], scope="all")
    conn = vhost.connect()
    p = EventCursor(conn)
    cs = [p("container.create", {"class": "Container"})["container"] for _ in range(4)]
    t = p("tabs.create", {"width": W, "height": H, "containers": cs[:2]})["tabs"]
    t2 = p("tabs.create", {"width": W, "height": H, "containers": cs[2:], "selected": 1})["tabs"]
    p("presentation.present", {"presenter": t2, "container": p("container.create", {"class": "Container"})["container"],
                               "style": "fullScreen", "animated": True})
    assert p("tabs.destroy", {"tabs": t})["released"] == cs[:2]
    conn.close()
    vhost.wait_stats(lambda stats: stats["containers"]["total"] == 0, conn=watcher.conn)
    events = [from_wire("lifecycle", e["params"]) for e in watcher.events() if e["method"] == "lifecycle"]
    assert_balanced(events)
    assert watcher("host.stats")["unbalancedTransitions"] == 0


def test_a_selected_tab_whose_hook_fails_leaves_and_the_next_one_shows(vhost):
    p = EventCursor(vhost.connect()).subscribe(["lifecycle"])
    p("classes.define", {"name": "Fails", "hooks": {"viewWillAppear": {"fail": True}}})
    a = p("container.create", {"class": "Container"})["container"]
    b = p("container.create", {"class": "Fails"})["container"]
    t = p("tabs.create", {"width": W, "height": H, "containers": [a, b]})["tabs"]
    e = p.error("tabs.select", {"tabs": t, "index": 1})
    assert e["code"] == -32004 and e["data"]["container"] == b
    assert e["data"]["result"]["selectedContainer"] == a
    info = p("tabs.info", {"tabs": t})
    assert info["containers"] == [a] and info["selectedContainer"] == a
    assert p("container.info", {"container": a})["appearance"] == "appeared"


def random_run(pair: Pair, rng: random.Random, steps: int) -> None:
    t, children = pair.tabs(3, selected=rng.randrange(3))
    spare = [pair.container() for _ in range(3)]
    outside = [pair.container() for _ in range(3)]
    for _ in range(steps):
        presented = [c for c in pair.m.nodes if getattr(pair.m.nodes[c], "pres", None) is not None]
        op = rng.random()
        tabs_now = list(pair.m.nodes[t].children)
        if op < 0.3:
            pair.select(t, rng.randrange(len(tabs_now) + 1) if tabs_now else 0)
        elif op < 0.5:
            pool = tabs_now + [c for c in spare if pair.m.nodes[c].parent is None
                               and pair.m.nodes[c].appearance == "disappeared" and pair.m.nodes[c].pres is None]
            new = rng.sample(pool, rng.randrange(0, min(4, len(pool)) + 1))
            sel = rng.choice([None, None, 0, len(new) - 1]) if new else None
            pair.set_tabs(t, new, sel)
        elif op < 0.7 and outside:
            free = [c for c in outside if pair.m.nodes[c].pres is None and pair.m.nodes[c].appearance == "disappeared"
                    and not any(q.keys & {c} for q in pair.m.pending)]
            if free:
                presenter = rng.choice([t] + presented)
                pair.present(presenter, rng.choice(free), rng.choice(STYLES), rng.random() < 0.5,
                             rng.choice([None, 0, 200]))
        elif op < 0.8 and presented:
            pair.dismiss(rng.choice(presented), rng.random() < 0.5)
        elif op < 0.9:
            pair.resize(t, *rng.choice([(W, H), (H, W)]), method="tabs.resize")
        else:
            pair.advance(rng.choice([0, 100, 300]))
    pair.advance(5000)
    assert_balanced(pair.all_events)
    assert pair.p("host.stats")["unbalancedTransitions"] == 0


@pytest.mark.parametrize("seed", range(int(os.environ.get("GREENROOM_MODEL_SEEDS", 30))))
def test_random_sequences_match_the_model(vhost, seed):
    random_run(Pair(vhost.connect()), random.Random(seed), 60)
