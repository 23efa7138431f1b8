"""Idle tasks clients queue (docs/tasks.md, the table article's TaskDispatcher): `tasks.add {key, mode, costMs,
parts}` and `tasks.cancel {key}`, `task` events, the `default` queue pausing while a session tracks and the
`common` one not, one part per pass, keys unique as in the seed, and tasks that belong to their connection."""

from __future__ import annotations

import time

from grhost import EventCursor


class Tasks(EventCursor):
    @staticmethod
    def tag(e: dict) -> str:
        p = e["params"]
        if e["method"] == "task":
            return f"{p['key']}:{p['kind']}" + (f":{p['part']}/{p['parts']}" if p["kind"] == "ran" else "")
        return f"{e['method']}:{p.get('kind')}"


def peer(host, scope=None) -> Tasks:
    return Tasks(host.connect()).subscribe(["task"], scope)


def test_parts_run_one_per_pass_each_queued_behind_what_waits(vhost):
    t = peer(vhost)
    assert t("tasks.add", {"key": "heavy", "costMs": 3, "parts": 3}) == {
        "key": "heavy", "queued": True, "parts": 3,
        "note": "1 idle task (a pool warm-up) was queued; under the virtual clock it runs only on tasks.drain"}
    assert t("tasks.add", {"key": "light"})["queued"] is True
    status = t("tasks.status")
    assert [(x["key"], x.get("client", {}).get("part")) for x in status["tasks"]] == [("task:heavy", 1), ("task:light", 1)]
    assert [x["mode"] for x in status["tasks"]] == ["default", "default"]
    assert t("tasks.drain") == {"ran": 4, "pending": 0}
    # The second part waited behind `light`, queued before the first part ran: the seed's one task per pass.
    assert t.tags() == ["heavy:ran:1/3", "light:ran:1/1", "heavy:ran:2/3", "heavy:ran:3/3"]
    done = [e["params"]["done"] for e in t.conn.events if e["method"] == "task"]
    assert done == [False, True, False, True]


def test_a_key_already_queued_is_ignored_by_anyone(vhost):
    a, b = peer(vhost), peer(vhost)
    a("tasks.add", {"key": "row:7", "parts": 2})
    assert b("tasks.add", {"key": "row:7", "parts": 5}) == {"key": "row:7", "queued": False, "parts": 2}
    assert a("tasks.status")["pending"] == 1
    a("tasks.drain")
    assert a.tags() == ["row:7:ran:1/2", "row:7:ran:2/2"] and b.tags() == []
    # Once its last part ran the key is free again.
    assert b("tasks.add", {"key": "row:7"})["queued"] is True


def test_default_tasks_pause_while_a_session_tracks_and_common_ones_do_not(vhost):
    t = peer(vhost)
    session = t("range.create", {"count": 100, "itemLength": 44, "viewport": {"width": 375, "height": 667}})["session"]
    t("range.willBeginDragging", {"session": session})
    t("tasks.add", {"key": "template", "mode": "default"})
    t("tasks.add", {"key": "split", "mode": "common", "parts": 2})
    status = t("tasks.status")
    assert status["paused"] is True and status["runnable"] == 1
    assert sorted(x["mode"] for x in status["tasks"]) == ["common", "default"]
    t("tasks.drain")
    assert t.tags() == ["split:ran:1/2", "split:ran:2/2"]
    t("range.willEndDragging", {"session": session, "velocity": 0})
    t("range.didEndDecelerating", {"session": session, "offset": 0})
    assert t("tasks.status")["paused"] is False
    t("tasks.drain")
    assert t.tags() == ["template:ran:1/1"]


def test_cancel_removes_the_parts_left_and_only_the_owner_may(vhost):
    a, b = peer(vhost), peer(vhost, scope="all")
    a("tasks.add", {"key": "cell", "parts": 4, "mode": "common"})
    err = b.error("tasks.cancel", {"key": "cell"})
    assert err["code"] == -32002 and err["data"]["key"] == "cell", err
    a("tasks.add", {"key": "blocker", "mode": "common"})
    # Run the first part only: tasks.drain would run them all, so cancel after one part, seen on a real host
    # below; here the queue is cut before anything ran.
    assert a("tasks.cancel", {"key": "cell"}) == {"key": "cell", "cancelled": True, "partsRun": 0}
    assert a.tags() == ["cell:cancelled"]
    b("host.ping")
    assert b.tags() == ["cell:cancelled"], "a scope-all observer sees it too"
    assert a("tasks.drain")["ran"] == 1
    assert a.error("tasks.cancel", {"key": "cell"})["code"] == -32002, "no longer queued"


def test_a_closing_connection_takes_its_tasks_with_it(vhost):
    a, b = peer(vhost), peer(vhost)
    a("tasks.add", {"key": "mine", "parts": 3})
    b("tasks.add", {"key": "theirs"})
    a.conn.close()
    deadline = time.monotonic() + 10
    while (keys := [x["key"] for x in b("tasks.status")["tasks"]]) != ["task:theirs"]:
        assert time.monotonic() < deadline and keys == ["task:mine", "task:theirs"], keys
        time.sleep(0.01)
    assert b("tasks.add", {"key": "mine"})["queued"] is True


def test_bad_params_are_refused_and_nothing_is_queued(vhost):
    t = peer(vhost)
    for params, path in [({"key": ""}, "key"), ({"key": "k", "parts": 0}, "parts"), ({"key": "k", "parts": 1001}, "parts"),
                         ({"key": "k", "costMs": -1}, "costMs"), ({"key": "k", "costMs": 10001}, "costMs"),
                         ({"key": "k", "mode": "tracking"}, "mode"), ({"key": "k", "parts": 1.5}, "parts"), ({}, "key")]:
        err = t.error("tasks.add", params)
        assert err["code"] == -32602 and err["data"]["path"] == path, (params, err)
    assert t("tasks.status")["pending"] == 0


def test_on_a_real_clock_parts_run_in_successive_passes_by_themselves(start_host):
    host = start_host()
    t = peer(host)
    before = t("tasks.status")["passes"]
    t("tasks.add", {"key": "split", "parts": 4, "costMs": 8, "mode": "common"})
    deadline = time.monotonic() + 10
    while len([e for e in t.conn.events if e["method"] == "task"]) < 4:
        assert time.monotonic() < deadline, t.conn.events
        t.conn.events.append(t.conn.read_json(max(0.01, deadline - time.monotonic())))
    assert t.tags() == ["split:ran:1/4", "split:ran:2/4", "split:ran:3/4", "split:ran:4/4"]
    assert t("tasks.status")["passes"] - before >= 4, "one part per pass"
