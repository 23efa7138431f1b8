"""Rows as containers (docs/ranges.md, "Cells"): `range.create {cells}` gives each item in the display range a
container of its section's `reuseIdentifier` class, from the class's reuse queue, a template of the prerender
pool at the row's size, or new; configured with the item's data unless it already shows that item at that data
version (MDTable's isDirty); appearing while visible; back in its queue when it leaves the display range."""

from __future__ import annotations

import pytest
from grhost import EventCursor
from lifecyclemodel import AppearanceChecker

VP = {"width": 375, "height": 667}


class Cells(EventCursor):
    """A connection subscribed to range and lifecycle events, every appearance call checked."""

    def __init__(self, conn):
        super().__init__(conn)
        self.checker = AppearanceChecker()

    def received(self) -> None:
        for e in self.conn.events[self.mark:]:
            if e["method"] == "lifecycle":
                self.checker.feed(e["params"])

    def cells(self) -> list[dict]:
        return [e["params"]["cells"] for e in self.events() if e["method"] == "range" and "cells" in e["params"]]

    def state(self, s: str) -> dict:
        return self("range.state", {"session": s})


def peer(host) -> Cells:
    return Cells(host.connect()).subscribe(["range", "lifecycle", "pool"])


def feed(p: Cells, count=200, length=100, data=True, **extra) -> str:
    defined = p.conn.call("classes.define", {"name": "Row", "hooks": {"configure": {"output": {"ok": True}}}})
    assert "result" in defined or defined["error"]["code"] == -32003, defined  # another test connection's
    params = {"viewport": VP, "sections": [{"count": count, "itemLength": length, "reuseIdentifier": "Row"}],
              "cells": {"reuseLimit": 4}, **extra}
    if data:
        params["data"] = [{"row": i} for i in range(count)]
    return p("range.create", params)["session"]


def scroll(p: Cells, s: str, offsets: list[float]) -> None:
    p("range.willBeginDragging", {"session": s})
    for x in offsets:
        p("range.didScroll", {"session": s, "offset": x})
    p("range.willEndDragging", {"session": s, "velocity": 0})
    p("range.didEndDecelerating", {"session": s})


def test_the_display_range_is_bound_to_new_cells_and_the_visible_ones_appear(vhost):
    p = peer(vhost)
    s = feed(p)
    [change] = p.cells()
    st = p.state(s)
    bound = {tuple(b["path"]): b for b in change["bound"]}
    assert sorted(bound) == sorted(tuple(x) for x in st["display"]) == sorted(tuple(b["path"]) for b in st["cells"]["bound"])
    assert all(b["source"] == "new" and b["reused"] is False and b["configured"] for b in bound.values())
    for path in map(tuple, st["display"]):
        info = p("container.info", {"container": bound[path]["container"]})
        assert info["viewLoaded"] and info["size"] == {"width": 375, "height": 100}, info
        assert info["parent"] == {"kind": "cell", "id": s}, info
        visible = [tuple(v) for v in st["visible"]]
        assert info["appearance"] == ("appeared" if path in visible else "disappeared"), (path, info)
    assert st["cells"]["made"] == len(bound) and st["cells"]["configured"] == len(bound)
    assert p.stats()["unbalancedTransitions"] == 0


def test_scrolling_parks_what_leaves_and_reuses_it_for_what_enters(vhost):
    p = peer(vhost)
    s = feed(p)
    made_at_start = p.state(s)["cells"]["made"]
    p.skip()
    scroll(p, s, [100 * i for i in range(1, 60)])
    st = p.state(s)["cells"]
    changes = p.cells()
    sources = [b["source"] for c in changes for b in c["bound"]]
    assert "queue" in sources, sources
    # Every cell made is bound, parked (at most the limit) or released: none is lost, none piles up.
    assert sum(st["parked"].values()) <= 4
    assert st["made"] == len(st["bound"]) + sum(st["parked"].values()) + st["released"], st
    assert st["made"] > made_at_start and st["reused"] > 0, st
    total = p.stats()["containers"]["total"]
    assert total == len(st["bound"]) + sum(st["parked"].values()), (total, st)
    assert p.stats()["unbalancedTransitions"] == 0


