"""Keys and batch updates (docs/ranges.md, "Keys and batch updates"): items with client keys that events and
`range.state` give beside index paths; `range.performBatchUpdates` with UIKit's index rules, checked against a
model written here; `range.applySnapshot`'s fewest moves; moved items keeping their states and cells."""

from __future__ import annotations

import random

import jsonschema
from grhost import EventCursor
from openrpcdoc import DOC, METHODS, REGISTRY, absolutize

VP = {"width": 375, "height": 500}
EVENTS = {n["name"]: jsonschema.Draft7Validator(absolutize(n["params"]), registry=REGISTRY) for n in DOC["x-notifications"]}


class Checked(EventCursor):
    """Every reply and event this connection receives is validated against rpc-schema/openrpc.json."""

    seen = 0

    def received(self) -> None:
        for e in self.conn.events[self.seen:]:
            EVENTS[e["method"]].validate(e["params"])
        self.seen = len(self.conn.events)

    def __call__(self, method: str, params=None):
        result = super().__call__(method, params)
        jsonschema.Draft7Validator(absolutize(METHODS[method]["result"]["schema"]), registry=REGISTRY).validate(result)
        return result


def peer(host, topics=("range", "prefetch", "lifecycle", "viewable")) -> Checked:
    return Checked(host.connect()).subscribe(list(topics))


def keyed(p: Checked, sections: list[list[str]], length: float = 100, **extra) -> str:
    return p("range.create", {"viewport": VP, "sections": [
        {"lengths": [length] * len(keys), "keys": keys} for keys in sections], **extra})["session"]


def contents(p: Checked, s: str) -> list[list[str]]:
    """Every item's key, by section, read back through `range.state {paths}` row by row."""
    n = p.conn.call("range.setVisible", {"session": s, "visible": True})["result"]["sections"]
    out: list[list[str]] = []
    for sec in range(n):
        rows: list[str] = []
        while "result" in (reply := p.conn.call("range.state", {"session": s, "paths": [[sec, len(rows)]]})):
            rows.append(reply["result"]["items"][0]["key"])
        out.append(rows)
    return out


def model(before: list[list[str]], updates: list[dict], new_key) -> list[list[str]]:
    """UIKit's documented order: removals one by one from the highest old path down (items, then sections),
    then insertions one by one from the lowest new index up (sections, then items)."""
    secs = [list(s) for s in before]
    removals, moved_to = [], {}
    sec_deletes, sec_moves = set(), {}
    for u in updates:
        if u["op"] == "deleteItems":
            removals += [(tuple(p), None) for p in u["paths"]]
        elif u["op"] == "moveItem":
            removals.append((tuple(u["from"]), tuple(u["to"])))
        elif u["op"] == "deleteSections":
            sec_deletes |= set(u["sections"])
        elif u["op"] == "moveSection":
            sec_moves[u["from"]] = u["to"]
    carried = {}
    for (sec, row), to in sorted(removals, reverse=True):
        key = secs[sec].pop(row)
        if to is not None:
            carried[to] = key
    moved_sections = {}
    for sec in sorted(sec_deletes | set(sec_moves), reverse=True):
        removed = secs.pop(sec)
        if sec in sec_moves:
            moved_sections[sec_moves[sec]] = removed
    inserts = sorted(list(moved_sections.items()) + [(u["at"] + k, list(x["keys"])) for u in updates if u["op"] == "insertSections"
                                                     for k, x in enumerate(u["sections"])])
    for at, sec in inserts:
        secs.insert(at, sec)
    items = sorted([(p, k) for p, k in carried.items()] + [((u["at"][0], u["at"][1] + k), key) for u in updates
                                                           if u["op"] == "insertItems" for k, key in enumerate(u["keys"])])
    for (sec, row), key in items:
        secs[sec].insert(row, key)
    return secs


