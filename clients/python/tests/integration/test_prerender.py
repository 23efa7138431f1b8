"""Integration tests: the prerender flow of docs/pools.md through the Python client, against the real host.

A virtual-clock host (the ``greenroom_host`` / ``greenroom_client`` fixtures): a ``showRendered`` miss
returns a fresh container and schedules one warm-up, ``tasks.drain`` runs it in the green room
(offscreen), the next ``showRendered`` is a hit. Host errors arrive as typed exceptions.
"""

from __future__ import annotations

import asyncio

import pytest

from greenroom import Client
from greenroom.aio import AsyncClient
from greenroom.errors import InvalidParams, InvalidState, PluginFailed, RPCError, UnknownClass, UnknownObject

pytestmark = pytest.mark.integration


def drained(client: Client) -> list:
    """The events that have arrived (they are read by the time a call returns), as (topic, params)."""
    return [(e.topic, e.params) for e in client.events(["lifecycle", "pool"], timeout=0)]


def hooks(events: list, container: str) -> list[str]:
    return [p["event"] for topic, p in events if topic == "lifecycle" and p["container"] == container]


def test_miss_drain_hit(greenroom_client):
    client = greenroom_client
    client.subscribe(["lifecycle", "pool"])
    client.call("classes.define", {"name": "Web", "hooks": {"viewDidLoad": {"costMs": 5},
                                                            "configure": {"output": {"loaded": True}}}})
    stack = client.call("stack.create", {"width": 375, "height": 667})["stack"]

    miss = client.call("showRendered", {"class": "Web", "stack": stack, "data": {"url": "https://m.you.163.com"}})
    assert miss["warm"] is False and miss["output"] == {"loaded": True}, miss
    cold = miss["container"]
    events = drained(client)
    assert hooks(events, cold) == ["init", "willMoveToParent", "loadView", "viewDidLoad", "viewWillAppear",
                                   "viewIsAppearing", "viewWillLayoutSubviews", "viewDidLayoutSubviews", "viewDidAppear", "didMoveToParent",
                                   "configure"]
    assert [p["kind"] for topic, p in events if topic == "pool"] == ["miss"]
    assert all(p["offscreen"] is False for topic, p in events if topic == "lifecycle")

    status = client.call("tasks.status")
    assert status["automatic"] is False and status["pending"] == 1, status
    assert drained(client) == []  # a virtual clock: nothing warms until tasks.drain

    assert client.call("tasks.drain")["ran"] == 1
    events = drained(client)
    [warmed] = [p for topic, p in events if topic == "pool"]
    assert warmed["kind"] == "warmed" and warmed["idle"] == 1
    warm = warmed["container"]
    assert hooks(events, warm)[:4] == ["init", "willMoveToParent", "loadView", "viewDidLoad"]
    assert all(p["offscreen"] is True for topic, p in events if topic == "lifecycle")

    hit = client.call("showRendered", {"class": "Web", "stack": stack, "data": {"url": "https://m.you.163.com"}})
    assert "tasks.drain" in hit.pop("note")  # the virtual clock's hint: the replacement waits for tasks.drain
    assert hit == {"container": warm, "class": "Web", "warm": True, "output": {"loaded": True}}
    events = drained(client)
    assert hooks(events, warm) == ["willMoveToParent", "viewWillDisappear", "viewDidDisappear", "didMoveToParent",
                                   "willMoveToParent", "viewWillAppear", "viewIsAppearing", "viewDidAppear", "didMoveToParent",
                                   "configure"]
    assert [p["offscreen"] for topic, p in events if topic == "lifecycle" and p["container"] == warm] == \
        [True] * 4 + [False] * 6
    assert hooks(events, cold) == ["viewWillDisappear", "viewDidDisappear"]

    [pool] = client.call("pool.status", {"class": "Web"})["pools"]
    assert (pool["hits"], pool["misses"], pool["idle"]) == (1, 1, 0), pool
    assert client.call("host.stats")["unbalancedTransitions"] == 0


def test_typed_errors(greenroom_client):
    client = greenroom_client
    stack = client.call("stack.create", {"width": 375, "height": 667})["stack"]
    container = client.call("container.create", {"class": "Container"})["container"]
    client.call("stack.push", {"stack": stack, "container": container})

    with pytest.raises(InvalidState) as caught:
        client.call("stack.push", {"stack": stack, "container": container})
    assert caught.value.code == -32003 and caught.value.kind == "invalidState"
    assert caught.value.data["container"] == container and caught.value.data["stack"] == stack

    with pytest.raises(UnknownClass) as caught:
        client.call("showRendered", {"class": "NoSuchClass", "stack": stack})
    assert caught.value.code == -32001 and caught.value.data["class"] == "NoSuchClass"
    assert caught.value.data["path"] == "class" and "Container" in caught.value.data["known"]

    client.call("classes.define", {"name": "Broken", "hooks": {"viewDidLoad": {"fail": True}}})
    with pytest.raises(PluginFailed) as caught:
        client.call("showRendered", {"class": "Broken", "stack": stack})
    error = caught.value
    assert error.code == -32004 and error.kind == "pluginFailed"
    assert error.data["hook"] == "viewDidLoad" and error.data["class"] == "Broken"
    # Only that container was torn down.
    with pytest.raises(UnknownObject):
        client.call("container.info", {"container": error.data["container"]})
    assert client.call("stack.info", {"stack": stack})["containers"] == [container]
    assert client.call("container.info", {"container": container})["state"] == "appeared"

    with pytest.raises(InvalidParams) as caught:
        client.call("stack.create", {"width": -1, "height": 667})
    assert caught.value.data["path"] == "width"
    with pytest.raises(InvalidState) as caught:
        client.call("classes.define", {"name": "Broken"})  # names are never replaced
    assert isinstance(caught.value, RPCError) and caught.value.data["class"] == "Broken"
    assert client.ping()