def test_a_cell_that_shows_its_item_again_at_the_same_version_skips_configure(vhost):
    """MDTable's isDirty, on its heterogeneous feed: the banner's cell waits in the banner queue while rows of
    another class scroll by, and the banner gets it back unconfigured (same item, same data version); after its
    data changed, it is configured."""
    p = peer(vhost)
    for name in ("Banner", "Row"):
        p("classes.define", {"name": name, "hooks": {"configure": {"output": {"ok": True}}}})
    s = p("range.create", {"viewport": VP, "cells": {},
                           "sections": [{"count": 1, "itemLength": 300, "reuseIdentifier": "Banner"},
                                        {"count": 60, "itemLength": 300, "reuseIdentifier": "Row"}],
                           "data": [{"i": i} for i in range(61)]})["session"]
    banner = {tuple(b["path"]): b["container"] for b in p.state(s)["cells"]["bound"]}[(0, 0)]
    p.skip()
    far = 300 * 30
    scroll(p, s, [far])
    left = [u for c in p.cells() for u in c["unbound"] if u["path"] == [0, 0]]
    assert left == [{"path": [0, 0], "container": banner, "queued": True}], left
    scroll(p, s, [0])
    back = [b for c in p.cells() for b in c["bound"] if b["path"] == [0, 0]]
    assert back == [{"path": [0, 0], "container": banner, "source": "queue", "reused": True, "configured": False}], back
    assert p.state(s)["cells"]["skipped"] == 1
    # Data changed while the banner was away: coming back it is configured.
    scroll(p, s, [far])
    p("range.setItemData", {"session": s, "items": [{"path": [0, 0], "data": {"i": 0, "new": True}}]})
    p.skip()
    scroll(p, s, [0])
    again = [b for c in p.cells() for b in c["bound"] if b["path"] == [0, 0]]
    assert again == [{"path": [0, 0], "container": banner, "source": "queue", "reused": True, "configured": True}], again


def test_set_item_data_rebinds_a_bound_cell_and_a_same_version_changes_nothing(vhost):
    p = peer(vhost)
    s = feed(p, data=False)
    st = p.state(s)
    first = st["cells"]["bound"][0]
    assert st["cells"]["configured"] == 0, "no data, no configure"
    reply = p("range.setItemData", {"session": s, "items": [{"path": first["path"], "data": {"title": "a"}, "version": 3}]})
    assert reply["rebound"] == [{"path": first["path"], "container": first["container"], "output": {"ok": True}}], reply
    again = p("range.setItemData", {"session": s, "items": [{"path": first["path"], "data": {"title": "a"}, "version": 3}]})
    assert again["rebound"] == [], "the cell shows that item at that version already"
    dirty = p("range.setItemData", {"session": s, "items": [{"path": first["path"], "data": {"title": "b"}}]})
    assert len(dirty["rebound"]) == 1, "no version: the row is dirty"


def test_deleting_a_bound_item_parks_its_cell_and_inserting_moves_the_bindings(vhost):
    p = peer(vhost)
    s = feed(p)
    st = p.state(s)["cells"]
    by_path = {tuple(b["path"]): b["container"] for b in st["bound"]}
    p.skip()
    p("range.deleteItems", {"session": s, "paths": [[0, 1]]})
    unbound = [u for c in p.cells() for u in c["unbound"]]
    assert {"path": [0, 1], "container": by_path[(0, 1)], "queued": True} in unbound, unbound
    after = {tuple(b["path"]): b["container"] for b in p.state(s)["cells"]["bound"]}
    assert after[(0, 0)] == by_path[(0, 0)] and after[(0, 1)] == by_path[(0, 2)], (by_path, after)
    p("range.insertItems", {"session": s, "at": [0, 0], "lengths": [100], "data": [{"row": "new"}]})
    moved = {tuple(b["path"]): b["container"] for b in p.state(s)["cells"]["bound"]}
    assert moved[(0, 1)] == by_path[(0, 0)], moved
    assert p.stats()["unbalancedTransitions"] == 0