def test_keys_ride_beside_paths_in_events_and_state(vhost):
    p = peer(vhost)
    s = keyed(p, [[f"k{i}" for i in range(30)]])
    [ev] = [e["params"] for e in p.events() if e["method"] == "range"]
    assert ev["keys"]["enter"]["visible"] == [f"k{r}" for _, r in ev["enter"]["visible"]]
    assert ev["keys"]["enter"]["preload"] == [f"k{r}" for _, r in ev["enter"]["preload"]]
    st = p("range.state", {"session": s})
    assert st["keys"]["display"] == [f"k{r}" for _, r in st["display"]]
    p("range.insertItems", {"session": s, "at": [0, 0], "lengths": [100], "keys": ["head"]})
    assert p("range.state", {"session": s, "paths": [[0, 0], [0, 1]]})["items"][1]["key"] == "k0"
    p.events()
    p("range.didScroll", {"session": s, "offset": 1500})
    pre = [e["params"] for e in p.events() if e["method"] == "prefetch"]
    assert pre and all(x["keys"] == [("head" if r == 0 else f"k{r - 1}") for _, r in x["paths"]] for x in pre), pre


def test_bad_and_duplicate_keys_are_refused_naming_both_places(vhost):
    p = peer(vhost)
    err = p.error("range.create", {"viewport": VP, "sections": [{"count": 2, "keys": ["a", "b"]}, {"count": 2, "keys": ["c", "a"]}]})
    assert err["code"] == -32602 and err["data"]["path"] == "sections[1].keys[1]" and "sections[0].keys[0]" in err["message"], err
    err = p.error("range.create", {"viewport": VP, "sections": [{"count": 2, "keys": ["a", "b"]}, {"count": 1}]})
    assert err["data"]["path"] == "sections[1].keys", err
    err = p.error("range.create", {"viewport": VP, "count": 2, "keys": ["a"]})
    assert err["data"]["path"] == "keys", err
    assert p("host.stats")["sessions"]["range"] == 0
    s = keyed(p, [["a", "b", "c"]])
    err = p.error("range.insertItems", {"session": s, "at": [0, 0], "lengths": [1]})
    assert err["data"]["path"] == "keys" and "required" in err["message"], err
    err = p.error("range.insertItems", {"session": s, "at": [0, 0], "lengths": [1, 1], "keys": ["x", "c"]})
    assert err["data"]["path"] == "keys[1]" and "[0, 2]" in err["message"], err
    u = p("range.create", {"viewport": VP, "count": 3})["session"]
    err = p.error("range.insertItems", {"session": u, "at": [0, 0], "lengths": [1], "keys": ["x"]})
    assert err["data"]["path"] == "keys", err
    assert contents(p, s) == [["a", "b", "c"]]


def test_random_mixed_batches_match_the_model(vhost):
    p = peer(vhost)
    rng = random.Random(7)
    counter = iter(range(10_000))
    secs = [[f"i{next(counter)}" for _ in range(rng.randrange(1, 8))] for _ in range(3)]
    s = keyed(p, secs, length=60)
    for step in range(40):
        sizes = [len(x) for x in secs]
        updates, used = [], set()
        for _ in range(rng.randrange(1, 5)):
            sec = rng.randrange(3)
            if not secs[sec]:
                continue
            path = (sec, rng.randrange(len(secs[sec])))
            if path in used:
                continue
            used.add(path)
            kind = rng.choice(["deleteItems", "reloadItems", "moveItem"])
            if kind == "moveItem":
                updates.append({"op": "moveItem", "from": list(path), "to": None})
            else:
                updates.append({"op": kind, "paths": [list(path)]})
                if kind == "deleteItems":
                    sizes[sec] -= 1
        taken: dict[int, set] = {}

        def destination(sec: int):
            sizes[sec] += 1
            free = [r for r in range(sizes[sec]) if r not in taken.setdefault(sec, set())]
            row = rng.choice(free)
            taken[sec].add(row)
            return [sec, row]
        for u in updates:
            if u["op"] == "moveItem":
                sizes[u["from"][0]] -= 1
        for u in updates:
            if u["op"] == "moveItem":
                u["to"] = destination(rng.randrange(3))
        for _ in range(rng.randrange(0, 3)):
            updates.append({"op": "insertItems", "at": destination(rng.randrange(3)), "lengths": [40], "keys": [f"i{next(counter)}"]})
        ok = all(u["to"][1] < sizes[u["to"][0]] for u in updates if u["op"] == "moveItem") and \
            all(u["at"][1] < sizes[u["at"][0]] for u in updates if u["op"] == "insertItems")
        if not ok or not updates:
            continue
        p.events()
        reply = p("range.performBatchUpdates", {"session": s, "updates": updates})
        expected = model(secs, updates, counter)
        assert contents(p, s) == expected, (step, updates)
        assert len([e for e in p.events() if e["method"] == "range"]) <= 1, "one update, one range event"
        assert reply["count"] == sum(map(len, expected))
        secs = expected


