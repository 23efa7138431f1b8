"""Idle tasks (docs/tasks.md): `default` tasks pause while any page or range session tracks a gesture, tasks
run first in first out, keyed and averaged, template preloading is keyed (a duplicate is queued once), and on
a real clock paused tasks wait without a busy loop and costly tasks run one per pass.

How the expected sequences are worked out, and the tags the tests compare: lifecyclemodel.py.
"""

from __future__ import annotations

import math
import os
import time

import pytest
from lifecyclemodel import Peer, bring, peer, pump, sessions


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def end(p: Peer, s: str, phase: str) -> None:
    S = {"session": s}
    if phase == "dragging":
        p("page.didEndDragging", {**S, "offset": 200, "willDecelerate": False})
    elif phase == "decelerating":
        p("page.didEndDecelerating", {**S, "offset": 200})
    else:
        p("clock.advance", {"ms": 300})
    assert p.page(s)["phase"] == "idle"


@pytest.mark.parametrize("phase", ["dragging", "decelerating", "animating"])
def test_default_tasks_pause_while_any_page_session_tracks(vhost, phase):
    """docs/tasks.md: `default` tasks are paused while any page session (of any connection) is dragging, decelerating or
    animating; tasks.drain leaves them queued; they run once it is at rest."""
    p, other = peer(vhost), peer(vhost)
    s, _ = sessions(other)
    p("classes.define", {"name": "Web"})
    p("showRendered", {"class": "Web"})   # one warm-up queued, default mode
    bring(other, s, phase)
    status = p("tasks.status")
    assert (status["pending"], status["runnable"], status["paused"]) == (1, 0, True), status
    assert p.stats()["sessions"]["pageTracking"] == 1
    assert p("tasks.drain") == {"ran": 0, "pending": 1}
    end(other, s, phase)
    status = p("tasks.status")
    assert (status["runnable"], status["paused"]) == (1, False), status
    assert p("tasks.drain") == {"ran": 1, "pending": 0}
    p.assert_balanced()


def test_default_tasks_pause_while_a_range_session_tracks(vhost):
    """docs/tasks.md: a tracking range session (dragging, decelerating) pauses `default` tasks too."""
    p = peer(vhost)
    p("classes.define", {"name": "Web"})
    r = p("range.create", {"count": 100, "viewport": {"width": 320, "height": 480}})["session"]
    p("showRendered", {"class": "Web"})
    p("range.willBeginDragging", {"session": r})
    assert p("tasks.drain") == {"ran": 0, "pending": 1}
    p("range.willEndDragging", {"session": r, "velocity": 0.5})
    assert p("tasks.status")["paused"] is True
    assert p("tasks.drain")["ran"] == 0
    p("range.didEndDecelerating", {"session": r})
    assert p("tasks.drain") == {"ran": 1, "pending": 0}


def test_tasks_are_fifo_keyed_and_averaged(vhost):
    """docs/tasks.md: idle tasks are keyed (distinct keys), FIFO, in `default` mode for warming; a task kind's running
    average cost is null before it first ran, a number after."""
    p = peer(vhost)
    for n in ("A", "B"):
        p("classes.define", {"name": n})
    p("pool.warm", {"class": "A", "count": 2})
    p("pool.warm", {"class": "B", "count": 1})
    tasks = p("tasks.status")["tasks"]
    assert len(tasks) == 3 and len({t["key"] for t in tasks}) == 3, tasks
    assert all(t["mode"] == "default" and t["avgCostMs"] is None for t in tasks), tasks
    p("tasks.drain")
    order = [e["params"]["class"] for e in p.events() if e["method"] == "pool" and e["params"]["kind"] == "warmed"]
    assert order == ["A", "A", "B"]
    p("pool.warm", {"class": "A", "count": 1})
    [task] = p("tasks.status")["tasks"]
    assert isinstance(task["avgCostMs"], float) and task["avgCostMs"] >= 0, task


def test_template_preloading_is_keyed_a_duplicate_is_queued_once(vhost):
    """docs/tasks.md: idle work (warming, template preloading) is keyed: a duplicate is ignored. Two sections, and then
    a
    second session, asking for the same template class queue one warm-up in all; it waits for tasks.drain."""
    p = peer(vhost)
    p("classes.define", {"name": "Cell"})
    sections = [{"count": 10, "reuseIdentifier": "Cell"}, {"count": 5, "reuseIdentifier": "Cell"}]
    first = p("range.create", {"sections": sections, "viewport": {"width": 320, "height": 480}, "templates": True})
    second = p("range.create", {"sections": sections, "viewport": {"width": 320, "height": 480}, "templates": True})
    assert (first.get("templatesQueued"), second.get("templatesQueued")) == (1, 0), (first, second)
    status = p("tasks.status")
    assert status["pending"] == 1 and status["tasks"][0]["mode"] == "default", status
    assert p("tasks.drain") == {"ran": 1, "pending": 0}
    assert p.pool("Cell")["idle"] == 1