def test_templates_are_taken_from_the_pool_at_the_rows_size(vhost):
    p = peer(vhost)
    p("classes.define", {"name": "Row"})
    # A first session warms the template; the second one's first binding takes it.
    p("range.create", {"viewport": VP, "sections": [{"count": 3, "itemLength": 120, "reuseIdentifier": "Row"}],
                       "templates": True})
    p("tasks.drain")
    s = p("range.create", {"viewport": VP, "sections": [{"count": 3, "itemLength": 120, "reuseIdentifier": "Row"}],
                           "cells": {}})["session"]
    sources = [b["source"] for c in p.cells() for b in c["bound"]]
    assert sources.count("pool") == 1 and p.state(s)["cells"]["fromPool"] == 1, sources


def test_destroying_the_session_or_closing_releases_every_cell_balanced(vhost):
    p = peer(vhost)
    s = feed(p)
    scroll(p, s, [1000])
    p("range.destroy", {"session": s})
    assert p.stats()["containers"]["total"] == 0
    q = peer(vhost)
    feed(q, count=50)
    q.conn.close()
    watcher = vhost.connect()
    vhost.wait_stats(lambda st: st["containers"]["total"] == 0, watcher)
    assert vhost.stats(watcher)["unbalancedTransitions"] == 0


@pytest.mark.parametrize("hook", ["init", "configure", "viewDidLoad", "viewWillAppear", "willMoveToParent"])
def test_a_failing_cell_is_reported_by_the_call_and_the_session_goes_on(vhost, hook):
    p = peer(vhost)
    p("classes.define", {"name": "Bad", "hooks": {hook: {"fail": True}}})
    reply = p.conn.call("range.create", {"viewport": VP, "sections": [{"count": 20, "itemLength": 100, "reuseIdentifier": "Bad"}],
                                         "cells": {}, "data": [{} for _ in range(20)]})
    if hook == "init":
        assert "result" in reply or reply["error"]["code"] == -32004, reply
    else:
        assert reply["error"]["code"] == -32004 and reply["error"]["data"]["hook"] == hook, reply
    assert p.stats()["unbalancedTransitions"] == 0
    assert p("host.ping") == {"pong": True}


def test_bad_cell_params_are_refused_and_nothing_is_made(vhost):
    p = peer(vhost)
    p("classes.define", {"name": "Row"})
    sec = [{"count": 3, "itemLength": 44, "reuseIdentifier": "Row"}]
    for params, path in [({"cells": {"reuseLimit": -1}, "sections": sec}, "cells.reuseLimit"),
                         ({"cells": {"limit": 2}, "sections": sec}, "cells.limit"),
                         ({"cells": {}, "count": 3}, "cells"),
                         ({"data": [1], "sections": sec}, "data"),
                         ({"cells": {}, "sections": sec, "data": [1, 2, 3, 4]}, "data")]:
        err = p.error("range.create", {"viewport": VP, **params})
        assert err["code"] == -32602 and err["data"]["path"] == path, (params, err)
    plain = p("range.create", {"viewport": VP, "count": 3})["session"]
    assert p.error("range.setItemData", {"session": plain, "items": [{"path": [0, 0], "data": 1}]})["code"] == -32003
    s = p("range.create", {"viewport": VP, "sections": sec, "cells": {}})["session"]
    err = p.error("range.setItemData", {"session": s, "items": [{"path": [0, 9], "data": 1}]})
    assert err["code"] == -32602 and err["data"]["path"] == "items[0].path", err
    err = p.error("range.insertItems", {"session": plain, "at": [0, 0], "lengths": [10], "data": [1]})
    assert err["code"] == -32602 and err["data"]["path"] == "data", err