def test_classic_mistakes_are_refused_naming_the_update_and_change_nothing(vhost):
    p = peer(vhost)
    s = keyed(p, [["a", "b", "c", "d"]])
    cases = [
        ([{"op": "deleteItems", "paths": [[0, 1]]}, {"op": "moveItem", "from": [0, 1], "to": [0, 0]}], "updates[1].from"),
        ([{"op": "insertItems", "at": [0, 5], "lengths": [1], "keys": ["x"]}], "updates[0].at"),
        ([{"op": "moveItem", "from": [0, 0], "to": [0, 3]}, {"op": "reloadItems", "paths": [[0, 0]]}], "updates[1].paths[0]"),
        ([{"op": "deleteItems", "paths": [[0, 4]]}], "updates[0].paths[0]"),
        ([{"op": "deleteSections", "sections": [0]}], "updates[0]"),
        ([{"op": "insertItems", "at": [0, 0], "lengths": [1], "keys": ["c"]}], "updates[0].keys[0]"),
        ([{"op": "spin"}], "updates[0].op"),
        ([{"op": "deleteItems", "paths": [[0, 0]], "at": [0, 0]}], "updates[0].at"),
    ]
    for updates, path in cases:
        err = p.error("range.performBatchUpdates", {"session": s, "updates": updates})
        assert err["code"] == -32602 and err["data"]["path"] == path, (updates, err)
    assert contents(p, s) == [["a", "b", "c", "d"]]
    assert p("host.ping") is not None


def test_a_moved_item_keeps_its_states_and_only_real_changes_are_announced(vhost):
    p = peer(vhost)
    s = keyed(p, [[f"k{i}" for i in range(50)]])
    p.events()
    p("range.performBatchUpdates", {"session": s, "updates": [{"op": "moveItem", "from": [0, 1], "to": [0, 3]}]})
    [ev] = [e["params"] for e in p.events() if e["method"] == "range"]
    assert ev["moved"] == [{"from": [0, 1], "to": [0, 3]}]
    assert all(not ev[side][r] for side in ("enter", "exit") for r in ("visible", "display", "preload")), ev
    p("range.performBatchUpdates", {"session": s, "updates": [{"op": "moveItem", "from": [0, 3], "to": [0, 45]}]})
    [ev] = [e["params"] for e in p.events() if e["method"] == "range"]
    assert [0, 45] in ev["exit"]["visible"] and ev["keys"]["exit"]["visible"][ev["exit"]["visible"].index([0, 45])] == "k1"
    assert "k5" in ev["keys"]["enter"]["visible"], "the row below slid up onto the screen"


def test_apply_snapshot_makes_the_fewest_moves(vhost):
    p = peer(vhost)
    s = keyed(p, [["a", "b", "c", "d", "e"]])
    reply = p("range.applySnapshot", {"session": s, "sections": [{"keys": ["e", "a", "c", "x", "d"], "lengths": [100, 100, 100, 80, 100]}]})
    assert reply["applied"] == {"deleted": 1, "inserted": 1, "moved": 1, "reloaded": 0, "resized": 0}, reply
    assert contents(p, s) == [["e", "a", "c", "x", "d"]]
    err = p.error("range.applySnapshot", {"session": s, "sections": [{"keys": ["e", "y"]}]})
    assert err["data"]["path"] == "sections[0].lengths", err
    err = p.error("range.applySnapshot", {"session": s, "sections": [{"keys": ["e", "e"]}]})
    assert err["data"]["path"] == "sections[0].keys[1]", err
    again = p("range.applySnapshot", {"session": s, "sections": [{"keys": ["e", "a", "c", "x", "d"]}]})
    assert again["applied"]["moved"] == 0 and again["applied"]["inserted"] == 0
    u = p("range.create", {"viewport": VP, "count": 3})["session"]
    assert p.error("range.applySnapshot", {"session": u, "sections": [{"keys": []}]})["code"] == -32003
    # Params before state: an empty list is -32602 on any session, keyed or not.
    for session in (s, u):
        err = p.error("range.applySnapshot", {"session": session, "sections": []})
        assert err["code"] == -32602 and err["data"]["path"] == "sections", err


