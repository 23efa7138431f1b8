"""Integration tests: greenroom.lifecycle against the real host (``greenroom_host``, a virtual clock).

The page gestures give docs/pages.md's orders, which are worked out here by hand from its rules (page *i*
at offset ``i * 375``); the range drag gives docs/ranges.md's fling; the checker catches the one unbalanced
call a client can provoke on purpose (docs/lifecycle.md, "Appearance calls by hand"); ``assert_calls``
passes on calls made by hand and on each container's calls in a push, and fails, readably, on the wrong
order.
"""

from __future__ import annotations

import asyncio

import pytest

from greenroom.aio import AsyncClient
from greenroom.lifecycle import (
    AppearanceChecker,
    LifecycleAssertionError,
    assert_calls,
    assert_page_at_rest,
    assert_page_at_rest_async,
    page_calls,
    range_drag,
    range_drag_async,
    swipe_page,
    swipe_page_async,
)

pytestmark = pytest.mark.integration

W = 375.0
PAGES = {"class": "Container", "count": 5, "width": W, "height": 667, "initialIndex": 1}
# 40 rows of 100 points in a 1000-point viewport (the range client test's list).
ROWS = {"count": 40, "itemLength": 100, "viewport": {"width": 400, "height": 1000}}


class Watcher:
    """Every lifecycle and page event, through the checker, kept for the assertions."""

    def __init__(self) -> None:
        self.checker = AppearanceChecker()
        self.seen: list[dict] = []
        self.pages: list[dict] = []

    def lifecycle(self, params: dict) -> None:
        self.checker.feed(params)
        self.seen.append(params)

    def page(self, params: dict) -> None:
        self.pages.append(params)

    def take(self) -> list[dict]:
        seen, self.seen = self.seen, []
        return seen


def watched(client) -> Watcher:
    watcher = Watcher()
    client.subscribe(["lifecycle", "page"])
    client.on("lifecycle", watcher.lifecycle)
    client.on("page", watcher.page)
    return watcher


def test_swipe_page_gives_docs_pages_md_orders(greenroom_client):
    client = greenroom_client
    w = watched(client)
    session = client.call("page.create", PAGES)["session"]
    w.take()

    # 1 -> 0, a neighbour: Will Appear 0, Will Disappear 1, then at rest Did Appear 0, Did Disappear 1.
    assert swipe_page(client, session, 1, 0, width=W)["index"] == 0
    assert_calls(w.take(), ["willAppear 0", "willDisappear 1", "didAppear 0", "didDisappear 1"], session=session)

    # 0 -> 2: the finger passes page 1 (glimpsed: the turn-back rule ends it at once) and rests on 2.
    swipe_page(client, session, 0, 2, width=W)
    assert page_calls(w.take(), session) == ["willAppear 1", "willDisappear 0",
                                             "willAppear 2", "willDisappear 1", "didDisappear 1",
                                             "didAppear 2", "didDisappear 0"]

    # 2 toward 3, cancelled: 2 appears again, the glimpsed 3 goes; the transition is not completed.
    assert swipe_page(client, session, 2, 3, width=W, cancelled=True)["index"] == 2
    assert_calls(w.take(), ["willAppear 3", "willDisappear 2",
                            "willAppear 2", "didAppear 2", "willDisappear 3", "didDisappear 3"])
    assert w.pages[-1]["kind"] == "didTransition" and w.pages[-1]["completed"] is False

    # 2 -> 1 without deceleration: the view stops where the finger lifts.
    swipe_page(client, session, 2, 1, width=W, decelerate=False)
    assert_calls(w.take(), ["willAppear 1", "willDisappear 2", "didAppear 1", "didDisappear 2"], session=session)

    w.checker.check(at_rest=True)
    assert_page_at_rest(client, session, 1)
    assert client.call("host.stats")["unbalancedTransitions"] == 0


def test_the_checker_catches_an_unbalanced_call_the_host_refused(greenroom_client):
    client = greenroom_client
    w = watched(client)
    container = client.call("container.create", {"class": "Container"})["container"]
    client.call("container.beginAppearanceTransition", {"container": container, "appearing": True})
    client.call("container.endAppearanceTransition", {"container": container})
    w.checker.check(at_rest=True)  # so far, the table's own cells

    client.call("container.endAppearanceTransition", {"container": container})  # appeared: no cell for it
    with pytest.raises(LifecycleAssertionError, match=f"{container} .*the host refused endAppearance in state "
                                                      "appeared"):
        w.checker.check()
    assert [v["call"] for v in w.checker.unbalanced] == ["endAppearance"]
    assert client.call("host.stats")["unbalancedTransitions"] == 1


