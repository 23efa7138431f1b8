"""Section headers (docs/ranges.md, "Section headers"): a plain header shows while its section's first item is visible;
a sticky one while any item of its section is, pinned at the top once the first has scrolled past
(UICollectionViewFlowLayout's sectionHeadersPinToVisibleBounds, React Native's stickyHeaderIndices)."""

from __future__ import annotations

from test_ranges_batch_updates import peer

VP = {"width": 375, "height": 500}


def feed(p) -> str:
    return p("range.create", {"viewport": VP, "sections": [
        {"count": 10, "itemLength": 100, "header": {}},
        {"count": 10, "itemLength": 100, "header": {"sticky": True}},
        {"count": 10, "itemLength": 100, "header": {"sticky": True}},
    ]})["session"]


def headers_at(p, s: str, offset: float) -> dict:
    p("range.didScroll", {"session": s, "offset": offset})
    return p("range.state", {"session": s})["headers"]


def test_plain_headers_show_with_their_first_item_and_sticky_ones_pin(vhost):
    p = peer(vhost)
    s = feed(p)
    assert p("range.state", {"session": s})["headers"] == {"visible": [0], "pinned": []}
    assert headers_at(p, s, 450) == {"visible": [], "pinned": []}, "section 0's first row left: its plain header went"
    assert headers_at(p, s, 800) == {"visible": [1], "pinned": []}, "section 1's first row on screen"
    assert headers_at(p, s, 1300) == {"visible": [1], "pinned": [1]}, "scrolled past its first row: pinned"
    assert headers_at(p, s, 1800) == {"visible": [1, 2], "pinned": [1]}, "the next header pushes up"
    assert headers_at(p, s, 2100) == {"visible": [2], "pinned": [2]}
    p.events()
    p("range.didScroll", {"session": s, "offset": 2150})  # nothing changes for the headers
    assert all("headers" not in e["params"] for e in p.events() if e["method"] == "range")
    p("range.didScroll", {"session": s, "offset": 1300})
    [ev] = [e["params"] for e in p.events() if e["method"] == "range"]
    assert ev["headers"] == {"visible": [1], "pinned": [1]}


def test_headers_follow_their_sections_through_a_batch_and_bad_ones_are_refused(vhost):
    p = peer(vhost)
    s = feed(p)
    p("range.performBatchUpdates", {"session": s, "updates": [{"op": "moveSection", "from": 2, "to": 0}]})
    assert p("range.state", {"session": s})["headers"] == {"visible": [0], "pinned": []}
    assert headers_at(p, s, 300) == {"visible": [0], "pinned": [0]}, "the sticky section moved to the top pins"
    err = p.error("range.create", {"viewport": VP, "sections": [{"count": 1, "header": {"sticky": 1}}]})
    assert err["data"]["path"] == "sections[0].header.sticky", err
    err = p.error("range.create", {"viewport": VP, "sections": [{"count": 1, "header": {"height": 20}}]})
    assert err["data"]["path"] == "sections[0].header.height", err
