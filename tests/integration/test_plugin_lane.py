"""While a plugin's hook takes its time in its worker, the host serves everyone else: quick calls (pings,
auth, subscriptions, range streams) answer at once on every connection; calls that may run hooks wait
their turn in the call lane, in order; the waiting connection's later lines run after its call, in order;
a connection that closes while its call waits is torn down once the call ends; shutdown waits for the
call; a hook past its deadline still fails only its container.

The hook that takes its time is Crashy's `wait` mode: it blocks reading a FIFO until the test releases
it, so every test knows the hook is running (the worker opened the FIFO) without sleeping or timing."""

from __future__ import annotations

import errno
import os
import select
import signal
import time

import pytest

from test_plugins import lib


class Gate:
    """A FIFO a Crashy `wait` hook blocks on until `release()`."""

    def __init__(self, directory: str, name: str = "gate"):
        self.path = os.path.join(directory, name)
        os.mkfifo(self.path)
        self.fd: int | None = None

    def data(self, **extra) -> dict:
        return dict({"crash": "wait", "path": self.path}, **extra)

    def wait_entered(self, timeout: float = 10.0) -> None:
        """Returns once the hook has opened the FIFO (it is running and blocked on it)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
                return
            except OSError as e:
                if e.errno != errno.ENXIO or time.monotonic() > deadline:
                    raise AssertionError("the wait hook did not start") from e
            time.sleep(0.01)

    def release(self) -> None:
        if self.fd is None:
            self.wait_entered()
        os.close(self.fd)
        self.fd = None


@pytest.fixture
def lane_host(start_host):
    return start_host("--plugin", lib("CrashyPlugin"), "--hook-timeout-ms", "20000")


def tags(events: list[dict]) -> list[tuple[str, str]]:
    return [(e["params"]["container"], e["params"]["event"]) for e in events if e["method"] == "lifecycle"]


def events_until(conn, done, timeout: float = 10.0) -> list[dict]:
    """Reads notifications into `conn.events` until `done(conn.events)`; returns them."""
    deadline = time.monotonic() + timeout
    while not done(conn.events):
        msg = conn.read_json(max(0.01, deadline - time.monotonic()))
        assert "method" in msg, f"unexpected reply: {msg}"
        conn.events.append(msg)
    return conn.events


def has_line(conn) -> bool:
    """Whether a complete line has arrived (without waiting)."""
    if b"\n" in conn.buf:
        return True
    readable, _, _ = select.select([conn.sock], [], [], 0)
    if readable:
        chunk = conn.sock.recv(1 << 16)
        conn.buf += chunk
        conn.eof = conn.eof or not chunk
    return b"\n" in conn.buf


def test_quick_calls_answer_on_other_connections_while_a_hook_waits(lane_host, tmp_short):
    gate = Gate(tmp_short)
    slow, other = lane_host.connect(), lane_host.connect()
    box = slow.result("container.create", {"class": "Crashy"})["container"]
    session = other.result("range.create", {"count": 1000, "itemLength": 44,
                                             "viewport": {"width": 375, "height": 667}})["session"]
    other.result("events.subscribe", {"topics": ["range"]})
    rid = slow.request("container.configure", {"container": box, "data": gate.data()})
    gate.wait_entered()
    # The hook is blocked in its worker: every quick call on the other connection answers now.
    for i in range(20):
        other.ping()
        reply = other.call("range.didScroll", {"session": session, "offset": 50.0 * (i + 1)})
        assert "result" in reply, reply
    assert "result" in other.call("range.state", {"session": session})
    other.result("events.unsubscribe", {"topics": ["range"]})
    gate.release()
    reply = slow.read_reply(rid)
    assert reply["result"]["output"]["calls"] >= 1, reply
    assert lane_host.stats(other)["lane"]["parks"] >= 1


def test_a_call_on_another_class_passes_a_waiting_hook(lane_host, tmp_short):
    """A create of a scripted class touches nothing the plugin's waiting call does: it runs, answers and
    has its events while the hook waits (before, it waited its turn behind the hook)."""
    gate = Gate(tmp_short)
    observer = lane_host.connect()
    observer.result("events.subscribe", {"topics": ["lifecycle"], "scope": "all"})
    slow, other = lane_host.connect(), lane_host.connect()
    other.result("classes.define", {"name": "Quiet", "hooks": {}})
    box = slow.result("container.create", {"class": "Crashy"})["container"]
    rid = slow.request("container.configure", {"container": box, "data": gate.data()})
    gate.wait_entered()
    quiet = other.result("container.create", {"class": "Quiet"})["container"]
    lane_host.connect().ping()  # a quick call on a third connection is not held either
    gate.release()
    assert "result" in slow.read_reply(rid)
    seen = tags(events_until(observer, lambda evs: (box, "configure") in tags(evs)))
    assert seen.index((quiet, "init")) < seen.index((box, "configure")), seen


def test_a_waiting_connections_later_lines_run_after_its_call_in_order(lane_host, tmp_short):
    gate = Gate(tmp_short)
    slow = lane_host.connect()
    box = slow.result("container.create", {"class": "Crashy"})["container"]
    ids = [slow.request("container.configure", {"container": box, "data": gate.data()}),
           slow.request("host.ping"),
           slow.request("container.info", {"container": box}),
           slow.request("host.ping")]
    gate.wait_entered()
    other = lane_host.connect()
    other.ping()
    gate.release()
    replies = [slow.read_json() for _ in ids]
    assert [r["id"] for r in replies] == ids, replies
    assert all("result" in r for r in replies), replies


def test_a_batch_that_may_run_hooks_waits_whole(lane_host, tmp_short):
    gate = Gate(tmp_short)
    slow = lane_host.connect()
    box = slow.result("container.create", {"class": "Crashy"})["container"]
    slow.send([{"jsonrpc": "2.0", "id": "p", "method": "host.ping"},
               {"jsonrpc": "2.0", "id": "c", "method": "container.configure",
                "params": {"container": box, "data": gate.data()}}])
    gate.wait_entered()
    lane_host.connect().ping()
    gate.release()
    batch = slow.read_json()
    assert [r["id"] for r in batch] == ["p", "c"] and all("result" in r for r in batch), batch


def test_a_connection_closed_while_its_call_waits_is_torn_down_after_it(lane_host, tmp_short):
    gate = Gate(tmp_short)
    observer = lane_host.connect()
    observer.result("events.subscribe", {"topics": ["lifecycle", "host"], "scope": "all"})
    slow = lane_host.connect()
    box = slow.result("container.create", {"class": "Crashy"})["container"]
    slow.request("container.configure", {"container": box, "data": gate.data()})
    gate.wait_entered()
    slow.close()
    observer.ping()
    gate.release()
    seen = events_until(observer, lambda evs: any(
        e["method"] == "host" and e["params"]["kind"] == "connectionClosed" for e in evs))
    order = tags(seen)
    assert order.index((box, "configure")) < order.index((box, "deinit")), order
    stats = lane_host.stats(observer)
    assert stats["containers"]["total"] == 0 and stats["unbalancedTransitions"] == 0


def test_a_hook_past_its_deadline_fails_while_others_are_served(start_host):
    h = start_host("--plugin", lib("CrashyPlugin"), "--hook-timeout-ms", "1500")
    slow, other = h.connect(), h.connect()
    box = slow.result("container.create", {"class": "Crashy"})["container"]
    rid = slow.request("container.configure", {"container": box, "data": {"crash": "sleep", "ms": 60_000}})
    answered = 0
    while True:
        other.ping()
        answered += 1
        if has_line(slow):
            break
    err = slow.read_reply(rid, timeout=10)["error"]
    assert err["code"] == -32004 and err["data"]["reason"] == "timeout", err
    assert answered > 10  # the loop served the other connection all through the deadline
    again = slow.result("container.create", {"class": "Crashy"})["container"]
    assert slow.result("container.configure", {"container": again, "data": {}})["output"]["calls"] >= 1


def test_shutdown_waits_for_the_call_then_tears_down(lane_host, tmp_short):
    gate = Gate(tmp_short)
    observer = lane_host.connect()
    observer.result("events.subscribe", {"topics": ["lifecycle"], "scope": "all"})
    slow = lane_host.connect()
    box = slow.result("container.create", {"class": "Crashy"})["container"]
    rid = slow.request("container.configure", {"container": box, "data": gate.data()})
    gate.wait_entered()
    lane_host.signal(signal.SIGTERM)
    observer.ping()  # still served while shutdown waits for the lane
    gate.release()
    assert "result" in slow.read_reply(rid)
    lines = observer.read_until_closed()
    assert any(b'"deinit"' in line and box.encode() in line for line in lines), lines
    assert lane_host.wait(10) == 0
    assert not os.path.exists(lane_host.socket_path)


def test_a_worker_that_dies_between_calls_is_reported_at_once(lane_host):
    """No call is in flight: the host notices the hang-up itself, reports the crash, tears the lost
    containers down and restarts the worker, before any further request."""
    observer = lane_host.connect()
    observer.result("events.subscribe", {"topics": ["host", "lifecycle"], "scope": "all"})
    owner = lane_host.connect()
    stack = owner.result("stack.create", {"width": 375, "height": 667})["stack"]
    shown = owner.result("showRendered", {"class": "Crashy", "stack": stack})["container"]
    pid = next(p for p in observer.result("host.info")["plugins"] if p["name"] == "crashy")["pid"]
    os.kill(pid, signal.SIGKILL)

    def restarted(evs):
        return any(e["method"] == "host" and e["params"]["kind"] == "pluginRestarted" for e in evs)
    seen = events_until(observer, restarted)
    crash = next(e["params"] for e in seen if e["method"] == "host" and e["params"]["kind"] == "pluginCrashed")
    assert crash["plugin"] == "crashy" and crash["reason"] == "crashed" and crash["signalName"] == "SIGKILL", crash
    assert (shown, "deinit") in tags(seen)
    assert lane_host.stats(observer)["plugins"]["crashes"] == 1
    # The owner's stack lost the container balanced; a new one of the class works.
    assert owner.result("stack.info", {"stack": stack})["containers"] == []
    assert owner.result("showRendered", {"class": "Crashy", "stack": stack})["container"] != shown
    assert lane_host.stats(observer)["unbalancedTransitions"] == 0


def test_a_wait_hook_without_a_fifo_fails_that_container_only(lane_host, tmp_short):
    c = lane_host.connect()
    box = c.result("container.create", {"class": "Crashy"})["container"]
    err = c.call("container.configure", {"container": box, "data": {"crash": "wait", "path": f"{tmp_short}/none"}})["error"]
    assert err["code"] == -32004 and "path" in err["message"], err
    c.ping()
    again = c.result("container.create", {"class": "Crashy"})["container"]
    assert c.result("container.configure", {"container": again, "data": {}})["output"]["calls"] >= 1


def test_a_scripted_hook_cost_parks_its_call_and_pings_pass_it(start_host):
    """A scripted hook's costMs is time its call takes, not time the host stops: while a 1.5 s `init`
    is being spent, another connection's pings answer (their replies come first), and the slow call's
    own connection keeps its order (its ping after the create answers after it)."""
    host = start_host()
    slow, other = host.connect(), host.connect()
    slow.result("classes.define", {"name": "Heavy", "hooks": {"init": {"costMs": 1500}}})
    rid = slow.request("container.create", {"class": "Heavy"})
    after = slow.request("host.ping")
    # The lane took the create: it is parked, spending its cost, while the other connection is served.
    for _ in range(5):
        other.ping()
    assert not has_line(slow), "the create cannot have answered while the pings did"
    lane = host.stats(other)["lane"]
    assert lane["enabled"] and lane["running"], lane
    created = slow.read_reply(rid)
    assert created["result"]["container"].startswith("c-"), created
    assert "result" in slow.read_reply(after)
    assert host.stats(other)["lane"]["parks"] >= 1


@pytest.fixture
def two_plugin_host(start_host):
    return start_host("--plugin", lib("CrashyPlugin"), "--plugin", lib("CounterPlugin"), "--hook-timeout-ms", "20000")


def test_calls_on_another_plugins_containers_pass_a_waiting_hook(two_plugin_host, tmp_short):
    """A call depends on what it touches: while Crashy's hook waits in its worker, a create, a configure
    and a release of a Counter container (another plugin's worker) run and answer; another call on the
    waiting container's plugin, and a call that touches everything (classes.define), wait their turn."""
    gate = Gate(tmp_short)
    slow, other, third = two_plugin_host.connect(), two_plugin_host.connect(), two_plugin_host.connect()
    box = slow.result("container.create", {"class": "Crashy"})["container"]
    crashy2 = third.result("container.create", {"class": "Crashy"})["container"]
    rid = slow.request("container.configure", {"container": box, "data": gate.data()})
    gate.wait_entered()
    counter = other.result("container.create", {"class": "Counter"})["container"]
    assert "result" in other.call("container.configure", {"container": counter, "data": {}})
    assert "result" in other.call("container.release", {"container": counter})
    # The same plugin's other container, and a call on everything, wait behind the hook.
    same = third.request("container.configure", {"container": crashy2, "data": {}})
    fourth = two_plugin_host.connect()
    define = fourth.request("classes.define", {"name": "AfterTheHook"})
    other.ping()
    assert not has_line(third) and not has_line(fourth)
    gate.release()
    assert "result" in slow.read_reply(rid)
    assert "result" in third.read_reply(same)
    assert "result" in fourth.read_reply(define)
    # The create, the configure and the release each started while the hook's call was parked.
    assert two_plugin_host.stats(other)["lane"]["overlapped"] >= 3


def test_shows_and_stack_calls_pass_a_waiting_hook_unless_their_stack_holds_its_plugin(two_plugin_host, tmp_short):
    """A show touches its class's pool and the stack it pushes onto, with every class in that stack: while
    Crashy's hook waits, a Counter show onto a stack of Counters, and a pop of it, run and answer; a show
    onto a stack that holds a Crashy container waits its turn, since the push's hooks reach that one."""
    gate = Gate(tmp_short)
    slow, other, third = two_plugin_host.connect(), two_plugin_host.connect(), two_plugin_host.connect()
    size = {"width": 320, "height": 480}
    box = slow.result("container.create", {"class": "Crashy"})["container"]
    counters = other.result("stack.create", size)["stack"]
    other.result("stack.push", {"stack": counters, "container": other.result("container.create", {"class": "Counter"})["container"]})
    mixed = third.result("stack.create", size)["stack"]
    third.result("stack.push", {"stack": mixed, "container": third.result("container.create", {"class": "Crashy"})["container"]})
    rid = slow.request("container.configure", {"container": box, "data": gate.data()})
    gate.wait_entered()
    shown = other.result("showRendered", {"class": "Counter", "stack": counters})
    assert shown["class"] == "Counter"
    assert other.result("stack.pop", {"stack": counters})["container"] == shown["container"]
    behind = third.request("showRendered", {"class": "Counter", "stack": mixed})
    other.ping()
    assert not has_line(third)
    gate.release()
    assert "result" in slow.read_reply(rid)
    assert third.read_reply(behind)["result"]["class"] == "Counter"
    assert two_plugin_host.stats(other)["lane"]["overlapped"] >= 2


def test_a_page_session_of_another_plugin_passes_a_waiting_hook(two_plugin_host, tmp_short):
    """A page session's calls touch the session and its pages' classes: while Crashy's hook waits, a
    page session of Counters is created, scrolled to its next page and shown, and answers; a call on a
    page session of Crashy pages waits its turn."""
    gate = Gate(tmp_short)
    slow, other, third = two_plugin_host.connect(), two_plugin_host.connect(), two_plugin_host.connect()
    size = {"width": 320, "height": 480}
    box = slow.result("container.create", {"class": "Crashy"})["container"]
    crashy_pages = third.result("page.create", {"class": "Crashy", "count": 3, **size})["session"]
    rid = slow.request("container.configure", {"container": box, "data": gate.data()})
    gate.wait_entered()
    counters = other.result("page.create", {"class": "Counter", "count": 3, **size})["session"]
    assert other.result("page.show", {"session": counters, "index": 1, "animated": False})["index"] == 1
    assert other.result("page.info", {"session": counters})["index"] == 1
    behind = third.request("page.show", {"session": crashy_pages, "index": 1, "animated": False})
    other.ping()
    assert not has_line(third)
    gate.release()
    assert "result" in slow.read_reply(rid)
    assert third.read_reply(behind)["result"]["index"] == 1
    assert two_plugin_host.stats(other)["lane"]["overlapped"] >= 3


def test_a_range_stream_with_another_plugins_cells_passes_a_waiting_hook(two_plugin_host, tmp_short):
    """A range call touches its session and its cells' classes: while Crashy's hook waits, a session whose
    cells are Counters scrolls (its new rows bound in the Counter worker) and answers; one whose cells
    are Crashy waits its turn."""
    gate = Gate(tmp_short)
    slow, other, third = two_plugin_host.connect(), two_plugin_host.connect(), two_plugin_host.connect()
    vp = {"width": 375, "height": 667}

    def cells_of(conn, cls):
        return conn.result("range.create", {"viewport": vp, "cells": {"reuseLimit": 4},
                                            "sections": [{"count": 200, "itemLength": 100, "reuseIdentifier": cls}]})["session"]

    box = slow.result("container.create", {"class": "Crashy"})["container"]
    counters, crashies = cells_of(other, "Counter"), cells_of(third, "Crashy")
    rid = slow.request("container.configure", {"container": box, "data": gate.data()})
    gate.wait_entered()
    other.result("range.willBeginDragging", {"session": counters})
    other.result("range.didScroll", {"session": counters, "offset": 3000})
    bound = other.result("range.state", {"session": counters})["cells"]["bound"]
    assert bound and all(b["path"][1] >= 20 for b in bound), bound
    behind = third.request("range.didScroll", {"session": crashies, "offset": 3000})
    other.ping()
    assert not has_line(third)
    gate.release()
    assert "result" in slow.read_reply(rid)
    assert "result" in third.read_reply(behind)
    assert two_plugin_host.stats(other)["lane"]["overlapped"] >= 3
