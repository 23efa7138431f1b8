"""Integration tests: the client and its pytest fixtures against the real `greenroom` binary.

Marked ``integration``; they never skip. Without a binary (GREENROOM_BIN,
.build/debug/greenroom above this folder, or greenroom on PATH) the fixture
errors and says where it looked. Deselect with ``-m "not integration"``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path

import jsonschema
import pytest

from greenroom import Client
from greenroom.aio import AsyncClient
from greenroom.errors import (
    ConnectionClosed,
    InvalidRequest,
    MethodNotFound,
    RPCError,
    Unauthorized,
    VirtualClockOnly,
)
from greenroom.testing import HostProcess

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[4]


def collect(client: Client, topic: str, until_kind: str, timeout: float = 10.0) -> list:
    """Events of ``topic`` up to and including the first of kind ``until_kind``."""
    events = []
    for event in client.events(topic, timeout=timeout):
        events.append(event)
        if event.get("kind") == until_kind:
            return events
    raise AssertionError(f"no {topic} event of kind {until_kind!r} within {timeout} s; got {events}")


def test_ping(greenroom_client):
    assert greenroom_client.ping() is True
    assert greenroom_client.call("host.ping") == {"pong": True}


def test_unknown_method_raises_method_not_found(greenroom_client):
    with pytest.raises(MethodNotFound) as caught:
        greenroom_client.call("no.such.method", {"x": 1})
    error = caught.value
    assert error.code == -32601
    assert error.data["kind"] == "methodNotFound"
    assert error.data["method"] == "no.such.method"
    assert greenroom_client.ping()  # the connection is still usable


def test_host_events_with_scope_all_from_a_second_client(greenroom_host, greenroom_client):
    subscribed = greenroom_client.subscribe(["host"], scope="all")
    assert "host" in subscribed["topics"] and subscribed["scope"] == "all"
    second = greenroom_host.client()
    assert second.ping()
    second.close()
    events = collect(greenroom_client, "host", "connectionClosed")
    assert [e["kind"] for e in events] == ["connectionOpened", "connectionClosed"]
    opened, closed = events
    assert opened["connection"] == closed["connection"] and opened["connection"].startswith("conn-")
    assert opened.seq < closed.seq


def test_own_scope_does_not_see_other_connections(greenroom_host, greenroom_client):
    observer = greenroom_host.client()
    observer.subscribe(["host"], scope="all")
    greenroom_client.subscribe(["host"])  # scope "own"
    second = greenroom_host.client()
    second.ping()
    second.close()
    collect(observer, "host", "connectionClosed")  # the host has handled the close
    greenroom_client.ping()
    assert list(greenroom_client.events("host", timeout=0)) == []


def test_virtual_clock_now_and_advance(greenroom_client):
    now = greenroom_client.call("clock.now")
    assert now["mode"] == "virtual" and isinstance(now["ms"], (int, float))
    advanced = greenroom_client.call("clock.advance", {"ms": 250})
    assert advanced["ms"] == pytest.approx(now["ms"] + 250)
    assert isinstance(advanced["fired"], int) and advanced["fired"] >= 0
    assert greenroom_client.call("clock.now")["ms"] == pytest.approx(advanced["ms"])
    again = greenroom_client.call("clock.advance", {"ms": 0.5})
    assert again["ms"] == pytest.approx(now["ms"] + 250.5)


@pytest.mark.greenroom_args(clock="real")
def test_advance_on_a_real_clock_is_virtual_clock_only(greenroom_client):
    assert greenroom_client.call("clock.now")["mode"] == "real"
    with pytest.raises(VirtualClockOnly) as caught:
        greenroom_client.call("clock.advance", {"ms": 10})
    assert caught.value.code == -32007 and caught.value.kind == "virtualClockOnly"


def test_seq_starts_at_one_and_events_come_before_the_reply(greenroom_client):
    greenroom_client.subscribe(["host"])
    seen = []
    for level, advance in (("warning", 10), ("critical", 5), ("warning", 0)):
        greenroom_client.call("clock.advance", {"ms": advance})
        clock = greenroom_client.call("clock.now")["ms"]
        greenroom_client.call("host.memoryWarning", {"level": level})
        # Caused by the request, so already read when its reply came back.
        [event] = list(greenroom_client.events("host", timeout=0))
        assert (event["kind"], event["level"]) == ("memoryWarning", level)
        assert event.t == pytest.approx(clock)
        seen.append(event.seq)
    assert seen == [1, 2, 3]


def test_handlers_see_events_before_the_call_returns(greenroom_client):
    received = []
    greenroom_client.on("host", lambda params: received.append(params["kind"]))
    greenroom_client.subscribe("host")
    greenroom_client.call("host.memoryWarning")
    assert received == ["memoryWarning"]


def test_batch(greenroom_client):
    ping, now, missing = greenroom_client.batch([("host.ping", None), ("clock.now", {}), ("no.such", {})])
    assert ping == {"pong": True}
    assert now["mode"] == "virtual"
    assert isinstance(missing, MethodNotFound) and missing.data["method"] == "no.such"


@pytest.mark.greenroom_args("--max-batch", "2")
def test_batch_over_the_limit_is_rejected_whole(greenroom_client):
    assert greenroom_client.batch(["host.ping", "host.ping"]) == [{"pong": True}] * 2
    with pytest.raises(RPCError) as caught:
        greenroom_client.batch(["host.ping"] * 3)
    assert caught.value.code in (-32600, -32005)
    assert greenroom_client.ping()


def test_notifications_get_no_reply(greenroom_client, caplog):
    with caplog.at_level(logging.DEBUG, logger="greenroom"):
        greenroom_client.notify("host.ping")
        greenroom_client.notify("no.such.method")
        assert greenroom_client.ping()
    assert "dropped a reply" not in caplog.text


def test_async_client(greenroom_host):
    async def main():
        async with AsyncClient(greenroom_host.socket) as client:
            assert await client.ping()
            await client.subscribe(["host"], scope="all")
            with greenroom_host.client() as other:
                other.ping()
            kinds = []
            async for event in client.events("host", timeout=10):
                kinds.append(event["kind"])
                if event["kind"] == "connectionClosed":
                    break
            assert kinds == ["connectionOpened", "connectionClosed"]
            with pytest.raises(MethodNotFound):
                await client.call("no.such.method")
            results = await asyncio.gather(*(client.call("clock.advance", {"ms": 1}) for _ in range(50)))
            assert sorted(r["ms"] for r in results) == [float(i) for i in range(1, 51)]

    asyncio.run(asyncio.wait_for(main(), 30))


def test_sigterm_shuts_down_cleanly_and_removes_the_socket(greenroom_host):
    assert os.path.exists(greenroom_host.socket)
    assert greenroom_host.stop() == 0
    assert not os.path.exists(greenroom_host.socket)


def test_rpc_discover_is_the_schema_file(greenroom_client):
    document = greenroom_client.call("rpc.discover")
    assert document == json.loads((REPO / "rpc-schema" / "openrpc.json").read_text())


@pytest.mark.parametrize(
    "method,params",
    [
        ("host.ping", None),
        ("clock.now", None),
        ("clock.advance", {"ms": 5}),
        ("events.subscribe", {"topics": ["host"], "scope": "all"}),
        ("events.unsubscribe", {"topics": ["host"]}),
        ("host.info", None),
        ("host.stats", None),
    ],
)
def test_results_match_the_published_schema(greenroom_client, method, params):
    document = greenroom_client.call("rpc.discover")
    described = {m["name"]: m for m in document.get("methods", [])}
    assert method in described, f"{method} is not described by rpc.discover"
    schema = described[method].get("result", {}).get("schema")
    assert schema is not None, f"{method} has no result schema"
    result = greenroom_client.call(method, params)
    jsonschema.validate(result, {**schema, "components": document.get("components", {})})


def test_an_oversized_message_fails_only_its_own_call(greenroom_client):
    # The host cannot read the id of a message past --max-message-bytes, so it
    # answers with "id": null; the client gives that error to the request that sent it.
    with pytest.raises(InvalidRequest) as caught:
        greenroom_client.call("host.ping", {"pad": "x" * (1 << 20)})
    assert caught.value.code == -32600
    assert greenroom_client.ping()


def test_host_shutdown_ends_the_connection(greenroom_host, greenroom_client):
    greenroom_client.call("host.shutdown")
    assert greenroom_host.process.wait(10) == 0
    with pytest.raises(ConnectionClosed):
        greenroom_client.ping()
    assert list(greenroom_client.events(timeout=5)) == []


def tcp_address(host) -> str:
    [address] = [a for a in host.listen if a.startswith("tcp:")]
    return address


@pytest.mark.greenroom_args("--listen", "tcp:127.0.0.1:0")
def test_tcp_on_loopback(greenroom_host):
    with Client(tcp=tcp_address(greenroom_host)) as client:
        assert client.ping()


@pytest.fixture
def token_file(tmp_path):
    path = tmp_path / "token"
    path.write_text("s3cret-0123456789abcdef")
    path.chmod(0o600)
    return path


@pytest.fixture
def tcp_host_with_token(token_file):
    with HostProcess.start(["--listen", "tcp:127.0.0.1:0", "--token-file", str(token_file)]) as host:
        yield host


def test_tcp_with_a_token(tcp_host_with_token):
    address = tcp_address(tcp_host_with_token)
    with Client(tcp=address) as anonymous:
        with pytest.raises(Unauthorized):
            anonymous.ping()
    with pytest.raises(Unauthorized):
        Client(tcp=address, token="wrong")
    with Client(tcp=address, token="s3cret-0123456789abcdef") as client:
        assert client.ping()

    async def main():
        async with AsyncClient(tcp=address, token="s3cret-0123456789abcdef") as client:
            assert await client.ping()

    asyncio.run(asyncio.wait_for(main(), 30))
