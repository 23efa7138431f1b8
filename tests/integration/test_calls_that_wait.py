"""Calls that wait (issue 38): a call's reply is its own, whatever other connections' calls do while it waits.

A call that may run hooks waits in the call lane while a hook takes its time (a scripted `costMs`, a plugin
worker's reply), and a call of another connection that touches nothing it touches runs meanwhile
(docs/plugins.md). Each test here overlaps two such calls, or a waiting call and a quick one, and asserts the
reply the waiting call gets when nothing overlaps it (the scripts in the issue print it with `--b none`):

- a page call whose settle fails to make a child and then waits (the page it started from comes back, on a
  costly hook) keeps its own error: the one naming its own class and container (-32004), or its own
  memory-budget refusal (-32005), never the generic "A page's container failed in init" nor the error of
  another session's call that ran meanwhile; that call, too, gets its own;
- under the virtual clock, a waiting call's `note` counts the idle tasks its own call left, not a
  `tasks.add` or `tasks.cancel` another connection made while it waited;
- when no stack can be mapped for a call (the address-space limit is lowered), a scripted cost still lets
  other connections' pings through, and a ping answered while a call waits for its worker leaves that
  call's failure in its reply.

Each failed while calls waited on stacks of their own and swapped their state in and out of host-wide
slots: the first six until a page call's child error and a call's note counts became values of the call
(`PageSessions.driveReporting`, `Host.CallNotes`), the two with no stack until calls waited as Swift tasks
on the loop, each with its own state (`CallLane`, `CallScope`): a task needs no stack to be mapped.

How the tests know a call is waiting, without timing it:
- a plugin hook waits on a FIFO (slow_worker_plugin.py's `Gated<TAG>`, `test_plugin_lane.Gate`): the hook has
  opened it, so the call is parked, until the test lets it go;
- a scripted cost takes real time (a hook's `costMs` is real even under `--clock virtual`): the call's
  events up to the failure arrive before it parks, and the other connection's call goes in at once; the
  cost (COST_MS) is hundreds of times what that takes, and each test checks the overlap happened from the
  order of the replies (the other call answered while the first still had not), never from a clock.
"""

from __future__ import annotations

import os
import resource
import select
import sys
from pathlib import Path

import pytest

from test_plugin_lane import Gate

WORKER = Path(__file__).resolve().parent / "slow_worker_plugin.py"

#: A scripted hook's cost where a call must wait: long enough that a loaded two-core machine answers the
#: other connection's call well within it (that takes milliseconds), short enough for the file's time.
COST_MS = 1500
#: How long a reply may take, at most, once nothing holds it (a cost, a gate).
REPLY_TIMEOUT = 15.0
SIZE = {"width": 100, "height": 100}
MiB = 1 << 20


# -- helpers -------------------------------------------------------------------------------------------


class Peer:
    """A raw connection (grhost.LineConn) that files whatever arrives while the test looks elsewhere: events
    in order (`conn.events`), replies by id, so a test can wait for an event on one connection while a call
    of its is still out, and ask whether a reply has come without waiting for it."""

    def __init__(self, conn):
        self.conn = conn
        self.replies: dict = {}

    @property
    def events(self) -> list[dict]:
        return self.conn.events

    def result(self, method: str, params=None):
        reply = self.reply(self.request(method, params))
        assert "result" in reply, f"{method} {params} failed: {reply}"
        return reply["result"]

    def request(self, method: str, params=None) -> int:
        return self.conn.request(method, params)

    def _file(self, msg) -> None:
        if isinstance(msg, dict) and "method" in msg and "id" not in msg:
            self.conn.events.append(msg)
        else:
            assert isinstance(msg, dict) and "id" in msg, f"unexpected message: {msg}"
            self.replies[msg["id"]] = msg

    def _read_arrived(self) -> None:
        """Files every complete line that has already arrived, without waiting."""
        c = self.conn
        while select.select([c.sock], [], [], 0)[0] and not c.eof:
            chunk = c.sock.recv(1 << 16)
            c.buf += chunk
            c.eof = not chunk
        while b"\n" in c.buf:
            self._file(c.read_json(0.01))

    def pending(self, rid) -> bool:
        """Whether the reply to `rid` has not arrived yet (looks at what has arrived, never waits)."""
        self._read_arrived()
        return rid not in self.replies

    def reply(self, rid, timeout: float = REPLY_TIMEOUT) -> dict:
        while rid not in self.replies:
            self._file(self.conn.read_json(timeout))
        return self.replies.pop(rid)

    def error(self, rid, timeout: float = REPLY_TIMEOUT) -> dict:
        reply = self.reply(rid, timeout)
        assert "error" in reply, f"expected an error: {reply}"
        return reply["error"]

    def event(self, container_class: str, hook: str, timeout: float = REPLY_TIMEOUT) -> dict:
        """The first lifecycle event (received, or to come) of `hook` on a container of `container_class`."""
        def match(e):
            p = e["params"]
            return e["method"] == "lifecycle" and p["class"] == container_class and p["event"] == hook
        while not any(match(e) for e in self.events):
            self._file(self.conn.read_json(timeout))
        return next(e["params"] for e in self.events if match(e))