def test_cells_follow_their_items_through_a_batch(vhost):
    p = peer(vhost)
    assert "result" in p.conn.call("classes.define", {"name": "KRow", "hooks": {"configure": {"output": {"ok": True}}}}) or True
    s = p("range.create", {"viewport": VP, "sections": [{"lengths": [100] * 20, "keys": [f"k{i}" for i in range(20)], "reuseIdentifier": "KRow"}],
                           "cells": {"reuseLimit": 4}, "data": [{"n": i} for i in range(20)]})["session"]
    before = {tuple(b["path"]): b["container"] for b in p("range.state", {"session": s})["cells"]["bound"]}
    p.events()
    p("range.performBatchUpdates", {"session": s, "updates": [{"op": "moveItem", "from": [0, 0], "to": [0, 2]},
                                                              {"op": "reloadItems", "paths": [[0, 3]]},
                                                              {"op": "deleteItems", "paths": [[0, 4]]}]})
    after = {tuple(b["path"]): b["container"] for b in p("range.state", {"session": s})["cells"]["bound"]}
    assert after[(0, 2)] == before[(0, 0)], "the moved item kept its cell"
    [ev] = [e["params"] for e in p.events() if e["method"] == "range"]
    unbound = {tuple(u["path"]): u for u in ev["cells"]["unbound"]}
    assert unbound[(0, 4)]["container"] == before[(0, 4)], "the deleted item's cell let go (by its path before)"
    rebound = {tuple(b["path"]): b for b in ev["cells"]["bound"]}
    assert rebound[(0, 3)]["configured"] is True, "the reloaded item was configured again"
    p("range.destroy", {"session": s})
    assert p("host.stats")["unbalancedTransitions"] == 0


def test_viewable_items_follow_a_batch_and_deleted_ones_end_removed(vhost):
    p = peer(vhost, ["viewable"])
    s = keyed(p, [[f"k{i}" for i in range(20)]], viewability=[{"name": "seen", "minPercent": 50}])
    first = {tuple(e["params"]["path"]) for e in p.events() if e["params"]["kind"] == "viewable"}
    assert (0, 0) in first and (0, 2) in first
    p("range.performBatchUpdates", {"session": s, "updates": [{"op": "deleteItems", "paths": [[0, 0]]},
                                                              {"op": "moveItem", "from": [0, 2], "to": [0, 3]}]})
    ended = [e["params"] for e in p.events() if e["params"]["kind"] == "ended"]
    assert [(x["path"], x["reason"]) for x in ended] == [([0, 0], "removed")], ended
    st = p("range.state", {"session": s})
    assert [0, 3] in st["viewable"]["seen"] and st["keys"]["visible"][st["visible"].index([0, 3])] == "k2"


def test_keep_on_screen_moves_the_offset_for_rows_inserted_above(vhost):
    p = peer(vhost)
    s = keyed(p, [[f"k{i}" for i in range(50)]])
    p("range.didScroll", {"session": s, "offset": 1000})
    before = p("range.state", {"session": s})["keys"]["visible"]
    p.events()
    r = p("range.insertItems", {"session": s, "at": [0, 0], "lengths": [100, 100, 100], "keys": ["a", "b", "c"],
                                "keepOnScreen": True})
    assert r["offset"] == 1300, "moved down by the rows inserted above"
    assert p("range.state", {"session": s})["keys"]["visible"] == before, "what is on screen stays"
    assert all(not e["params"]["exit"]["visible"] and not e["params"]["enter"]["visible"]
               for e in p.events() if e["method"] == "range")
    # Below the screen nothing moves.
    assert p("range.insertItems", {"session": s, "at": [0, 40], "lengths": [100], "keys": ["d"],
                                   "keepOnScreen": True})["offset"] == 1300
    # Without it the offset stays and the rows on screen change.
    assert p("range.insertItems", {"session": s, "at": [0, 0], "lengths": [100], "keys": ["e"]})["offset"] == 1300
    assert p("range.state", {"session": s})["keys"]["visible"] != before