def test_templates_are_warmed_at_the_size_their_rows_have(vhost):
    """docs/tasks.md: a template is warmed at the viewport's cross size by its rows' length (the first row of the
    first section using the class), horizontally too; a showRendered at that size takes it."""
    p = peer(vhost)
    for name in ("Row", "Card"):
        p("classes.define", {"name": name})
    sections = [{"count": 3, "itemLength": 88, "reuseIdentifier": "Row"},
                {"lengths": [140, 60], "reuseIdentifier": "Card"}, {"count": 2, "itemLength": 10, "reuseIdentifier": "Row"}]
    assert p("range.create", {"sections": sections, "viewport": {"width": 320, "height": 480},
                              "templates": True})["templatesQueued"] == 2
    p("range.create", {"axis": "horizontal", "sections": [{"count": 4, "itemLength": 150, "reuseIdentifier": "Card"}],
                       "viewport": {"width": 375, "height": 90}, "templates": True})
    p("tasks.drain")
    sizes = sorted((x["class"], x["width"], x["height"], x["idle"]) for x in p("pool.status")["pools"])
    assert sizes == [("Card", 150, 90, 1), ("Card", 320, 140, 1), ("Row", 320, 88, 1)], sizes
    stack = p("stack.create", {"width": 320, "height": 88})["stack"]
    assert p("showRendered", {"class": "Row", "stack": stack})["warm"] is True


def test_real_clock_paused_tasks_wait_without_a_busy_loop_then_run_at_rest(start_host):
    """docs/tasks.md: with a real clock idle tasks run by themselves; `default` ones pause while a session tracks, and
    the
    idle handle keeps the loop turning only while runnable tasks exist (no busy loop when they are paused);
    at rest the paused warm-up runs without any further request."""
    host = start_host()
    p = peer(host)
    p("classes.define", {"name": "Web"})
    s, _ = sessions(p)
    p("page.willBeginDragging", {"session": s, "offset": 100})
    p("showRendered", {"class": "Web"})
    status = p("tasks.status")
    assert (status["automatic"], status["pending"], status["runnable"], status["paused"]) == (True, 1, 0, True)
    before = cpu_seconds(host.pid)
    pump(p, 0.6)
    used = cpu_seconds(host.pid) - before
    assert used < 0.15, f"the host burned {used:.2f} s of CPU in 0.6 s with only paused tasks queued"
    assert p("tasks.status")["pending"] == 1
    assert not [e for e in p.conn.events if e["method"] == "pool" and e["params"]["kind"] == "warmed"]
    p("page.didEndDragging", {"session": s, "offset": 100, "willDecelerate": False})
    deadline = time.monotonic() + 5
    while not [e for e in p.conn.events if e["method"] == "pool" and e["params"]["kind"] == "warmed"]:
        assert time.monotonic() < deadline, "the paused warm-up never ran after the session came to rest"
        pump(p, 0.1)
    assert p("tasks.status")["pending"] == 0


def test_real_clock_costly_tasks_run_one_per_pass_cheap_ones_share_passes(start_host):
    """docs/tasks.md: each pass runs tasks until the 4 ms slice is spent, always at least one; a task whose average cost
    will not fit waits for the next pass: 3 ms warm-ups run one per pass, cheap ones share passes."""
    host = start_host()
    p = peer(host, topics=("pool",))
    p("classes.define", {"name": "Slow", "hooks": {"viewDidLoad": {"costMs": 3}}})
    p("classes.define", {"name": "Cheap"})

    def run(cls: str, n: int) -> int:
        passes = p("tasks.status")["passes"]
        p.skip()
        p("pool.warm", {"class": cls, "count": n})
        deadline = time.monotonic() + 10
        while len([e for e in p.events() if e["params"]["kind"] == "warmed"]) < n:
            assert time.monotonic() < deadline
            pump(p, 0.05)
            p.mark = 0
        p.skip()
        return p("tasks.status")["passes"] - passes

    assert run("Slow", 6) >= 5   # at most two in the first pass (no average yet), then one per pass
    assert run("Cheap", 40) < 30


def test_tasks_status_shape_on_a_virtual_clock(vhost):
    c = vhost.connect()
    st = c.result("tasks.status")
    assert st == {"pending": 0, "runnable": 0, "paused": False, "automatic": False, "sliceMs": 4.0, "ran": 0,
                  "passes": 0, "tasks": []}, st


def test_tasks_status_is_automatic_on_a_real_clock_and_honours_the_slice_flag(start_host):
    host = start_host("--task-slice-ms", "2.5")
    st = host.connect().result("tasks.status")
    assert st["automatic"] is True and st["sliceMs"] == 2.5, st


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_task_slice_ms_never_becomes_nan_or_inf(start_host, value):
    """rpc-schema/openrpc.json `tasks.status` (schema TasksStatus.sliceMs: number >= 0) and docs/tasks.md's time slice.
    Like every other
    bad limit flag (exit 64, "must be positive"), `--task-slice-ms nan|inf` is refused at start-up; at the
    very least, a host that starts reports a finite float sliceMs in tasks.status, never `null`."""
    try:
        host = start_host("--task-slice-ms", value)
    except Exception as e:  # noqa: BLE001 - refusing to start is the right outcome
        assert getattr(e, "returncode", None) not in (0, None), e
        return
    st = host.connect().result("tasks.status")
    assert isinstance(st["sliceMs"], float) and math.isfinite(st["sliceMs"]), f"host started; sliceMs = {st['sliceMs']!r}"