def peer(host, *topics) -> Peer:
    p = Peer(host.connect(timeout=REPLY_TIMEOUT))
    if topics:
        p.result("events.subscribe", {"topics": list(topics)})
    return p


def define(c: Peer, name: str, **hooks) -> None:
    """A scripted class whose hooks are given as keyword arguments (`viewWillAppear={"costMs": 1500}`)."""
    params = {"name": name, "hooks": hooks}
    c.result("classes.define", params)


def drag_toward_page_0(c: Peer, session: str) -> None:
    """From page 1 of a session of 100-point pages: the drag begins, page 0 starts to come in (the guess).
    Resting on page 2 after this (`page.didEndDragging` at 200) settles there, or, when page 2's child cannot
    be made, brings page 1 back: its viewWillAppear and viewDidAppear run again, in that call."""
    assert c.result("page.willBeginDragging", {"session": session, "offset": 100})["phase"] == "dragging"
    assert c.result("page.didScroll", {"session": session, "offset": 90})["guess"] == 0


def rest_on_page_2(c: Peer, session: str) -> int:
    """Sends the end of the drag, resting on page 2; returns the request's id (the reply is not waited for)."""
    return c.request("page.didEndDragging", {"session": session, "offset": 200, "willDecelerate": False})


def three_pages(x: str) -> list[dict]:
    """Page 0 of a class that costs nothing, page 1 (the current one) of a class whose viewWillAppear waits,
    page 2 of a class whose child cannot be made."""
    return [{"class": f"Quick{x}"}, {"class": f"Slow{x}"}, {"class": f"Fail{x}"}]


def failure(err: dict) -> dict:
    """What says whose failure an error is: its code and kind, the failed hook's container, class and hook, and
    the message's first word (`FailA.init`)."""
    data = err.get("data", {})
    return {"code": err["code"], "kind": data.get("kind"), "class": data.get("class"),
            "container": data.get("container"), "hook": data.get("hook"), "message": err["message"].split(" ", 1)[0]}


def own_failure(cls: str, container: str, hook: str = "init") -> dict:
    """`failure` of the -32004 a call gets when `hook` failed on its container `container` (of `cls`), as it
    is when nothing overlaps the call."""
    return {"code": -32004, "kind": "pluginFailed", "class": cls, "container": container, "hook": hook,
            "message": f"{cls}.{hook}"}


def plugin_host(start_host, gates_dir: str, *tags: str):
    """A virtual-clock host with one slow_worker_plugin.py worker per tag, each with its gate in `gates_dir`."""
    args = []
    for tag in tags:
        args += ["--plugin-command", f"{sys.executable} {WORKER} {tag} {os.path.join(gates_dir, 'gate-' + tag)}"]
    return start_host("--clock", "virtual", *args, "--hook-timeout-ms", "20000")


def close_gate(gate: Gate) -> None:
    """Lets the hook waiting on `gate` go, and leaves no FIFO for a later hook to wait on."""
    os.unlink(gate.path)
    gate.release()


def leave_no_room_for_a_stack(host) -> None:
    """Lowers the running host's address-space limit (RLIMIT_AS, soft) to what it has mapped now plus 4 MiB:
    less than one call's stack (8 MiB and a guard page, Sources/GreenroomHost/Connections/Coroutine.swift),
    so from here on no stack can be mapped, and a call that may wait runs on the loop's own stack (the call
    lane's fallback). Done right after the ready line, before any call made a stack, so that it holds for
    every call: nothing is left to chance (which call gets the one stack there was). The limit is relative to
    the host's own size, so it is set on the running process rather than before exec."""
    with open(f"/proc/{host.pid}/status") as f:
        vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    _, hard = resource.prlimit(host.pid, resource.RLIMIT_AS)
    limit = vm + 4 * MiB
    assert hard == resource.RLIM_INFINITY or hard >= limit, (hard, limit)
    resource.prlimit(host.pid, resource.RLIMIT_AS, (limit, hard))


