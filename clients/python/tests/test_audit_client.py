"""Audit: the Python client against what its documents promise, on a real host.

README.md ("From Python"), clients/python/README.md and the docstrings promise
methods, errors, events, timeouts and fixtures; each test here checks one of
those promises against the real `greenroom` binary (the `greenroom_host`
fixture), or, where a real host cannot be made to misbehave (a silent host, a
late reply, an unknown error code, a line that is not JSON), against the fake
host of the client's unit tests (fakehost.py), scripted with its test.* methods. Never skips: without a binary the fixture errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import os
import re
import shutil
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import greenroom
from greenroom import Client
from greenroom.aio import AsyncClient
from greenroom.errors import (
    ConnectError,
    ConnectionClosed,
    GreenroomError,
    InternalError,
    InvalidParams,
    InvalidRequest,
    InvalidState,
    LimitExceeded,
    MethodNotFound,
    ParseError,
    PluginFailed,
    ProtocolError,
    RequestTimeout,
    RPCError,
    Unauthorized,
    UnknownClass,
    UnknownObject,
    VirtualClockOnly,
)
from greenroom.testing import HostProcess, find_binary

pytestmark = pytest.mark.integration

HERE = Path(__file__).resolve().parent
PY_README = HERE.parent / "README.md"
REPO = HERE.parents[2]
MAIN_README = REPO / "README.md"

TOO_BIG = 2**70  # past int64: the host cannot read the message (-32700 numberOutOfRange)


def deep(levels: int) -> Any:
    value: Any = []
    for _ in range(levels):
        value = [value]
    return value


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def run_async(coroutine, timeout: float = 30):
    return asyncio.run(asyncio.wait_for(coroutine, timeout))


# --------------------------------------------------------------------------
# the documents' examples, run as written


def test_main_readme_python_example_runs_as_written(greenroom_host, monkeypatch):
    [block] = [b for b in python_blocks(MAIN_README) if "from greenroom import Client" in b]
    monkeypatch.setenv("GREENROOM_SOCKET", greenroom_host.socket)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    assert "{'pong': True}" in lines
    assert "-32602 ms" in lines


def test_python_readme_short_tour_runs_as_written(greenroom_host, monkeypatch):
    tour = python_blocks(PY_README)[0]
    monkeypatch.setenv("GREENROOM_SOCKET", greenroom_host.socket)
    namespace: dict[str, Any] = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(tour, "clients/python/README.md", "exec"), namespace)
    assert namespace["ping"] == {"pong": True}
    assert isinstance(namespace["missing"], MethodNotFound)
    assert out.getvalue().startswith("-32002 ")
    assert "'kind': 'unknownObject'" in out.getvalue()
    assert namespace["client"].closed  # the with block closed it


def test_python_readme_events_example_runs_as_written(greenroom_client):
    events_block = python_blocks(PY_README)[1]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(events_block, "clients/python/README.md", "exec"), {"client": greenroom_client})
    # The handler printed "seq hook" for the lifecycle event of showRendered
    # before the call returned (a cold container: init).
    assert re.search(r"^\d+ init$", out.getvalue(), flags=re.M), out.getvalue()


def test_python_readme_asyncio_example_runs_as_written(greenroom_host, monkeypatch):
    block = python_blocks(PY_README)[2]
    monkeypatch.setenv("GREENROOM_SOCKET", greenroom_host.socket)
    imports, _, body = block.partition("\n\n")
    source = imports + "\n\nasync def main():\n" + textwrap.indent(body, "    ")
    namespace: dict[str, Any] = {}
    exec(compile(source, "clients/python/README.md", "exec"), namespace)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        run_async(namespace["main"]())
    lines = out.getvalue().splitlines()
    assert "willTransition" in lines  # from events("page")
    assert any(line.startswith("viewWillAppear") for line in lines)  # from the lifecycle handler


def test_python_readme_fixture_example_runs_as_written(pytester, monkeypatch):
    block = [b for b in python_blocks(PY_README) if "greenroom_host" in b][0]
    monkeypatch.setenv("GREENROOM_BIN", find_binary())
    pytester.makepyfile(test_readme_fixtures=block)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def docstring_example(doc: str) -> str:
    """The indented block after the first ``::`` of a docstring."""
    lines = []
    for line in doc.split("::", 1)[1].splitlines()[1:]:
        if line.strip() and not line.startswith("    "):
            break
        lines.append(line)
    return textwrap.dedent("\n".join(lines))


def test_package_docstring_example_runs_as_written(greenroom_host, monkeypatch):
    code = docstring_example(greenroom.__doc__)
    monkeypatch.setenv("GREENROOM_SOCKET", greenroom_host.socket)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "greenroom/__init__.py", "exec"), {})
    assert re.fullmatch(r"1 init\n", out.getvalue()), out.getvalue()


# --------------------------------------------------------------------------
# errors: one class per code, each carrying code, message and data


def _define_failing(client):
    client.call("classes.define", {"name": "Failing", "hooks": {"configure": {"fail": True}}})
    return "showRendered", {"class": "Failing", "data": {}}


def _define_twice(client):
    client.call("classes.define", {"name": "Twice"})
    return "classes.define", {"name": "Twice"}


ERROR_CASES = [
    # (class, kind, how to provoke it on a real virtual-clock host)
    (ParseError, "numberOutOfRange", lambda c: ("clock.advance", {"ms": TOO_BIG})),
    (InvalidRequest, "tooDeep", lambda c: ("host.ping", {"x": deep(70)})),
    (MethodNotFound, "methodNotFound", lambda c: ("no.such.method", None)),
    (InvalidParams, "invalidParams", lambda c: ("clock.advance", {"ms": -1})),
    (UnknownClass, "unknownClass", lambda c: ("showRendered", {"class": "NoSuchClass"})),
    (UnknownObject, "unknownObject", lambda c: ("container.info", {"container": "c-404"})),
    (InvalidState, "invalidState", _define_twice),
    (PluginFailed, "pluginFailed", _define_failing),
]


@pytest.mark.parametrize("cls,kind,provoke", ERROR_CASES, ids=[c[0].__name__ for c in ERROR_CASES])
def test_each_host_error_raises_its_class_with_code_message_data(greenroom_client, cls, kind, provoke):
    method, params = provoke(greenroom_client)
    with pytest.raises(cls) as caught:
        greenroom_client.call(method, params)
    error = caught.value
    assert type(error) is cls
    assert isinstance(error, RPCError) and isinstance(error, GreenroomError)
    assert error.code == cls.code_value
    assert isinstance(error.message, str) and error.message
    assert isinstance(error.data, dict) and error.data["kind"] == kind
    assert error.kind == kind
    assert str(cls.code_value) in str(error)
    assert greenroom_client.ping()  # the connection goes on


def test_each_host_error_raises_its_class_in_the_async_client(greenroom_host):
    with greenroom_host.client() as setup:
        _define_failing(setup)
        _define_twice(setup)

    async def main():
        async with AsyncClient(greenroom_host.socket) as client:
            calls = [
                ("clock.advance", {"ms": TOO_BIG}),
                ("host.ping", {"x": deep(70)}),
                ("no.such.method", None),
                ("clock.advance", {"ms": -1}),
                ("showRendered", {"class": "NoSuchClass"}),
                ("container.info", {"container": "c-404"}),
                ("classes.define", {"name": "Twice"}),
                ("showRendered", {"class": "Failing", "data": {}}),
            ]
            outcomes = await asyncio.gather(*(client.call(m, p) for m, p in calls), return_exceptions=True)
            assert [type(o) for o in outcomes] == [c[0] for c in ERROR_CASES]
            for outcome, (cls, kind, _) in zip(outcomes, ERROR_CASES):
                assert outcome.code == cls.code_value and outcome.kind == kind
            assert await client.ping()

    run_async(main())


@pytest.mark.greenroom_args(clock="real")
def test_virtual_clock_only_on_a_real_clock(greenroom_client):
    with pytest.raises(VirtualClockOnly) as caught:
        greenroom_client.call("clock.advance", {"ms": 1})
    assert caught.value.code == -32007 and caught.value.kind == "virtualClockOnly"


@pytest.mark.parametrize(
    "error,cls",
    [
        ({"code": -32603, "message": "boom", "data": {"kind": "internal"}}, InternalError),
        ({"code": -32099, "message": "server defined"}, RPCError),
        ({"code": 12345, "message": "odd", "data": [1, 2]}, RPCError),
        ({"code": -32006, "message": "no", "data": {"kind": "unauthorized"}}, Unauthorized),
    ],
)
def test_internal_and_unknown_codes(fake_host, error, cls):
    host = fake_host
    with Client(host.path) as client:
        with pytest.raises(RPCError) as caught:
            client.call("test.fail", error)
        assert type(caught.value) is cls
        assert caught.value.code == error["code"]
        assert caught.value.message == error["message"]
        assert caught.value.data == error.get("data")
        assert client.ping()

    async def main():
        async with AsyncClient(host.path) as client:
            with pytest.raises(RPCError) as caught:
                await client.call("test.fail", error)
            assert type(caught.value) is cls and caught.value.data == error.get("data")

    run_async(main())


# --------------------------------------------------------------------------
# connections: refused, closed, timed out, broken


@pytest.mark.greenroom_args("--max-connections", "1")
def test_a_full_host_raises_limit_exceeded_not_a_broken_pipe(greenroom_host, greenroom_client):
    # README: "the new connection gets one -32005 line and is closed".
    assert greenroom_client.ping()
    for pause in (0, 0.2):
        extra = Client(greenroom_host.socket)
        time.sleep(pause)
        with pytest.raises(LimitExceeded) as caught:
            extra.ping()
        assert caught.value.code == -32005 and caught.value.data["limit"] == "connections"
        with pytest.raises((ConnectionClosed, LimitExceeded)):
            extra.ping()
        extra.close()

    async def main():
        for pause in (0, 0.2):
            async with AsyncClient(greenroom_host.socket) as extra:
                await asyncio.sleep(pause)
                with pytest.raises(LimitExceeded):
                    await extra.ping()

    run_async(main())
    assert greenroom_client.ping()  # the first connection is unaffected


def test_connect_error_names_the_socket(tmp_path):
    missing = str(tmp_path / "none.sock")
    with pytest.raises(ConnectError) as caught:
        Client(missing)
    assert isinstance(caught.value, ConnectionError) and isinstance(caught.value, GreenroomError)
    assert missing in str(caught.value)

    async def main():
        with pytest.raises(ConnectError):
            await AsyncClient.connect(missing)

    run_async(main())


def connection_kinds(observer, closed: int) -> list[str]:
    """connectionOpened/Closed host events seen by ``observer`` until ``closed`` closes, grouped by
    connection in the order each opened (the host may accept a new connection before it reads the
    end of one closed just before, so the raw events of two connections can interleave)."""
    by_connection: dict[str, list[str]] = {}
    count = 0
    for event in observer.events("host", timeout=10):
        if event["kind"].startswith("connection"):
            by_connection.setdefault(event["connection"], []).append(event["kind"])
            count += event["kind"] == "connectionClosed"
        if count == closed:
            break
    return [kind for kinds in by_connection.values() for kind in kinds]


def test_context_managers_close_the_connection(greenroom_host):
    observer = greenroom_host.client()
    observer.subscribe("host", scope="all")
    with Client(greenroom_host.socket) as client:
        assert client.ping() and not client.closed
    assert client.closed
    with pytest.raises(ConnectionClosed):
        client.ping()
    assert connection_kinds(observer, 1) == ["connectionOpened", "connectionClosed"]

    async def main():
        async with AsyncClient(greenroom_host.socket) as aclient:
            assert await aclient.ping()
        assert aclient.closed
        with pytest.raises(ConnectionClosed):
            await aclient.ping()
        other = await AsyncClient.connect(greenroom_host.socket)
        await other.close()
        await other.close()  # idempotent
        assert other.closed

    run_async(main())
    assert connection_kinds(observer, 2) == ["connectionOpened", "connectionClosed"] * 2


def test_host_going_away_ends_waits_instead_of_hanging(greenroom_host):
    client = Client(greenroom_host.socket)  # not host.client(): stop() would close that one itself
    client.subscribe("host")
    result: dict[str, Any] = {}

    def iterate():
        try:
            result["events"] = list(client.events(timeout=None))
        except BaseException as error:  # pragma: no cover - reported below
            result["error"] = error

    reader = threading.Thread(target=iterate, daemon=True)
    reader.start()
    time.sleep(0.2)
    assert greenroom_host.stop() == 0
    reader.join(10)
    assert not reader.is_alive(), "events() kept waiting after the host exited"
    assert "error" not in result
    assert client.closed
    with pytest.raises(ConnectionClosed):
        client.ping()
    client.poll_events(0)  # counts what the iteration read
    with pytest.raises(ConnectionClosed):
        client.poll_events(1)
    client.close()


def test_a_host_that_hangs_up_mid_call_raises_connection_closed(fake_host):
    host = fake_host
    with Client(host.path, timeout=30) as client:
        started = time.monotonic()
        with pytest.raises(ConnectionClosed):
            client.call("test.hangUp")
        assert time.monotonic() - started < 5

    async def main():
        async with AsyncClient(host.path, timeout=30) as client:
            with pytest.raises(ConnectionClosed):
                await client.call("test.hangUp")

    run_async(main())


def test_timeout_raises_request_timeout_and_the_late_reply_is_dropped(fake_host):
    host = fake_host
    with Client(host.path, timeout=0.1) as client:
        assert client.timeout == 0.1
        with pytest.raises(RequestTimeout) as caught:
            client.call("test.sleep", {"s": 0.5})
        assert isinstance(caught.value, TimeoutError) and isinstance(caught.value, GreenroomError)
        assert client.call("test.echo", {"v": "fast"}, timeout=5) == {"v": "fast"}  # not the late {}
        assert client.call("test.sleep", {"s": 0.5}, timeout=5) == {}  # per-call timeout

    async def main():
        async with AsyncClient(host.path, timeout=0.1) as client:
            with pytest.raises(RequestTimeout):
                await client.call("test.sleep", {"s": 0.5})
            assert await client.call("test.echo", {"v": "fast"}, timeout=5) == {"v": "fast"}

    run_async(main())


def test_a_late_null_id_error_of_a_timed_out_call_does_not_fail_the_next(fake_host):
    late = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "late parse error"}})
    with Client(fake_host.path) as client:
        with pytest.raises(RequestTimeout):
            client.call("test.raw", {"sleep": 0.4, "bytes": late + "\n"}, timeout=0.1)
        assert client.call("test.echo", {"v": "ok"}) == {"v": "ok"}


def test_a_line_that_is_not_json_raises_protocol_error_at_once(fake_host):
    host = fake_host
    broken = {"bytes": "this is not json\n"}
    with Client(host.path, timeout=30) as client:
        started = time.monotonic()
        with pytest.raises(ProtocolError):
            client.call("test.raw", broken)
        assert time.monotonic() - started < 5

    async def main():
        async with AsyncClient(host.path, timeout=30) as client:
            with pytest.raises(ProtocolError):
                await client.call("test.raw", broken)

    run_async(main())


# --------------------------------------------------------------------------
# notifications and batches


def test_notifications_get_no_reply_and_a_rejected_one_fails_no_call(greenroom_client, caplog):
    client = greenroom_client
    before = client.call("clock.now")
    client.notify("clock.advance", {"ms": 5})
    client.notify("clock.advance", [])  # invalid params: a notification still gets no reply
    with caplog.at_level(logging.WARNING, logger="greenroom"):
        client.notify("clock.advance", {"ms": TOO_BIG})  # unreadable: the host answers id null
        client.notify("host.ping", {"x": deep(70)})
        assert client.call("host.ping") == {"pong": True}
        assert client.call("clock.advance", {"ms": 1})["ms"] == pytest.approx(_ms(before) + 6)
    assert caplog.text.count("rejected a notification") == 2


def test_async_rejected_notifications_fail_no_call(greenroom_host, caplog):
    async def main():
        async with AsyncClient(greenroom_host.socket) as client:
            with caplog.at_level(logging.WARNING, logger="greenroom"):
                outcomes = await asyncio.gather(
                    client.call("host.ping"),
                    client.notify("clock.advance", {"ms": TOO_BIG}),
                    client.call("clock.advance", {"ms": TOO_BIG}),
                    client.notify("host.ping", {"x": deep(70)}),
                    client.call("host.ping"),
                    return_exceptions=True,
                )
            assert outcomes[0] == {"pong": True} and outcomes[1] is None and outcomes[3] is None
            assert isinstance(outcomes[2], ParseError)
            assert outcomes[4] == {"pong": True}

    run_async(main())
    assert caplog.text.count("rejected a notification") == 2


def _ms(clock: Any) -> float:
    return float(clock["ms"] if isinstance(clock, dict) else clock)


def test_batch_outcomes_in_call_order(greenroom_client):
    outcomes = greenroom_client.batch(
        [
            "host.ping",
            ("clock.advance", {"ms": 2}),
            ("container.info", {"container": "c-404"}),
            ("no.such", {}),
            ("clock.advance", {"ms": -1}),
            ("host.ping",),
        ]
    )
    assert outcomes[0] == {"pong": True}
    assert outcomes[1]["ms"] == 2.0
    assert [type(o) for o in outcomes[2:5]] == [UnknownObject, MethodNotFound, InvalidParams]
    assert outcomes[4].data["path"] == "ms"
    assert outcomes[5] == {"pong": True}
    # An unreadable entry makes the whole batch unreadable: raised, not returned.
    with pytest.raises(ParseError):
        greenroom_client.batch([("host.ping", None), ("clock.advance", {"ms": TOO_BIG})])
    with pytest.raises(ValueError):
        greenroom_client.batch([])
    assert greenroom_client.ping()


@pytest.mark.greenroom_args("--max-batch", "4")
def test_async_batch_and_its_limit(greenroom_host):
    async def main():
        async with AsyncClient(greenroom_host.socket) as client:
            outcomes = await client.batch([("host.ping", None), ("no.such", {})])
            assert outcomes[0] == {"pong": True} and isinstance(outcomes[1], MethodNotFound)
            with pytest.raises(InvalidRequest) as caught:
                await client.batch(["host.ping"] * 5)
            assert caught.value.kind == "batchTooLarge"
            assert await client.ping()

    run_async(main())


# --------------------------------------------------------------------------
# events


def _swipe(client) -> None:
    """A page session and one interactive swipe: many lifecycle and page events."""
    session = client.call("page.create", {"class": "Container", "count": 5, "width": 100, "height": 100})["session"]
    s = {"session": session}
    client.call("page.willBeginDragging", {**s, "offset": 0})
    for offset in (20, 60, 90):
        client.call("page.didScroll", {**s, "offset": offset})
    client.call("page.willEndDragging", {**s, "offset": 90, "velocity": 1.0, "targetOffset": 100})
    client.call("page.didEndDragging", {**s, "offset": 90, "willDecelerate": True})
    client.call("page.didEndDecelerating", {**s, "offset": 100})
    client.call("page.show", {**s, "index": 3, "animated": True})
    client.call("clock.advance", {"ms": 300})
    client.call("host.memoryWarning")


def test_events_between_replies_are_all_kept_in_seq_order(greenroom_client):
    client = greenroom_client
    client.subscribe(list(greenroom.TOPICS))
    handled: list[int] = []
    client.on("lifecycle", lambda params: handled.append(params["seq"]))
    _swipe(client)
    queued = [event.seq for event in client.events(timeout=0)]
    assert handled == sorted(handled) and queued == sorted(queued)
    seqs = sorted(handled + queued)
    assert seqs == list(range(1, len(seqs) + 1)), "an event was lost or duplicated"
    assert len(handled) > 10 and len(queued) > 3
    assert client.poll_events(0) == len(seqs)  # counted once, after the fact


def test_on_several_topics_as_decorator_and_plain(greenroom_client):
    client = greenroom_client
    client.subscribe(["lifecycle", "page", "host"])
    order: list[tuple[str, int]] = []

    @client.on("lifecycle")
    def on_lifecycle(params):
        order.append(("lifecycle", params["seq"]))

    assert callable(on_lifecycle)  # the decorator gives the function back
    returned = client.on("page", lambda params: order.append(("page", params["seq"])))
    assert callable(returned)
    second: list[int] = []
    client.on("page", lambda params: second.append(params["seq"]))
    _swipe(client)
    topics = {topic for topic, _ in order}
    assert topics == {"lifecycle", "page"}
    assert [seq for _, seq in order] == sorted(seq for _, seq in order)
    assert second == [seq for topic, seq in order if topic == "page"]
    assert [e["kind"] for e in client.events("host", timeout=0)] == ["memoryWarning"]

    client.off("page")
    client.off("lifecycle", on_lifecycle)
    count = len(order)
    client.call("page.create", {"class": "Container", "count": 2, "width": 10, "height": 10})
    assert len(order) == count
    assert "lifecycle" in {e.topic for e in client.events(timeout=0)}  # queued instead


def test_handlers_may_call_the_client_and_failures_are_logged(greenroom_client, caplog):
    client = greenroom_client
    client.subscribe(["lifecycle", "host"])
    seen: list[str] = []

    @client.on("lifecycle")
    def nested(params):
        seen.append(params["event"])
        if params["event"] == "init":
            assert client.ping()  # a handler may call the client

    @client.on("host")
    def broken(params):
        raise RuntimeError("handler bug")

    with caplog.at_level(logging.ERROR, logger="greenroom"):
        client.call("container.create", {"class": "Container"})
        client.call("host.memoryWarning")
    assert seen[0] == "init"
    assert "handler bug" in caplog.text


def test_poll_events_runs_handlers_for_events_caused_later(greenroom_host, greenroom_client):
    client = greenroom_client
    client.subscribe("lifecycle")
    hooks: list[str] = []
    client.on("lifecycle", lambda params: hooks.append(params["event"]))
    stack = client.call("stack.create", {"width": 100, "height": 100})["stack"]
    container = client.call("container.create", {"class": "Container"})["container"]
    client.call("stack.push", {"stack": stack, "container": container, "animated": True})
    assert "viewWillAppear" in hooks and "viewDidAppear" not in hooks
    assert client.poll_events(0) > 0
    with greenroom_host.client() as clock:
        clock.call("clock.advance", {"ms": 300})  # the animation ends: events for our container
    assert client.poll_events(10) >= 1
    assert "viewDidAppear" in hooks
    assert client.poll_events(0) == 0


def test_event_objects_and_iteration_by_topic(greenroom_host, greenroom_client):
    client = greenroom_client
    client.subscribe("host", scope="all")
    client.subscribe(["lifecycle"])
    with greenroom_host.client() as other:
        other.ping()
    client.call("container.create", {"class": "Container"})
    [lifecycle] = list(client.events("lifecycle", timeout=0))
    assert lifecycle.topic == "lifecycle" and lifecycle["event"] == "init"
    assert isinstance(lifecycle.t, float) and lifecycle.get("missing", 7) == 7
    host_events = []
    for event in client.events(["host"], timeout=5):
        host_events.append(event)
        if event["kind"] == "connectionClosed":
            break
    assert [e["kind"] for e in host_events] == ["connectionOpened", "connectionClosed"]
    # events() by topic left the lifecycle event queued although it came later
    assert host_events[0].seq < host_events[1].seq
    client.unsubscribe(["host", "lifecycle"])
    with greenroom_host.client() as other:
        other.ping()
    client.call("container.create", {"class": "Container"})
    assert list(client.events(timeout=0.3)) == []


# --------------------------------------------------------------------------
# asyncio


def test_async_calls_in_flight_each_get_their_own_reply(greenroom_host):
    async def main():
        async with AsyncClient(greenroom_host.socket) as client:
            names = [f"Class{i}" for i in range(40)]
            calls = []
            for i, name in enumerate(names):
                calls.append(client.call("classes.define", {"name": name}))
                calls.append(client.call("container.info", {"container": f"c-9{i}"}))
            outcomes = await asyncio.gather(*calls, return_exceptions=True)
            for i, name in enumerate(names):
                assert outcomes[2 * i]["name"] == name
                assert isinstance(outcomes[2 * i + 1], UnknownObject)
                assert outcomes[2 * i + 1].data["id"] == f"c-9{i}"

    run_async(main())


def test_async_handlers_run_in_order_before_the_call_returns(greenroom_host):
    async def main():
        client = await AsyncClient.connect(greenroom_host.socket)
        try:
            await client.subscribe(["lifecycle", "page"])
            order: list[tuple[str, int]] = []

            @client.on("lifecycle")
            async def on_lifecycle(params):
                await asyncio.sleep(0)
                order.append(("lifecycle", params["seq"]))

            client.on("page", lambda params: order.append(("page", params["seq"])))
            page = {"class": "Container", "count": 3, "width": 100, "height": 100}
            session = (await client.call("page.create", page))["session"]
            assert [topic for topic, _ in order] == ["lifecycle"] * 10  # handled before the reply came back
            await client.call("page.show", {"session": session, "index": 2, "animated": False})
            assert order[-1][0] == "page"  # didTransition, the last event before the reply
            seqs = [seq for _, seq in order]
            assert seqs == sorted(seqs) == list(range(1, len(seqs) + 1))
        finally:
            await client.close()

    run_async(main())


def test_async_poll_events_inside_a_handler_does_not_hang(greenroom_host):
    async def main():
        async with AsyncClient(greenroom_host.socket) as client:
            await client.subscribe("host")
            polled: list[int] = []

            async def handler(params):
                polled.append(await asyncio.wait_for(client.poll_events(0), 5))

            client.on("host", handler)
            await client.call("host.memoryWarning")
            assert polled == [1]
            assert await client.poll_events(0) == 0

    run_async(main())


def test_async_events_iteration_and_poll(greenroom_host):
    async def main():
        async with AsyncClient(greenroom_host.socket) as client:
            await client.subscribe("host", scope="all")
            with greenroom_host.client() as other:
                other.ping()
            assert await client.poll_events(5) >= 1
            kinds = [event["kind"] async for event in client.events("host", timeout=0.5)]
            assert kinds[:2] == ["connectionOpened", "connectionClosed"]

    run_async(main())


# --------------------------------------------------------------------------
# where the client connects


def test_default_socket_path_order(monkeypatch):
    from greenroom import default_socket_path

    uid = os.getuid()
    assert default_socket_path({}) == f"/tmp/greenroom-{uid}/host.sock"
    assert default_socket_path({"XDG_RUNTIME_DIR": ""}) == f"/tmp/greenroom-{uid}/host.sock"
    assert default_socket_path({"XDG_RUNTIME_DIR": "/run/u"}) == "/run/u/greenroom/host.sock"
    both = {"XDG_RUNTIME_DIR": "/run/u", "GREENROOM_SOCKET": "/s/h.sock"}
    assert default_socket_path(both) == "/s/h.sock"
    monkeypatch.setenv("GREENROOM_SOCKET", "/x/y.sock")
    assert default_socket_path() == "/x/y.sock"


def test_clients_find_the_host_through_the_environment(greenroom_host, monkeypatch):
    runtime = tempfile.mkdtemp(prefix="grx-", dir="/tmp")
    try:
        os.mkdir(os.path.join(runtime, "greenroom"))
        os.symlink(greenroom_host.socket, os.path.join(runtime, "greenroom", "host.sock"))
        monkeypatch.delenv("GREENROOM_SOCKET", raising=False)
        monkeypatch.setenv("XDG_RUNTIME_DIR", runtime)
        with Client() as client:
            assert client.ping()

        async def main():
            async with AsyncClient() as client:
                assert await client.ping()

        run_async(main())
        monkeypatch.setenv("GREENROOM_SOCKET", "unix:" + greenroom_host.socket)
        monkeypatch.setenv("XDG_RUNTIME_DIR", "/nonexistent")
        with Client() as client:
            assert client.ping()
        with Client("unix:" + greenroom_host.socket) as client:
            assert client.ping()
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


# --------------------------------------------------------------------------
# the pytest plugin and HostProcess


def test_fixtures_give_each_test_its_own_host_and_clean_up(pytester, monkeypatch, tmp_path):
    record = tmp_path / "hosts.jsonl"
    monkeypatch.setenv("GREENROOM_BIN", find_binary())
    monkeypatch.setenv("AUDIT_RECORD", str(record))
    pytester.makepyfile(
        """
        import json, os
        import pytest
        from greenroom.errors import InvalidRequest, VirtualClockOnly

        def note(host, client):
            with open(os.environ["AUDIT_RECORD"], "a") as f:
                f.write(json.dumps({"pid": host.pid, "socket": host.socket, "dir": host.directory}) + "\\n")
            # a fresh host: nothing defined yet, virtual clock at 0
            client.call("classes.define", {"name": "OnlyHere"})
            assert client.call("clock.now")["ms"] == 0.0

        def test_one(greenroom_host, greenroom_client):
            note(greenroom_host, greenroom_client)
            kept = greenroom_host.client()  # closed at teardown
            assert kept.ping()
            assert greenroom_client.call("clock.advance", {"ms": 5})["ms"] == 5.0

        def test_two(greenroom_host, greenroom_client):
            note(greenroom_host, greenroom_client)

        @pytest.mark.greenroom_args("--max-batch", "2")
        def test_args(greenroom_client):
            with pytest.raises(InvalidRequest):
                greenroom_client.batch(["host.ping"] * 3)

        @pytest.mark.greenroom_args(clock="real")
        def test_real_clock(greenroom_client):
            with pytest.raises(VirtualClockOnly):
                greenroom_client.call("clock.advance", {"ms": 1})
        """
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=4)
    hosts = [json.loads(line) for line in record.read_text().splitlines()]
    assert len(hosts) == 2
    assert hosts[0]["pid"] != hosts[1]["pid"] and hosts[0]["socket"] != hosts[1]["socket"]
    for host in hosts:
        with pytest.raises(ProcessLookupError):
            os.kill(host["pid"], 0)  # exited and reaped: no stray process
        assert not os.path.exists(host["socket"])
        assert not os.path.exists(host["dir"])


def test_host_process_outside_pytest():
    with HostProcess.start() as host:
        assert host.ready["event"] == "ready" and host.listen == [f"unix:{host.socket}"]
        client = host.client()
        assert client.ping()
        directory, socket_path = host.directory, host.socket
    assert host.process.returncode == 0
    assert client.closed
    assert not os.path.exists(socket_path) and not os.path.exists(directory)


# --------------------------------------------------------------------------
# the endpoint's rule for null-id errors, without I/O


def _null_error(code=-32700):
    return {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": "unreadable"}}


def test_a_null_id_error_goes_to_the_oldest_message_that_can_still_get_one():
    from greenroom.endpoint import Completed, Endpoint, NotificationRejected, Unmatched

    endpoint = Endpoint()
    endpoint.notification("n1")
    first, _ = endpoint.request("a")
    endpoint.notification("n2")
    second, _ = endpoint.request("b")
    [rejected] = endpoint.receive(_null_error())  # n1's
    assert isinstance(rejected, NotificationRejected) and isinstance(rejected.error, ParseError)
    assert endpoint.receive({"jsonrpc": "2.0", "id": 1, "result": "A"}) == [Completed(first)]
    [rejected] = endpoint.receive(_null_error(-32600))  # n2's
    assert isinstance(rejected, NotificationRejected) and isinstance(rejected.error, InvalidRequest)
    assert not second.done
    assert endpoint.receive(_null_error()) == [Completed(second)]
    with pytest.raises(ParseError):
        second.outcome()

    # a reply to a later request proves earlier notifications were read without error
    endpoint = Endpoint()
    endpoint.notification("n")
    ok, _ = endpoint.request("a")
    endpoint.receive({"jsonrpc": "2.0", "id": 1, "result": 1})
    failing, _ = endpoint.request("b")
    assert endpoint.receive(_null_error()) == [Completed(failing)]

    # a request given up on keeps its place: its late null-id error is dropped
    endpoint = Endpoint()
    slow, _ = endpoint.request("slow")
    endpoint.abandon(slow)
    fast, _ = endpoint.request("fast")
    assert endpoint.receive(_null_error()) == [Unmatched(_null_error())]
    assert not fast.done
    # ...and so does one whose late reply came: then the next null-id error is fast's
    endpoint = Endpoint()
    slow, _ = endpoint.request("slow")
    endpoint.abandon(slow)
    fast, _ = endpoint.request("fast")
    assert endpoint.receive({"jsonrpc": "2.0", "id": 1, "result": "late"}) == [
        Unmatched({"jsonrpc": "2.0", "id": 1, "result": "late"})
    ]
    assert endpoint.receive(_null_error()) == [Completed(fast)]
    # a request never sent (the connection was already gone) keeps no place
    endpoint = Endpoint()
    unsent, _ = endpoint.request("x")
    endpoint.abandon(unsent, sent=False)
    nxt, _ = endpoint.request("y")
    assert endpoint.receive(_null_error()) == [Completed(nxt)]


def test_async_client_has_the_sync_clients_methods():
    public = {name for name in dir(Client) if not name.startswith("_")}
    assert public - {name for name in dir(AsyncClient) if not name.startswith("_")} == set()
    for name in ("call", "notify", "batch", "ping", "subscribe", "unsubscribe", "poll_events", "close"):
        assert asyncio.iscoroutinefunction(getattr(AsyncClient, name)), name
