"""Pages that change (docs/pages.md): `page.insertPages`, `page.removePages` and `page.reloadPage`, as a
UIPageViewController's data source or a ViewPager2 adapter changes. The current page keeps its container and
stays current by identity; removing it moves to a neighbour with the calls a non-animated `page.show` makes;
changes wait for rest (-32003 mid-drag)."""

from __future__ import annotations

from lifecyclemodel import SHORT, W, drag, page_peer, page_session


def children(p, s) -> dict[int, str]:
    return {c["index"]: c["container"] for c in p.page(s)["children"]}


def test_inserting_before_the_current_page_keeps_its_container_current(vhost):
    p = page_peer(vhost)
    s = page_session(p, count=3, initialIndex=1, data=[{"n": 0}, {"n": 1}, {"n": 2}])
    current = children(p, s)[1]
    p.skip()
    info = p("page.insertPages", {"session": s, "at": 0, "pages": [{"class": "Container", "data": {"n": "a"}},
                                                                    {"class": "Container", "data": {"n": "b"}}]})
    assert (info["index"], info["count"], info["offset"]) == (3, 5, 3 * W), info
    assert children(p, s) == {3: current}
    assert [e for e in p.events() if e["method"] == "lifecycle"] == [], "no hook runs"
    # The new pages are real pages with their own data: showing one makes it with that data.
    p("page.show", {"session": s, "index": 1, "animated": False})
    inits = [e["params"] for e in p.events() if e["method"] == "lifecycle" and e["params"]["event"] == "init"]
    assert [i["page"]["index"] for i in inits] == [1]
    assert p("container.info", {"container": inits[0]["container"]})["class"] == "Container"
    p.assert_balanced()


def test_inserting_after_the_current_page_or_appending_moves_nothing(vhost):
    p = page_peer(vhost)
    s = page_session(p, count=3, initialIndex=1)
    info = p("page.insertPages", {"session": s, "at": 3, "class": "Container", "count": 2})
    assert (info["index"], info["count"]) == (1, 5)
    info = p("page.insertPages", {"session": s, "at": 2, "class": "Container", "data": [{"x": 1}]})
    assert (info["index"], info["count"]) == (1, 6)


def test_removing_the_current_page_shows_the_next_one_first_then_releases_it(vhost):
    p = page_peer(vhost)
    s = page_session(p, count=4, initialIndex=1)
    old = children(p, s)[1]
    p.skip()
    info = p("page.removePages", {"session": s, "at": 1})
    assert (info["index"], info["count"]) == (1, 3), "the next page slid into the removed one's place"
    new = children(p, s)[1]
    assert new != old
    events = p.events()
    page_events = [(e["params"]["kind"], e["params"]["from"], e["params"]["to"]) for e in events if e["method"] == "page"]
    assert page_events == [("willTransition", 1, 2), ("didTransition", 1, 2)], page_events
    calls = [f"{e['params']['container']} {e['params']['event']}" for e in events if e["method"] == "lifecycle"
             and e["params"]["event"] in SHORT]
    # A show that is not animated, in UIPageViewController's order (docs/pages.md): Will Appear new, Will
    # Disappear old, Did Appear new, Did Disappear old; then the old page goes.
    assert calls == [f"{new} viewWillAppear", f"{old} viewWillDisappear", f"{new} viewDidAppear",
                     f"{old} viewDidDisappear"], calls
    gone = [e["params"]["event"] for e in events if e["method"] == "lifecycle" and e["params"]["container"] == old]
    assert gone[-3:] == ["willMoveToParent", "didMoveToParent", "deinit"], gone
    p.assert_balanced()


def test_removing_the_last_pages_with_the_current_one_falls_back_to_the_one_before(vhost):
    p = page_peer(vhost)
    s = page_session(p, count=5, initialIndex=4)
    info = p("page.removePages", {"session": s, "at": 3, "count": 2})
    assert (info["index"], info["count"]) == (2, 3), info
    assert list(children(p, s)) == [2] or 2 in children(p, s)
    p.assert_balanced()


def test_removing_pages_before_the_current_one_moves_it_down_with_its_container(vhost):
    p = page_peer(vhost)
    s = page_session(p, count=6, initialIndex=4, cache={"limit": 6})
    for i in (3, 4):
        p("page.show", {"session": s, "index": i, "animated": False})
    before = children(p, s)
    p.skip()
    info = p("page.removePages", {"session": s, "at": 0, "count": 2})
    assert (info["index"], info["count"], info["offset"]) == (2, 4, 2 * W), info
    assert children(p, s)[2] == before[4] and children(p, s).get(1) == before.get(3)
    assert not [e for e in p.events() if e["method"] == "page"], "no transition"
    p.assert_balanced()


def test_reloading_a_page_rebinds_its_child_and_caches_the_data(vhost):
    p = page_peer(vhost)
    p("classes.define", {"name": "Echo", "hooks": {"configure": {"output": {"bound": True}}}})
    s = page_session(p, **{"class": "Echo"}, count=3, initialIndex=1)
    child = children(p, s)[1]
    p.skip()
    reply = p("page.reloadPage", {"session": s, "index": 1, "data": {"v": 2}})
    assert reply == {"session": s, "index": 1, "container": child, "output": {"bound": True}}, reply
    assert [e["params"]["event"] for e in p.events() if e["method"] == "lifecycle"] == ["configure"]
    # A page without a child gets the data when it is made.
    assert p("page.reloadPage", {"session": s, "index": 2, "data": {"v": 3}})["container"] is None
    p("page.show", {"session": s, "index": 2, "animated": False})
    p.assert_balanced()


def test_a_reload_whose_configure_fails_tears_that_child_down(vhost):
    p = page_peer(vhost)
    p("classes.define", {"name": "Brittle", "hooks": {"configure": {"fail": True}}})
    s = page_session(p, **{"class": "Brittle"}, count=3, initialIndex=1)
    err = p.error("page.reloadPage", {"session": s, "index": 1, "data": {}})
    assert err["code"] == -32004 and err["data"]["hook"] == "configure", err
    assert children(p, s) == {}
    p.assert_balanced()


def test_changes_wait_for_rest_and_bad_ranges_are_refused(vhost):
    p = page_peer(vhost)
    s = page_session(p, count=3, initialIndex=1)
    drag(p, s, [W, W + 10])
    for method, params in [("page.insertPages", {"at": 0, "class": "Container", "count": 1}),
                           ("page.removePages", {"at": 0}), ("page.reloadPage", {"index": 0, "data": 1})]:
        err = p.error(method, {"session": s, **params})
        assert err["code"] == -32003 and err["data"]["phase"] == "dragging", (method, err)
    s2 = page_session(p, count=3, initialIndex=0)
    for method, params, path in [
        ("page.insertPages", {"at": 4, "class": "Container", "count": 1}, "at"),
        ("page.insertPages", {"at": 0}, "class"),
        ("page.insertPages", {"at": 0, "class": "Container", "pages": [{"class": "Container"}]}, "class"),
        ("page.removePages", {"at": 3}, "at"),
        ("page.removePages", {"at": 1, "count": 3}, "count"),
        ("page.removePages", {"at": 0, "count": 3}, "count"),
        ("page.reloadPage", {"index": 3, "data": 1}, "index"),
        ("page.reloadPage", {"index": 0}, "data"),
    ]:
        err = p.error(method, {"session": s2, **params})
        assert err["code"] == -32602 and err["data"]["path"] == path, (method, params, err)
    assert p.error("page.insertPages", {"session": s2, "at": 0, "class": "Nope", "count": 1})["code"] == -32001
    assert p.page(s2)["count"] == 3
