"""Integration tests: a range session (docs/ranges.md) driven through the Python client, sync and asyncio.

A short flow on the ``greenroom_host`` / ``greenroom_client`` fixtures (virtual clock): create a list,
drag, fling, get the batch fetch, answer it with ``range.batchFetchDone``. Events arrive through
``on("range")`` handlers and through ``events()``; errors are typed.
"""

from __future__ import annotations

import asyncio

import pytest

from greenroom.aio import AsyncClient
from greenroom.errors import InvalidParams, InvalidState, UnknownObject

pytestmark = pytest.mark.integration

# 40 rows of 100 points in a 1000-point viewport: 4000 points, no batch until 2 screens from the end.
CREATE = {"count": 40, "itemLength": 100, "viewport": {"width": 400, "height": 1000}}
FRAMES = [100.0, 250.0, 500.0]  # the drag, one frame per 16 ms
VELOCITY = 3.0  # points per ms at release: the fling stops 1497 points further, at 1997


def rows(paths: list) -> list[int]:
    return [row for _, row in paths]


def check_flow(ranges: list[dict], batches: list[dict], prefetch: list[dict], session: str,
               created: dict, target: dict, done: dict) -> None:
    """What the flow must have produced, whichever client drove it."""
    assert created["mode"] == "minimum" and created["count"] == 40 and created["batchInFlight"] is None
    assert all(p["session"] == session for p in ranges + batches + prefetch)
    # create: rows 0-9 visible; minimum display to 1250 points, preload to 1500.
    first = ranges[0]
    assert first["mode"] == "minimum" and first["direction"] == "down"
    assert rows(first["enter"]["visible"]) == list(range(10))
    assert sorted(rows(first["enter"]["preload"])) == list(range(15))
    # willBeginDragging: full mode, preload 2.5 screens ahead.
    assert ranges[1]["mode"] == "full" and max(rows(ranges[1]["enter"]["preload"])) == 34
    seqs = [p["seq"] for p in ranges]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert [p["t"] for p in ranges] == sorted(p["t"] for p in ranges)
    assert target["targetOffset"] == pytest.approx(500 + VELOCITY * 499)
    # Judged at the target: 4000 - 1000 - 1997 <= 2 * 1000.
    [batch] = batches
    assert batch["kind"] == "willBeginBatchFetch" and batch["prepend"] is False
    assert done["count"] == 60 and done["batchInFlight"] is None
    assert any(p["kind"] == "prefetchItems" for p in prefetch)
    # Every row that entered preload and was not on screen at that moment was announced for prefetching.
    announced = {row for p in prefetch if p["kind"] == "prefetchItems" for row in rows(p["paths"])}
    assert set(range(10, 35)) <= announced


def test_sync_flow_with_handlers_and_events(greenroom_client):
    client = greenroom_client
    client.subscribe(["range", "prefetch", "batch"])
    ranges: list[dict] = []

    @client.on("range")
    def on_range(params):
        ranges.append(params)

    created = client.call("range.create", CREATE)
    session = created["session"]
    assert len(ranges) == 1  # the handler ran before call() returned
    client.call("range.willBeginDragging", {"session": session, "offset": 0})
    for x in FRAMES:
        client.call("clock.advance", {"ms": 16})
        client.call("range.didScroll", {"session": session, "offset": x})
    target = client.call("range.willEndDragging", {"session": session, "velocity": VELOCITY})
    [batch] = [e.params for e in client.events("batch", timeout=0)]
    assert batch["context"] == client.call("range.setVisible", {"session": session, "visible": True})["batchInFlight"]
    for x in (900.0, 1500.0, 1997.0):
        client.call("clock.advance", {"ms": 16})
        client.call("range.didScroll", {"session": session, "offset": x})
    assert client.call("range.didEndDecelerating", {"session": session})["phase"] == "idle"
    client.call("clock.advance", {"ms": 150})
    done = client.call("range.batchFetchDone", {"session": session, "context": batch["context"],
                                                "lengths": [100] * 20})
    prefetch = [e.params for e in client.events("prefetch", timeout=0)]
    check_flow(ranges, [batch], prefetch, session, created, target, done)
    # Six 16 ms frames (drag, fling): the last update is at 96 ms. The batch's rows arrive after 150 ms of
    # network below the screen: nothing on screen changes, so they are marked at the next update (Texture).
    assert ranges[-1]["t"] == 96.0

    state = client.call("range.state", {"session": session})
    assert state["mode"] == "full" and rows(state["visible"]) == list(range(19, 30))
    with pytest.raises(InvalidParams) as caught:
        client.call("range.didScroll", {"session": session, "offset": -1e9})
    assert caught.value.code == -32602 and caught.value.data["path"] == "offset"
    with pytest.raises(InvalidParams) as caught:
        client.call("range.batchFetchDone", {"session": session, "context": batch["context"]})
    assert caught.value.data["path"] == "context"
    with pytest.raises(InvalidState):
        client.call("range.willEndDragging", {"session": session, "velocity": 1})
    assert client.call("range.destroy", {"session": session})["destroyed"] is True
    with pytest.raises(UnknownObject):
        client.call("range.state", {"session": session})


def test_async_flow_with_handlers_and_events(greenroom_host):
    async def main():
        async with AsyncClient(greenroom_host.socket) as client:
            await client.subscribe(["range", "prefetch", "batch"])
            ranges: list[dict] = []

            async def on_range(params):
                ranges.append(params)

            client.on("range", on_range)
            created = await client.call("range.create", CREATE)
            session = created["session"]
            assert len(ranges) == 1  # handlers of events before a reply have run when it returns
            await client.call("range.willBeginDragging", {"session": session, "offset": 0})
            for x in FRAMES:
                await client.call("clock.advance", {"ms": 16})
                await client.call("range.didScroll", {"session": session, "offset": x})
            target = await client.call("range.willEndDragging", {"session": session, "velocity": VELOCITY})
            batches = [event.params async for event in client.events("batch", timeout=0.2)]
            for x in (900.0, 1500.0, 1997.0):
                await client.call("range.didScroll", {"session": session, "offset": x})
            await client.call("range.didEndDecelerating", {"session": session})
            done = await client.call("range.batchFetchDone", {"session": session, "context": batches[0]["context"],
                                                              "lengths": [100] * 20})
            prefetch = [event.params async for event in client.events("prefetch", timeout=0.2)]
            check_flow(ranges, batches, prefetch, session, created, target, done)
            with pytest.raises(InvalidParams) as caught:
                await client.call("range.insertItems", {"session": session, "at": [3, 0], "lengths": [1]})
            assert caught.value.data["path"] == "at[0]"

    asyncio.run(asyncio.wait_for(main(), 30))
