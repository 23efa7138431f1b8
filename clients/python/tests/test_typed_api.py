"""The generated typed API (greenroom.api, greenroom.aio_api): what each call puts on the wire, and what it returns.

The sync client runs over the in-memory transport, so every test reads the exact request sent; the asyncio
client over the fake host, whose method table the tests extend. tests/integration/test_typed_host.py runs the
same API against the real host.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fakes import ScriptedTransport, error_reply, event, reply

from greenroom import Client
from greenroom.aio import AsyncClient
from greenroom.aio_api import AsyncContainer, AsyncPageSession
from greenroom.api import Container, Handle, PageSession, RangeSession, Stack
from greenroom.errors import InvalidParams, UnknownObject

PAGE_INFO = {"session": "p-1", "index": 0, "count": 3, "width": 375.0, "height": 667.0, "phase": "idle",
             "offset": 0.0, "guess": None, "visible": True, "cache": {"limit": 3}, "container": None,
             "children": []}


def answering(results: dict[str, Any]) -> tuple[Client, ScriptedTransport]:
    """A client whose host answers each method with ``results[method]`` (``{}`` when not listed)."""
    transport = ScriptedTransport(lambda m: [reply(m, results.get(m["method"], {}))])
    return Client(transport=transport), transport


def sent(transport: ScriptedTransport) -> list[tuple[str, Any]]:
    """(method, params) of every request sent; params is absent (None) when the request had none."""
    return [(m["method"], m.get("params")) for m in transport.sent]


def test_a_method_without_params_sends_none_and_returns_the_result():
    client, transport = answering({"host.ping": {"pong": True}})
    assert client.host.ping() == {"pong": True}
    assert transport.sent == [{"jsonrpc": "2.0", "id": 1, "method": "host.ping"}]  # no "params" member at all


def test_snake_case_names_map_to_the_wire_names():
    client, transport = answering({})
    client.host.memory_warning(level="critical")
    client.stack.begin_interactive_pop("s-1")
    client.classes.define("Card", memory_bytes=1024)
    assert sent(transport) == [("host.memoryWarning", {"level": "critical"}),
                               ("stack.beginInteractivePop", {"stack": "s-1"}),
                               ("classes.define", {"name": "Card", "memoryBytes": 1024})]


def test_a_keyword_param_takes_an_underscore_and_goes_out_under_its_wire_name():
    client, transport = answering({"container.create": {"container": "c-1", "class": "Card"}})
    client.container.create(class_="Card")
    client.container.create("Card", data={"url": "x"})
    client.pool.status(class_="Card")
    assert sent(transport) == [("container.create", {"class": "Card"}),
                               ("container.create", {"class": "Card", "data": {"url": "x"}}),
                               ("pool.status", {"class": "Card"})]
    with pytest.raises(TypeError):
        client.container.create(**{"class": "Card"})  # the wire name is no Python keyword argument


def test_optional_params_are_sent_only_when_given_and_falsy_values_still_go():
    client, transport = answering({})
    client.pool.status()
    client.show_rendered("Card", animated=False, data=0, duration=0)
    client.show_rendered("Card", stack=None, data=None)
    assert sent(transport) == [("pool.status", None),
                               ("showRendered", {"class": "Card", "animated": False, "data": 0, "duration": 0}),
                               ("showRendered", {"class": "Card"})]


def test_required_params_go_by_position_in_the_documents_order_and_optional_ones_only_by_name():
    client, transport = answering({"page.create": PAGE_INFO})
    # page.create lists class, pages, count and data (optional) before width and height (required).
    client.page.create(375, 667, class_="Container", count=3)
    client.range.will_end_dragging("r-1", 1.5, target_offset=300.0)
    assert sent(transport) == [
        ("page.create", {"width": 375, "height": 667, "class": "Container", "count": 3}),
        ("range.willEndDragging", {"session": "r-1", "velocity": 1.5, "targetOffset": 300.0}),
    ]
    with pytest.raises(TypeError):
        client.page.create(375, 667, "Container")  # type: ignore[misc]  # optional params are keyword-only
    with pytest.raises(TypeError):
        client.clock.advance()  # type: ignore[call-arg]  # a required param cannot be left out


def test_create_returns_a_handle_with_the_id_the_raw_reply_and_the_groups_methods():
    client, transport = answering({"page.create": PAGE_INFO})
    session = client.page.create(375, 667, class_="Container", count=3)
    assert isinstance(session, PageSession) and isinstance(session, Handle)
    assert session.id == "p-1" and session.result == PAGE_INFO and str(session) == "p-1"
    transport.sent.clear()
    session.will_begin_dragging(0.0)
    session.did_scroll(offset=120.0)
    session.will_end_dragging(375.0, 1.0, target_offset=375.0)
    session.show(2, animated=False)
    session.info()
    session.destroy()
    assert sent(transport) == [
        ("page.willBeginDragging", {"session": "p-1", "offset": 0.0}),
        ("page.didScroll", {"session": "p-1", "offset": 120.0}),
        ("page.willEndDragging", {"session": "p-1", "offset": 375.0, "velocity": 1.0, "targetOffset": 375.0}),
        ("page.show", {"session": "p-1", "index": 2, "animated": False}),
        ("page.info", {"session": "p-1"}),
        ("page.destroy", {"session": "p-1"}),
    ]


def test_every_group_with_a_create_has_its_handle():
    client, _ = answering({
        "container.create": {"container": "c-7"}, "stack.create": {"stack": "s-2"},
        "range.create": {"session": "r-3"}, "page.create": PAGE_INFO,
    })
    made = [client.container.create("Card"), client.stack.create(375, 667), client.range.create(
        viewport={"width": 375, "height": 667}), client.page.create(375, 667, class_="Container")]
    assert [(type(h), h.id) for h in made] == [(Container, "c-7"), (Stack, "s-2"), (RangeSession, "r-3"),
                                               (PageSession, "p-1")]


def test_handles_pass_wherever_their_kind_of_id_goes_and_compare_by_kind_and_id():
    client, transport = answering({"stack.create": {"stack": "s-1"}, "container.create": {"container": "c-1"},
                                   "page.create": PAGE_INFO})
    stack = client.stack.create(375, 667)
    a = client.container.create("Card")
    b = client.container.handle("c-2")  # no request: a handle on an id the caller already has
    transport.sent.clear()
    stack.push(a, animated=True)
    client.stack.set_containers(stack, [a, "c-2", b])
    client.show_rendered("Card", stack=stack)
    client.page.create(375, 667, class_="Card", stack=stack)
    assert sent(transport) == [
        ("stack.push", {"stack": "s-1", "container": "c-1", "animated": True}),
        ("stack.setContainers", {"stack": "s-1", "containers": ["c-1", "c-2", "c-2"]}),
        ("showRendered", {"class": "Card", "stack": "s-1"}),
        ("page.create", {"width": 375, "height": 667, "class": "Card", "stack": "s-1"}),
    ]
    assert b.result is None
    assert b == client.container.handle("c-2") and hash(b) == hash(Container(client, "c-2"))
    assert b != a and b != client.stack.handle("c-2")  # same id, another kind of object
    assert repr(stack) == "<Stack s-1>"


def test_sequences_go_out_as_lists():
    client, transport = answering({})
    client.events.subscribe(("lifecycle", "page"), scope="all")
    client.range.delete_items("r-1", ([0, 1], [0, 2]))
    assert transport.sent[0]["params"] == {"topics": ["lifecycle", "page"], "scope": "all"}
    assert transport.sent[1]["params"] == {"session": "r-1", "paths": [[0, 1], [0, 2]]}


def test_errors_are_the_clients_typed_errors():
    transport = ScriptedTransport(lambda m: [error_reply(m, -32602, "bad ms", {"kind": "invalidParams", "path": "ms"})])
    client = Client(transport=transport)
    with pytest.raises(InvalidParams) as caught:
        client.clock.advance(ms=-1)
    assert caught.value.data["path"] == "ms"


# A wrong argument's type, as the document types the param, and what the host says of it (the same path and
# reason: tests/integration/test_typed_host.py sends each of these to the real host).
WRONG_TYPES = [
    (lambda c: c.container.info(42), "container", "expected string, got number"),
    (lambda c: c.container.info(None), "container", "is required"),
    (lambda c: c.stack.push("s-1", c.stack.handle("s-2")), "container", "expected string, got Stack"),
    (lambda c: c.clock.advance(ms="16"), "ms", "expected number, got string"),
    (lambda c: c.clock.advance(ms=True), "ms", "expected number, got boolean"),
    (lambda c: c.page.create(375, 667, class_="Card", count="3"), "count", "expected integer, got string"),
    (lambda c: c.page.create(375, 667, class_="Card", count=2.5), "count", "expected an integer, got a fraction"),
    (lambda c: c.stack.set_containers("s-1", ["c-1", 3]), "containers[1]", "expected string, got number"),
    (lambda c: c.stack.set_containers("s-1", 3), "containers", "expected array, got number"),
    (lambda c: c.stack.set_containers("s-1", [], animated="yes"), "animated", "expected boolean, got string"),
    (lambda c: c.range.create(viewport=[375, 667]), "viewport", "expected object, got array"),
    (lambda c: c.range.create(viewport={"width": "wide", "height": 667}), "viewport.width",
     "expected number, got string"),
    (lambda c: c.classes.define("Card", hooks={"init": 3}), "hooks.init", "expected object, got number"),
]


@pytest.mark.parametrize("call, path, reason", WRONG_TYPES, ids=[path for _, path, _ in WRONG_TYPES])
def test_a_wrong_argument_type_is_invalid_params_with_its_path_before_anything_is_sent(call, path, reason):
    client, transport = answering({})
    with pytest.raises(InvalidParams) as caught:
        call(client)
    error = caught.value
    assert (error.code, error.message, error.data) == (
        -32602, f"Invalid params: {path}: {reason}", {"kind": "invalidParams", "path": path, "reason": reason})
    assert transport.sent == []


def test_the_type_check_lets_through_what_the_host_takes():
    client, transport = answering({"page.create": PAGE_INFO, "range.create": {"session": "r-1"}})
    client.page.create(375.5, 667, class_="Card", count=2.0, data=[None, {"any": ["json"]}])  # 2.0 is an integer
    client.container.configure("c-1", None)  # business data: null is data
    client.range.create(viewport={"width": 375, "height": 667}, strategy="threshold")
    client.range.create(viewport={"width": 375, "height": 667}, strategy={"name": "threshold", "ratio": 0.5})
    client.clock.advance(ms=-1)  # a number: its range is the host's to check
    assert [m for m, _ in sent(transport)] == ["page.create", "container.configure", "range.create", "range.create",
                                               "clock.advance"]


def test_the_asyncio_flavour_checks_the_same_types():
    transport_sent: list[Any] = []

    class Refusing:
        async def call(self, method: str, params: Any = None) -> Any:
            transport_sent.append((method, params))

    async def main() -> None:
        from greenroom.aio_api import AsyncContainerMethods
        group = AsyncContainerMethods(Refusing())  # type: ignore[arg-type]
        with pytest.raises(InvalidParams) as caught:
            await group.info(42)  # type: ignore[arg-type]
        assert caught.value.data["path"] == "container"
        await group.info("c-1")

    asyncio.run(main())
    assert transport_sent == [("container.info", {"container": "c-1"})]


def test_events_stays_callable_beside_the_events_group():
    client, transport = answering({"events.subscribe": {"topics": ["page"], "scope": "own"}})
    assert client.events.subscribe(["page"]) == {"topics": ["page"], "scope": "own"}
    transport.feed(event("page", 1, kind="willTransition", session="p-1", **{"from": 0, "to": 1}))
    seen = list(client.events("page", timeout=0))
    assert [(e.topic, e["kind"]) for e in seen] == [("page", "willTransition")]


def test_on_registers_handlers_directly_and_as_a_decorator():
    client, transport = answering({"host.ping": {"pong": True}})
    direct: list[Any] = []
    assert client.on("lifecycle", direct.append) == direct.append

    decorated: list[str] = []

    @client.on("page")
    def page_event(params: Any) -> None:
        decorated.append(params["kind"])

    assert callable(page_event)
    transport.feed(event("lifecycle", 1, container="c-1", event="init"),
                   event("page", 2, kind="willTransition", session="p-1"))
    client.host.ping()
    assert [e["event"] for e in direct] == ["init"] and decorated == ["willTransition"]
    client.off("page")
    transport.feed(event("page", 3, kind="didTransition", session="p-1"))
    client.host.ping()
    assert decorated == ["willTransition"] and [e.topic for e in client.events(timeout=0)] == ["page"]


def test_the_asyncio_flavour_sends_the_same_requests(fake_host):
    calls: list[tuple[str, Any]] = []

    def recording(result: Any):
        def impl(conn: Any, params: Any) -> Any:
            calls.append((method_of[id(impl)], params))
            return result
        return impl

    method_of: dict[int, str] = {}
    for method, result in {"page.create": PAGE_INFO, "page.didScroll": {"session": "p-1"},
                           "container.create": {"container": "c-4"}, "container.info": {"container": "c-4"},
                           "stack.push": {}}.items():
        impl = recording(result)
        method_of[id(impl)] = method
        fake_host.methods[method] = impl

    async def main() -> None:
        async with AsyncClient(fake_host.path) as client:
            assert await client.host.ping() == {"pong": True}
            session = await client.page.create(375, 667, class_="Container", count=3)
            assert isinstance(session, AsyncPageSession) and session.result == PAGE_INFO
            await session.did_scroll(offset=40.0)
            await client.page.did_scroll(session, offset=50.0)
            card = await client.container.create("Card")
            assert isinstance(card, AsyncContainer)
            assert await card.info() == {"container": "c-4"}
            await client.stack.push("s-1", card)
            with pytest.raises(UnknownObject):
                await client.call("test.fail", {"code": -32002, "message": "no", "data": {"kind": "unknownObject"}})
            await client.events.subscribe(["host"])
            await client.call("test.emit", {"topic": "host", "params": {"kind": "memoryWarning"}})
            seen = [e async for e in client.events("host", timeout=0)]
            assert [e["kind"] for e in seen] == ["memoryWarning"]

    asyncio.run(asyncio.wait_for(main(), 20))
    assert calls == [
        ("page.create", {"width": 375, "height": 667, "class": "Container", "count": 3}),
        ("page.didScroll", {"session": "p-1", "offset": 40.0}),
        ("page.didScroll", {"session": "p-1", "offset": 50.0}),
        ("container.create", {"class": "Card"}),
        ("container.info", {"container": "c-4"}),
        ("stack.push", {"stack": "s-1", "container": "c-4"}),
    ]