# -- a page call's own error (leak1, leak4) -------------------------------------------------------------


def test_a_page_failure_keeps_its_error_while_another_sessions_call_runs(vhost):
    a, b = peer(vhost, "lifecycle"), peer(vhost)
    define(a, "QuickA")
    define(a, "SlowA", viewWillAppear={"costMs": COST_MS})
    define(a, "FailA", init={"fail": True})
    mine = a.result("page.create", {"pages": three_pages("A"), "initialIndex": 1, **SIZE})["session"]
    other = b.result("page.create", {"class": "Container", "count": 3, **SIZE})["session"]
    drag_toward_page_0(a, mine)

    rid = rest_on_page_2(a, mine)
    failed = a.event("FailA", "deinit")["container"]  # page 2 could not be made; page 1 comes back, slowly
    theirs = b.request("page.willBeginDragging", {"session": other, "offset": 0})
    assert b.reply(theirs)["result"]["phase"] == "dragging"
    assert a.pending(rid), "the other session's call was to run while this one waited"

    assert failure(a.error(rid)) == own_failure("FailA", failed)


def test_two_page_failures_each_keep_their_own_error(vhost):
    a, b = peer(vhost, "lifecycle"), peer(vhost, "lifecycle")
    for x in "AB":
        define(a, f"Quick{x}")
        define(a, f"Slow{x}", viewWillAppear={"costMs": COST_MS})
        define(a, f"Fail{x}", init={"fail": True})
    mine, theirs = (c.result("page.create", {"pages": three_pages(x), "initialIndex": 1, **SIZE})["session"]
                    for c, x in ((a, "A"), (b, "B")))
    drag_toward_page_0(a, mine)
    drag_toward_page_0(b, theirs)

    ra = rest_on_page_2(a, mine)
    failed_a = a.event("FailA", "deinit")["container"]
    rb = rest_on_page_2(b, theirs)
    failed_b = b.event("FailB", "deinit")["container"]
    assert a.pending(ra), "the second call was to fail its child while the first waited"

    replies = [failure(a.error(ra)), failure(b.error(rb))]
    assert replies == [own_failure("FailA", failed_a), own_failure("FailB", failed_b)]