def test_tasks_drain_runs_every_runnable_task_and_reports_counts(vhost):
    c = vhost.connect()
    c.result("classes.define", {"name": "Card"})
    c.result("pool.configure", {"class": "Card", "depth": 3, "policy": "eager"})
    st = c.result("tasks.status")
    assert st["pending"] >= 1 and st["runnable"] == st["pending"], st
    for t in st["tasks"]:
        assert set(t) == {"key", "mode", "avgCostMs"} and t["mode"] in ("default", "common"), t
    assert st["tasks"][0]["avgCostMs"] is None
    r = c.result("tasks.drain")
    assert r["pending"] == 0 and r["ran"] >= st["pending"], r
    after = c.result("tasks.status")
    assert after["pending"] == 0 and after["tasks"] == [] and after["ran"] == st["ran"] + r["ran"], after
    assert c.result("pool.status", {"class": "Card"})["pools"][0]["idle"] == 3
    assert c.result("tasks.drain") == {"ran": 0, "pending": 0}


def test_tasks_drain_runs_tasks_enqueued_while_draining_and_reports_pending_zero(vhost):
    c = vhost.connect()
    c.result("classes.define", {"name": "Card"})
    c.result("pool.configure", {"class": "Card", "depth": 2, "policy": "eager"})
    r = c.result("tasks.drain")
    assert r["pending"] == 0 and r["ran"] >= 2, r
    assert c.result("tasks.status")["pending"] == 0
    assert c.result("pool.status", {"class": "Card"})["pools"][0]["idle"] == 2


def test_tasks_drain_leaves_default_tasks_queued_while_a_session_tracks(vhost):
    c = vhost.connect()
    c.result("classes.define", {"name": "Card"})
    r = c.result("range.create", {"count": 100, "itemLength": 50, "viewport": {"width": 100, "height": 100}})["session"]
    c.result("range.willBeginDragging", {"session": r})
    assert c.result("showRendered", {"class": "Card"})["warm"] is False  # schedules a warm-up
    st = c.result("tasks.status")
    assert st["paused"] is True and st["pending"] == 1 and st["runnable"] == 0, st
    assert c.result("tasks.drain") == {"ran": 0, "pending": 1}
    c.result("range.willEndDragging", {"session": r, "velocity": 0})
    c.call("range.didEndDecelerating", {"session": r})
    assert c.result("host.stats")["sessions"]["rangeTracking"] == 0
    assert c.result("tasks.drain") == {"ran": 1, "pending": 0}


def test_no_busy_loop_while_default_tasks_wait_for_a_tracking_session(start_host):
    """docs/tasks.md: default-mode tasks pause while a session tracks, and "an idle handle keeps the loop turning only
    while runnable tasks exist": a paused queue costs no CPU."""
    host = start_host()
    c = host.connect()
    c.result("classes.define", {"name": "Card"})
    r = c.result("range.create", {"count": 50, "itemLength": 50, "viewport": {"width": 100, "height": 100}})["session"]
    c.result("range.willBeginDragging", {"session": r})
    assert c.result("showRendered", {"class": "Card"})["warm"] is False
    st = c.result("tasks.status")
    assert st["pending"] == 1 and st["runnable"] == 0 and st["paused"] is True, st
    t0 = cpu_seconds(host.pid)
    time.sleep(1.0)
    used = cpu_seconds(host.pid) - t0
    assert used < 0.3, f"the host burnt {used:.2f} s of CPU in 1 s with nothing runnable"
    c.result("range.willEndDragging", {"session": r, "velocity": 0})
    c.call("range.didEndDecelerating", {"session": r})
    host.wait_stats(lambda s: s["tasks"]["pending"] == 0, conn=c)


def test_tasks_that_do_not_fit_the_slice_wait_for_the_next_pass(start_host):
    """docs/tasks.md: each pass runs at least one task and stops when the next one's running-average cost will not fit
    in the slice (4 ms): warm-ups costing 20 ms each run one per pass."""
    host = start_host()
    c = host.connect()
    c.result("classes.define", {"name": "Slow", "hooks": {"viewDidLoad": {"costMs": 20}}})
    s0 = c.result("tasks.status")
    c.result("pool.configure", {"class": "Slow", "depth": 4, "policy": "eager"})
    host.wait_stats(lambda s: s["pools"]["idle"] == 4 and s["tasks"]["pending"] == 0, conn=c)
    s1 = c.result("tasks.status")
    ran, passes = s1["ran"] - s0["ran"], s1["passes"] - s0["passes"]
    assert ran == 4 and passes >= 4, (ran, passes)
