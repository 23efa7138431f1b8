"""Nested sessions (docs/ranges.md, "Nested sessions"): a range session in a row of another (a carousel in a feed's
row) or in a page of a page session (a list on a page) is visible while its row or page is on screen, preloads in
`minimum` mode while its row is in the preload range, displays nothing (`lowMemory`) farther away, moves with its
row and ends with it. Texture's outer range controller sets the inner one's interface state the same way."""

from __future__ import annotations

from test_ranges_batch_updates import Checked, peer

FEED = {"width": 375, "height": 500}
ROW = {"width": 375, "height": 100}


def feed(p: Checked, rows: int = 100) -> str:
    return p("range.create", {"count": rows, "itemLength": 100, "viewport": FEED})["session"]


def carousel(p: Checked, parent: str, row: int) -> dict:
    return p("range.create", {"count": 20, "itemLength": 120, "axis": "horizontal", "viewport": ROW,
                              "parent": {"session": parent, "item": [0, row]}})


def events_of(p: Checked, session: str) -> list[dict]:
    return [e["params"] for e in p.events() if e["method"] == "range" and e["params"]["session"] == session]


def test_a_row_on_screen_makes_its_carousel_visible_and_a_far_one_holds_nothing(vhost):
    p = peer(vhost)
    f = feed(p)
    near = carousel(p, f, 2)
    assert near["visible"] is True and near["mode"] == "minimum"
    assert p("range.state", {"session": near["session"]})["visible"], "the visible row's carousel shows its first cards"
    far = carousel(p, f, 40)
    assert far["visible"] is False and far["mode"] == "lowMemory"
    st = p("range.state", {"session": far["session"]})
    # lowMemory: nothing displayed; only what its own first screen shows stays preloaded (Texture's rule for
    # a range controller that is not visible).
    assert st["visible"] == st["display"] == [] and st["preload"] == [[0, r] for r in range(4)], st
    assert p("range.state", {"session": f})["nested"] == [{"path": [0, 2], "session": near["session"]},
                                                          {"path": [0, 40], "session": far["session"]}]
    p.events()
    # The feed scrolls the far row onto the screen: its carousel becomes visible and announces its cards.
    p("range.willBeginDragging", {"session": f})
    p("range.didScroll", {"session": f, "offset": 3800})
    [ev] = events_of(p, far["session"])
    assert ev["enter"]["visible"] and ev["enter"]["visible"][0] == [0, 0], ev
    assert ev["parent"] == {"session": f, "item": [0, 40]}, "its events say what it hangs from, for observers"
    assert p("range.state", {"session": far["session"]})["mode"] == "minimum"
    # ...and the near row left every range: its carousel displays nothing any more.
    p("range.didScroll", {"session": f, "offset": 3900})
    st = p("range.state", {"session": near["session"]})
    assert st["mode"] == "lowMemory" and st["visible"] == st["display"] == [], st


def test_a_row_in_the_preload_range_preloads_its_carousel_off_screen(vhost):
    p = peer(vhost)
    f = feed(p)
    # Minimum mode: preload reaches half a screen (250 points) past the viewport: rows 5 and 6.
    pre = carousel(p, f, 6)
    assert pre["visible"] is False and pre["mode"] == "minimum"
    st = p("range.state", {"session": pre["session"]})
    assert st["visible"] == [] and st["preload"], "what the carousel will show first is preloaded, nothing is visible"


def test_carousels_move_with_their_rows_and_end_with_them(vhost):
    p = peer(vhost)
    f = feed(p)
    a = carousel(p, f, 2)["session"]
    b = carousel(p, f, 30)["session"]
    c = carousel(p, f, 50)["session"]
    p("range.insertItems", {"session": f, "at": [0, 0], "lengths": [100, 100]})
    assert [n["path"] for n in p("range.state", {"session": f})["nested"]] == [[0, 4], [0, 32], [0, 52]]
    p.events()
    p("range.didScroll", {"session": f, "offset": 500})  # row 4 leaves the screen: its carousel stops being visible
    moved = events_of(p, a)
    assert moved and all(e["parent"] == {"session": f, "item": [0, 4]} for e in moved), "the row where it is now"
    p("range.didScroll", {"session": f, "offset": 0})
    p("range.deleteItems", {"session": f, "paths": [[0, 32]]})
    assert p.error("range.state", {"session": b})["code"] == -32002, "the row's carousel ended with it"
    p("range.performBatchUpdates", {"session": f, "updates": [{"op": "moveItem", "from": [0, 51], "to": [0, 1]}]})
    assert p("range.state", {"session": f})["nested"] == [{"path": [0, 1], "session": c}, {"path": [0, 5], "session": a}]
    assert p("range.state", {"session": c})["visible"], "moved onto the screen: visible"
    p("range.destroy", {"session": f})
    for s in (a, c):
        assert p.error("range.state", {"session": s})["code"] == -32002
    assert p("host.stats")["sessions"]["range"] == 0


def test_a_list_on_a_page_is_visible_while_its_page_is_shown(vhost):
    p = peer(vhost)
    pages = p("page.create", {"class": "Container", "count": 3, "width": 375, "height": 667})["session"]
    on0 = p("range.create", {"count": 50, "viewport": {"width": 375, "height": 667}, "page": {"session": pages, "index": 0}})
    on1 = p("range.create", {"count": 50, "viewport": {"width": 375, "height": 667}, "page": {"session": pages, "index": 1}})
    assert on0["visible"] is True and on1["visible"] is False and on1["mode"] == "lowMemory"
    p("page.show", {"session": pages, "index": 1, "animated": False})
    assert p("range.state", {"session": on1["session"]})["visible"], "its page appeared"
    st0 = p("range.state", {"session": on0["session"]})
    assert st0["visible"] == [] and st0["mode"] == "minimum", "its page is loaded but off screen: it preloads"
    p("page.removePages", {"session": pages, "at": 0})
    assert p.error("range.state", {"session": on0["session"]})["code"] == -32002, "its page was removed"
    p("page.destroy", {"session": pages})
    assert p.error("range.state", {"session": on1["session"]})["code"] == -32002


def test_bad_parents_are_refused_and_nothing_is_made(vhost):
    p = peer(vhost)
    f = feed(p, rows=3)
    cases = [
        ({"parent": {"session": "r-999", "item": [0, 0]}}, -32002, "parent.session"),
        ({"parent": {"session": f, "item": [0, 3]}}, -32602, "parent.item"),
        ({"parent": {"session": f, "item": [0, 0], "row": 1}}, -32602, "parent.row"),
        ({"parent": {"session": f, "item": [0, 0]}, "visible": True}, -32602, "visible"),
        ({"parent": {"session": f, "item": [0, 0]}, "page": {"session": "p-1", "index": 0}}, -32602, "page"),
        ({"page": {"session": "p-999", "index": 0}}, -32002, "page.session"),
    ]
    for extra, code, path in cases:
        err = p.error("range.create", {"count": 5, "viewport": ROW, **extra})
        assert err["code"] == code and err["data"]["path"] == path, (extra, err)
    assert p("host.stats")["sessions"]["range"] == 1
    other = peer(vhost)
    err = other.error("range.create", {"count": 5, "viewport": ROW, "parent": {"session": f, "item": [0, 0]}})
    assert err["code"] == -32002, "another connection's session is no parent"