def test_a_page_memory_refusal_stays_32005_while_another_sessions_call_runs(start_host):
    # Room for one SlowA (1 MiB) and not for a FailA beside it.
    host = start_host("--clock", "virtual", "--scripted-memory-budget-bytes", str(3 * MiB // 2))
    a, b = peer(host, "lifecycle"), peer(host)
    define(a, "QuickA")
    a.result("classes.define", {"name": "SlowA", "hooks": {"viewWillAppear": {"costMs": COST_MS}}, "memoryBytes": MiB})
    a.result("classes.define", {"name": "FailA", "hooks": {}, "memoryBytes": MiB})
    mine = a.result("page.create", {"pages": three_pages("A"), "initialIndex": 1, **SIZE})["session"]
    other = b.result("page.create", {"class": "Container", "count": 3, **SIZE})["session"]
    drag_toward_page_0(a, mine)

    rid = rest_on_page_2(a, mine)
    # Page 0 goes; page 2's FailA is refused before it is made (no event); page 1 comes back, slowly.
    a.event("QuickA", "viewDidDisappear")
    theirs = b.request("page.willBeginDragging", {"session": other, "offset": 0})
    assert b.reply(theirs)["result"]["phase"] == "dragging"
    assert a.pending(rid), "the other session's call was to run while this one waited"

    err = a.error(rid)
    data = err["data"]
    assert {"code": err["code"], "kind": data["kind"], "limit": data.get("limit"), "class": data.get("class")} == \
        {"code": -32005, "kind": "limitExceeded", "limit": "scriptedMemoryBytes", "class": "FailA"}, err
    assert not any(e["params"]["class"] == "FailA" for e in a.events if e["method"] == "lifecycle"), a.events


def test_two_plugin_page_failures_each_keep_their_own_error(start_host, tmp_short):
    host = plugin_host(start_host, tmp_short, "P1", "P2")
    a, b = peer(host, "lifecycle"), peer(host, "lifecycle")
    sessions = []
    for c, x in ((a, "P1"), (b, "P2")):
        pages = [{"class": f"Gated{x}"}, {"class": f"Gated{x}"}, {"class": f"Fail{x}"}]
        sessions.append(c.result("page.create", {"pages": pages, "initialIndex": 1, **SIZE})["session"])
        drag_toward_page_0(c, sessions[-1])
    gate_a, gate_b = Gate(tmp_short, "gate-P1"), Gate(tmp_short, "gate-P2")

    ra = rest_on_page_2(a, sessions[0])
    gate_a.wait_entered()  # FailP1 could not be made; page 1's viewWillAppear waits in worker slow-p1
    rb = rest_on_page_2(b, sessions[1])
    gate_b.wait_entered()  # FailP2 could not be made; page 1's viewWillAppear waits in worker slow-p2
    close_gate(gate_a)
    err_a = a.error(ra)
    close_gate(gate_b)
    err_b = b.error(rb)

    assert [failure(err_a), failure(err_b)] == [own_failure("FailP1", a.event("FailP1", "deinit")["container"]),
                                                own_failure("FailP2", b.event("FailP2", "deinit")["container"])]
    assert (err_a["data"]["plugin"], err_b["data"]["plugin"]) == ("slow-p1", "slow-p2")


# -- a waiting call's virtual-clock note (leak2) ---------------------------------------------------------


def test_a_waiting_calls_note_leaves_out_another_connections_task_add(start_host, tmp_short):
    host = plugin_host(start_host, tmp_short, "P")
    a, b = peer(host), peer(host)
    gate = Gate(tmp_short, "gate-P")
    rid = a.request("page.create", {"class": "GatedP", "count": 3, **SIZE})  # queues no task
    gate.wait_entered()
    assert b.result("tasks.add", {"key": "b-task", "mode": "common", "costMs": 0})["queued"] is True
    close_gate(gate)

    created = a.reply(rid)["result"]
    assert "note" not in created, created
    # The task is B's alone, and still waits for tasks.drain.
    assert [t["key"] for t in a.result("tasks.status")["tasks"]] == ["task:b-task"]


def test_a_waiting_calls_note_keeps_its_task_when_another_connection_cancels(start_host, tmp_short):
    host = plugin_host(start_host, tmp_short, "P")
    a, b = peer(host), peer(host)
    assert b.result("tasks.add", {"key": "b-task", "mode": "common", "costMs": 0})["queued"] is True
    gate = Gate(tmp_short, "gate-P")
    # offscreenLimit 1: the creation queues one preload task (docs/pages.md).
    rid = a.request("page.create", {"class": "GatedP", "count": 3, "offscreenLimit": 1, **SIZE})
    gate.wait_entered()
    assert b.result("tasks.cancel", {"key": "b-task"})["cancelled"] is True
    close_gate(gate)

    created = a.reply(rid)["result"]
    assert "1 idle task" in created.get("note", "") and "tasks.drain" in created["note"], created
    assert [t["key"] for t in a.result("tasks.status")["tasks"]] == [f"preload:{created['session']}"]


# -- when no stack can be mapped (leak3, leak5) ------------------------------------------------------------


def test_pings_pass_a_scripted_cost_when_no_stack_can_be_mapped(vhost):
    leave_no_room_for_a_stack(vhost)
    slow, other = peer(vhost), peer(vhost)
    define(slow, "Heavy", init={"costMs": COST_MS})
    rid = slow.request("container.create", {"class": "Heavy"})
    after = slow.request("host.ping")
    for _ in range(5):
        assert other.result("host.ping") == {"pong": True}
    assert slow.pending(rid), "the create answered before the other connection's pings: its cost held the loop"
    assert slow.reply(rid)["result"]["container"].startswith("c-")
    assert slow.reply(after)["result"] == {"pong": True}


def test_a_ping_while_a_stackless_call_waits_keeps_its_failure(start_host, tmp_short):
    host = plugin_host(start_host, tmp_short, "P")
    leave_no_room_for_a_stack(host)
    b, c = peer(host), peer(host)
    stack = b.result("stack.create", SIZE)["stack"]
    covered = b.result("container.create", {"class": "FlakyP", "data": {"failOn": "viewWillDisappear"}})["container"]
    b.result("stack.push", {"stack": stack, "container": covered, "animated": False})
    top = b.result("container.create", {"class": "GatedP"})["container"]
    gate = Gate(tmp_short, "gate-P")

    # The covered container fails its viewWillDisappear, then the new top's viewWillAppear waits.
    rid = b.request("stack.push", {"stack": stack, "container": top, "animated": False})
    gate.wait_entered()
    assert c.result("host.ping") == {"pong": True}
    close_gate(gate)

    reply = b.reply(rid)
    assert "error" in reply, f"the push answered success: the covered container's failure was lost: {reply}"
    assert failure(reply["error"]) == own_failure("FlakyP", covered, "viewWillDisappear")
    assert reply["error"]["data"]["result"]["containers"] == [top], reply  # the push itself was done