def test_assert_calls_on_real_events_passes_and_fails_readably(greenroom_client):
    """Two containers driven by hand (docs/lifecycle.md, "Appearance calls by hand"): the host runs each
    call's hook at once, so the order of the calls is the order of the events."""
    client = greenroom_client
    w = watched(client)
    a, b = (client.call("container.create", {"class": "Container"})["container"] for _ in range(2))
    for container, call, appearing in [(a, "begin", True), (b, "begin", True), (a, "end", None),
                                       (b, "end", None), (a, "begin", False), (a, "end", None)]:
        params = {"container": container} if appearing is None else {"container": container, "appearing": appearing}
        client.call(f"container.{call}AppearanceTransition", params)
    seen = w.take()
    assert_calls(seen, [f"{a} willAppear", f"{b} willAppear", f"{a} didAppear", f"{b} didAppear",
                        f"{a} willDisappear", f"{a} didDisappear"])
    assert_calls(seen, {a: ["viewWillAppear", "viewDidAppear", "viewWillDisappear", "viewDidDisappear"],
                        b: ["viewWillAppear", "viewDidAppear"]})
    with pytest.raises(LifecycleAssertionError) as wrong:
        assert_calls(seen, [f"{a} willAppear", f"{a} didAppear", f"{b} willAppear", f"{b} didAppear"])
    assert str(wrong.value).startswith(f"lifecycle calls differ at call 2 (expected 4, got 6):\n"
                                       f"  expected: {a} didAppear\n  got:      {b} willAppear\n")
    assert wrong.value.got[4:] == [f"{a} willDisappear", f"{a} didDisappear"]
    w.checker.check(at_rest=True)


def test_a_stack_push_per_container(greenroom_client):
    """Each container's own calls in a push (the order between the two is the stack's business)."""
    client = greenroom_client
    w = watched(client)
    stack = client.call("stack.create", {"width": 375, "height": 667})["stack"]
    first = client.call("container.create", {"class": "Container"})["container"]
    client.call("stack.push", {"stack": stack, "container": first})
    second = client.call("container.create", {"class": "Container"})["container"]
    w.take()
    client.call("stack.push", {"stack": stack, "container": second, "animated": True})
    assert_calls(w.seen, {first: ["willDisappear"], second: ["willAppear"]})
    client.call("clock.advance", {"ms": 300})
    assert_calls(w.take(), {first: ["willDisappear", "didDisappear"], second: ["willAppear", "didAppear"]})
    w.checker.check(at_rest=True)


def test_range_drag_flings_to_the_hosts_target_frame_by_frame(greenroom_client):
    client = greenroom_client
    client.subscribe(["batch"])
    session = client.call("range.create", ROWS)["session"]

    done = range_drag(client, session, [0, 100, 250, 500], fling=3.0, frame_ms=16)
    # docs/ranges.md: the host works the target out from the velocity, 3 points/ms -> 1497 points on.
    assert done.target == pytest.approx(500 + 3.0 * 499)
    assert done.reply["phase"] == "idle" and done.reply["offset"] == pytest.approx(done.target)
    assert client.call("clock.now")["ms"] == 16 * 6  # three drag frames, three fling frames
    # Judged at the target: 4000 - 1000 - 1997 <= 2 screens of 1000, so the next page is asked for.
    assert [e["kind"] for e in client.events("batch", timeout=0)] == ["willBeginBatchFetch"]

    at_rest = range_drag(client, session, [1997, 1500, 1200])
    assert at_rest.target is None and at_rest.reply["offset"] == 1200 and at_rest.reply["phase"] == "idle"


def test_the_async_gestures_on_the_same_host(greenroom_host):
    async def main() -> None:
        async with AsyncClient(greenroom_host.socket) as client:
            checker = AppearanceChecker()
            seen: list[dict] = []
            await client.subscribe(["lifecycle"])
            client.on("lifecycle", lambda params: (checker.feed(params), seen.append(params)))
            session = (await client.call("page.create", PAGES))["session"]
            await swipe_page_async(client, session, 1, 2, width=W)
            assert page_calls(seen, session)[-4:] == ["willAppear 2", "willDisappear 1", "didAppear 2",
                                                      "didDisappear 1"]
            await assert_page_at_rest_async(client, session, 2)
            checker.check(at_rest=True)

            rows = (await client.call("range.create", ROWS))["session"]
            done = await range_drag_async(client, rows, [0, 400], fling=-1.0, fling_frames=2)
            assert done.target == 0 and done.reply["offset"] == 0  # clamped at the head

    asyncio.run(asyncio.wait_for(main(), 30))
