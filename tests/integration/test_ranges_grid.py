"""Grids (docs/ranges.md, "Grids"): `range.create {layout: {columns, spacing}}` fills rows of `columns`, each section
starting a new row; an item's extent is its row's, so every range covers whole rows, checked here against a model of
the rows; items of one section share the row's length, and cells are one column wide."""

from __future__ import annotations

from test_ranges_batch_updates import Checked, peer

VP = {"width": 375, "height": 500}


def rows_of(paths: list, columns: int) -> list[int]:
    return sorted({r // columns for _, r in paths})


def test_ranges_cover_whole_rows_and_follow_the_rows_geometry(vhost):
    p = peer(vhost)
    s = p("range.create", {"count": 100, "itemLength": 100, "viewport": VP, "layout": {"columns": 3, "spacing": 10}})
    assert s["contentLength"] == 34 * 100 + 33 * 10, "34 rows 100 high, 10 apart"
    st = p("range.state", {"session": s["session"]})
    # A 500-point viewport shows rows 0-4 (row 4 starts at 440).
    assert [r for _, r in st["visible"]] == list(range(15))
    for kind in ("visible", "display", "preload"):
        rows = rows_of(st[kind], 3)
        assert [r for _, r in st[kind]] == [i for row in rows for i in range(row * 3, min(row * 3 + 3, 100))], kind
    p("range.didScroll", {"session": s["session"], "offset": 1105})  # row 10 starts at 1100
    st = p("range.state", {"session": s["session"]})
    assert rows_of(st["visible"], 3) == [10, 11, 12, 13, 14]


def test_grid_items_share_their_rows_length_and_cells_are_a_column_wide(vhost):
    p = peer(vhost)
    err = p.error("range.create", {"viewport": VP, "layout": {"columns": 2}, "sections": [{"lengths": [100, 90]}]})
    assert err["data"]["path"] == "sections[0].lengths", err
    err = p.error("range.create", {"count": 3, "viewport": VP, "layout": {"columns": 0}})
    assert err["data"]["path"] == "layout.columns", err
    s = p("range.create", {"count": 10, "itemLength": 100, "viewport": VP, "layout": {"columns": 2}})["session"]
    err = p.error("range.insertItems", {"session": s, "at": [0, 0], "lengths": [80]})
    assert err["data"]["path"] == "lengths" and "row length" in err["message"], err
    err = p.error("range.performBatchUpdates", {"session": s, "updates": [{"op": "setLengths", "paths": [[0, 0]], "lengths": [90]}]})
    assert err["data"]["path"] == "updates[0].lengths", err
    # One more item: a sixth row.
    assert p("range.insertItems", {"session": s, "at": [0, 0], "lengths": [100]})["contentLength"] == 600
    p.conn.call("classes.define", {"name": "Tile"})
    c = p("range.create", {"viewport": VP, "layout": {"columns": 3, "spacing": 15}, "cells": {},
                           "sections": [{"count": 9, "itemLength": 120, "reuseIdentifier": "Tile"}]})["session"]
    bound = p("range.state", {"session": c})["cells"]["bound"]
    info = p("container.info", {"container": bound[0]["container"]})
    assert info["size"] == {"width": 115, "height": 120}, "(375 - 2 x 15) / 3 wide, the row high"
