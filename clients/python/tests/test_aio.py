"""The asyncio client against the fake host (asyncio.run in each test; no plugin needed)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from greenroom.aio import AsyncClient
from greenroom.errors import (
    ConnectError,
    ConnectionClosed,
    GreenroomError,
    InvalidParams,
    LimitExceeded,
    MethodNotFound,
    ProtocolError,
    RequestTimeout,
    UnknownObject,
)


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 20))


def test_call_ping_and_errors(fake_host):
    async def main():
        async with AsyncClient(fake_host.path) as client:
            assert await client.ping() is True
            assert await client.call("clock.advance", {"ms": 16}) == {"ms": 16.0, "fired": 0}
            with pytest.raises(MethodNotFound) as caught:
                await client.call("no.such")
            assert caught.value.data == {"kind": "methodNotFound", "method": "no.such"}
            with pytest.raises(InvalidParams):
                await client.call("clock.advance", {})
            with pytest.raises(UnknownObject) as caught:
                await client.call("test.fail", {"code": -32002, "message": "no c-9", "data": {"kind": "unknownObject"}})
            assert caught.value.kind == "unknownObject"

    run(main())


def test_connect_classmethod_and_close(fake_host):
    async def main():
        client = await AsyncClient.connect(fake_host.path)
        assert await client.ping()
        await client.close()
        await client.close()  # idempotent
        assert client.closed
        with pytest.raises(ConnectionClosed):
            await client.call("host.ping")

    run(main())


def test_not_connected_and_connect_error(tmp_path):
    async def main():
        with pytest.raises(GreenroomError, match="not connected"):
            await AsyncClient(str(tmp_path / "x.sock")).call("host.ping")
        with pytest.raises(ConnectError, match="is `greenroom serve` running"):
            await AsyncClient.connect(str(tmp_path / "x.sock"))

    run(main())


def test_concurrent_calls_are_matched(fake_host):
    async def main():
        async with AsyncClient(fake_host.path) as client:
            results = await asyncio.gather(*(client.call("test.echo", {"i": i}) for i in range(200)))
            assert results == [{"i": i} for i in range(200)]

    run(main())


def test_batch(fake_host):
    async def main():
        async with AsyncClient(fake_host.path) as client:
            ping, missing, now = await client.batch([("host.ping", None), "nope", ("clock.now", {})])
            assert ping == {"pong": True} and isinstance(missing, MethodNotFound) and now["mode"] == "virtual"
            fake_host.max_batch = 1
            with pytest.raises(LimitExceeded):
                await client.batch(["host.ping", "host.ping"])

    run(main())


def test_events_iterator_in_order(fake_host):
    async def main():
        async with AsyncClient(fake_host.path) as client:
            await client.subscribe(["page", "range"])
            await client.call("test.emit", {"topic": "page", "count": 500})
            await client.call("test.emit", {"topic": "range", "count": 2})
            seqs = [ev.seq async for ev in client.events("page", timeout=0)]
            assert seqs == list(range(1, 501))
            ranges = [ev async for ev in client.events(timeout=0.05)]
            assert [(e.topic, e.seq) for e in ranges] == [("range", 501), ("range", 502)]

    run(main())


def test_handlers_sync_and_async_run_before_the_call_returns(fake_host):
    async def main():
        seen = []
        async with AsyncClient(fake_host.path) as client:
            await client.subscribe(["page", "lifecycle"])

            @client.on("page")
            async def on_page(params):
                await asyncio.sleep(0.001)
                seen.append(("page", params["index"]))

            client.on("lifecycle", lambda params: seen.append(("lifecycle", params["index"])))
            await client.call("test.emit", {"topic": "page", "count": 3})
            await client.call("test.emit", {"topic": "lifecycle", "count": 2})
            assert seen == [("page", 0), ("page", 1), ("page", 2), ("lifecycle", 0), ("lifecycle", 1)]
            assert [ev async for ev in client.events(timeout=0)] == []

    run(main())


def test_handler_may_await_the_client(fake_host):
    async def main():
        answers = []
        async with AsyncClient(fake_host.path) as client:
            await client.subscribe("page")

            @client.on("page")
            async def on_page(params):
                answers.append(await client.call("test.echo", {"for": params["seq"]}))

            await client.call("test.emit", {"topic": "page", "count": 2})
            assert answers == [{"for": 1}, {"for": 2}]

    run(main())


def test_failing_handler_is_logged(fake_host, caplog):
    async def main():
        async with AsyncClient(fake_host.path) as client:
            await client.subscribe("page")
            client.on("page", lambda params: 1 / 0)
            with caplog.at_level(logging.ERROR, logger="greenroom"):
                assert await client.call("test.emit", {"topic": "page"}) == {"emitted": 1}

    run(main())
    assert "ZeroDivisionError" in caplog.text


def test_poll_events(fake_host):
    async def main():
        seen = []
        async with AsyncClient(fake_host.path) as client:
            await client.subscribe("host", scope="all")
            client.on("host", lambda params: seen.append(params["kind"]))
            assert await client.poll_events(0) == 0
            async with AsyncClient(fake_host.path):
                pass
            count = 0
            while count < 2:
                count += await client.poll_events(5)
            assert seen == ["connectionOpened", "connectionClosed"]

    run(main())


def test_timeout_then_late_reply_dropped(fake_host):
    async def main():
        async with AsyncClient(fake_host.path, timeout=0.05) as client:
            with pytest.raises(RequestTimeout):
                await client.call("test.sleep", {"s": 0.3})
            assert await client.call("host.ping", timeout=5) == {"pong": True}

    run(main())


def test_host_going_away_fails_calls_and_ends_iteration(fake_host):
    async def main():
        async with AsyncClient(fake_host.path) as client:
            await client.subscribe("host")
            await client.call("host.memoryWarning")
            await client.call("host.shutdown")
            kinds = [ev["kind"] async for ev in client.events()]
            assert kinds == ["memoryWarning"]
            with pytest.raises(ConnectionClosed):
                await client.call("host.ping")
            assert await client.poll_events(0) == 1  # the memoryWarning, not yet counted
            with pytest.raises(ConnectionClosed):
                await client.poll_events(0)

    run(main())


def test_close_fails_a_pending_call(fake_host):
    async def main():
        client = await AsyncClient.connect(fake_host.path)
        pending = asyncio.create_task(client.call("test.sleep", {"s": 1}))
        await asyncio.sleep(0.05)
        await client.close()
        with pytest.raises(ConnectionClosed):
            await pending

    run(main())


def test_notify_and_unsubscribe(fake_host):
    async def main():
        async with AsyncClient(fake_host.path) as client:
            await client.subscribe(["page", "range"])
            await client.notify("test.emit", {"topic": "page"})
            assert await client.unsubscribe("range") == {"topics": ["page"]}
            async for event in client.events(timeout=5):
                assert event.topic == "page"
                break
            else:
                raise AssertionError("the notified test.emit sent no event")

    run(main())


def test_a_line_that_is_not_json_fails_pending_calls(fake_host):
    async def main():
        async with AsyncClient(fake_host.path) as client:
            fake_host.methods["test.garbage"] = lambda conn, params: conn.send_bytes(b"{\n  oops\n") or {}
            with pytest.raises(ProtocolError):
                await client.call("test.garbage")
            assert await client.ping()

    run(main())