def test_memory_warning_purges_the_pool(greenroom_client):
    client = greenroom_client
    client.call("classes.define", {"name": "Heavy", "memoryBytes": 1 << 20})
    client.call("pool.configure", {"class": "Heavy", "depth": 4, "policy": "eager"})
    client.call("tasks.drain")
    assert client.call("host.stats")["containers"]["pooled"] == 4
    purged = client.call("host.memoryWarning", {"level": "critical"})["purged"]
    assert purged["pooledContainers"] == 4 and purged["pooledBytes"] == 4 << 20, purged
    assert client.call("host.stats")["containers"]["pooled"] == 0
    assert client.call("pool.status", {"class": "Heavy"})["pools"][0]["coolingDown"] is True
    client.call("clock.advance", {"ms": 5000})
    client.call("tasks.drain")
    assert client.call("pool.status", {"class": "Heavy"})["pools"][0]["idle"] == 4


def test_async_client_miss_drain_hit(greenroom_host):
    async def main():
        async with AsyncClient(greenroom_host.socket) as client:
            await client.subscribe("pool")
            await client.call("classes.define", {"name": "Card"})
            assert (await client.call("showRendered", {"class": "Card"}))["warm"] is False
            await client.call("tasks.drain")
            assert (await client.call("showRendered", {"class": "Card"}))["warm"] is True
            kinds = [event["kind"] async for event in client.events("pool", timeout=0.2)]
            assert kinds == ["miss", "warmed", "hit"], kinds
            with pytest.raises(UnknownClass):
                await client.call("pool.warm", {"class": "Nope"})

    asyncio.run(asyncio.wait_for(main(), 30))


def test_a_reply_held_for_the_appearance_with_the_sync_client(greenroom_client):
    """`reply: "afterAppear"` answers once the container has appeared; under the virtual clock that takes a
    `clock.advance` from the same client, so the request is started and its reply taken afterwards."""
    client = greenroom_client
    client.call("classes.define", {"name": "Card", "hooks": {"configure": {"output": {"ok": True}}}})
    stack = client.stack.create(375, 667)
    shown = client.start("showRendered", {"class": "Card", "stack": stack.id, "animated": True, "data": {"n": 1},
                                          "present": "onSuccess", "reply": "afterAppear"})
    assert not shown.done
    assert client.ping()  # the connection goes on
    assert not shown.done
    client.clock.advance(300)
    assert shown.done, "the held reply came before clock.advance's"
    result = shown.result()
    assert result["transitionMs"] == 300 and result["output"] == {"ok": True}, result
    # A failure is raised by result(), as call() raises it.
    client.call("classes.define", {"name": "Shy", "hooks": {"viewDidAppear": {"fail": True}}})
    failing = client.start("showRendered", {"class": "Shy", "stack": stack.id, "animated": True,
                                            "reply": "afterAppear"})
    client.clock.advance(300)
    with pytest.raises(PluginFailed) as info:
        failing.result()
    assert info.value.data["hook"] == "viewDidAppear"


def test_a_pending_reply_that_never_comes_times_out_and_can_be_asked_again(greenroom_client):
    client = greenroom_client
    stack = client.stack.create(375, 667)
    shown = client.start("showRendered", {"class": "Container", "stack": stack.id, "animated": True,
                                          "reply": "afterAppear"})
    from greenroom.errors import RequestTimeout
    with pytest.raises(RequestTimeout):
        shown.result(timeout=0.05)
    client.clock.advance(300)
    assert shown.result(timeout=1)["transitionMs"] == 300


def test_a_reply_held_for_the_appearance_with_the_async_client(greenroom_host):
    async def main() -> dict:
        async with AsyncClient(greenroom_host.socket) as client:
            stack = await client.call("stack.create", {"width": 375, "height": 667})
            shown = await client.start("showRendered", {
                "class": "Container", "stack": stack["stack"], "animated": True, "reply": "afterAppear"})
            await client.call("clock.advance", {"ms": 120})
            assert not shown.done()
            await client.call("clock.advance", {"ms": 180})
            return await shown

    assert asyncio.run(main())["transitionMs"] == 300
