"""Integration tests: the generated typed API (greenroom.api, greenroom.aio_api) against the real host.

The unit tests (tests/test_typed_api.py) pin what each call sends; these check that the calls the host
gets are the ones it takes (a keyword param under its wire name, handles standing for ids, optional params
left out), and that the replies have the members their generated types say are always there.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from greenroom import Client
from greenroom.aio import AsyncClient
from greenroom.api import (ContainerInfo, HostInfo, LifecycleEvent, PageEvent, PageInfo, PageSession,
                           PageStreamState, RangeCreated, StackInfo)
from greenroom.errors import InvalidParams, UnknownObject

pytestmark = pytest.mark.integration


def has_required_members(reply: Any, typed: Any) -> bool:
    """Whether ``reply`` has every member the TypedDict ``typed`` requires (and nothing it does not know)."""
    return (isinstance(reply, dict) and typed.__required_keys__ <= reply.keys()
            and reply.keys() <= typed.__required_keys__ | typed.__optional_keys__)


def test_a_page_session_through_its_handle(greenroom_client: Client) -> None:
    client = greenroom_client
    client.events.subscribe(["lifecycle", "page"])
    session = client.page.create(375, 667, class_="Container", count=3)
    assert isinstance(session, PageSession) and session.id == session.result["session"]
    assert has_required_members(session.result, PageInfo)
    list(client.events(timeout=0))  # page 0's start-up events

    state = session.will_begin_dragging(0.0)
    state = session.did_scroll(offset=200.0)
    assert has_required_members(state, PageStreamState) and state["guess"] == 1
    session.will_end_dragging(200.0, 1.0, target_offset=375.0)
    session.did_end_dragging(200.0, True)
    session.did_end_decelerating(375.0)
    info = session.info()
    assert info["index"] == 1 and info["phase"] == "idle"

    pages = [e.params for e in client.events("page", timeout=0)]
    assert [(p["kind"], p["from"], p["to"]) for p in pages] == [("willTransition", 0, 1), ("didTransition", 0, 1)]
    assert all(has_required_members(p, PageEvent) for p in pages)
    lifecycle = [e.params for e in client.events("lifecycle", timeout=0)]
    assert lifecycle and all(has_required_members(p, LifecycleEvent) for p in lifecycle)

    session.destroy()
    with pytest.raises(UnknownObject):
        session.info()


def test_handles_stand_for_ids_in_other_groups_calls(greenroom_client: Client) -> None:
    client = greenroom_client
    stack = client.stack.create(375, 667)
    assert has_required_members(stack.result, StackInfo)
    a, b = client.container.create("Container"), client.container.create(class_="Container", data={"n": 2})
    assert has_required_members(a.result, ContainerInfo)
    client.stack.set_containers(stack, [a, b.id])
    assert stack.info()["containers"] == [a.id, b.id] and stack.info()["top"] == b.id
    popped = stack.pop()
    assert popped["container"] == b.id
    assert b.info()["parent"] is None and a.info()["appearance"] == "appeared"
    shown = client.show_rendered("Container", stack=stack)
    assert shown["warm"] is False and stack.info()["top"] == shown["container"]


def test_typed_events_and_typed_errors(greenroom_client: Client) -> None:
    client = greenroom_client
    seen: list[LifecycleEvent] = []

    @client.on("lifecycle")
    def lifecycle(event: LifecycleEvent) -> None:
        seen.append(event)

    client.events.subscribe(["lifecycle"])
    card = client.container.create("Container")
    assert [e["event"] for e in seen] == ["init"] and seen[0]["container"] == card.id
    with pytest.raises(InvalidParams) as caught:
        client.clock.advance(ms=-1)
    assert caught.value.data["path"] == "ms"
    assert client.clock.advance(ms=16)["now"] == 16.0
    info = client.host.info()
    assert has_required_members(info, HostInfo) and info["clock"] == "virtual"


# A typed call with an argument of the wrong JSON type, and the same params as the wire carries them.
WRONG_TYPES: list[tuple[Any, str, dict[str, Any]]] = [
    (lambda c: c.container.info(42), "container.info", {"container": 42}),
    (lambda c: c.container.info(None), "container.info", {"container": None}),
    (lambda c: c.clock.advance(ms="16"), "clock.advance", {"ms": "16"}),
    (lambda c: c.clock.advance(ms=True), "clock.advance", {"ms": True}),
    (lambda c: c.page.create(375, 667, class_="Container", count=2.5), "page.create",
     {"width": 375, "height": 667, "class": "Container", "count": 2.5}),
    (lambda c: c.stack.set_containers("s-1", ["c-1", 3]), "stack.setContainers", {"stack": "s-1",
                                                                                  "containers": ["c-1", 3]}),
    (lambda c: c.range.create(viewport={"width": "wide", "height": 667}), "range.create",
     {"viewport": {"width": "wide", "height": 667}}),
    (lambda c: c.classes.define("Card", hooks={"init": 3}), "classes.define", {"name": "Card", "hooks": {"init": 3}}),
]


@pytest.mark.parametrize("typed, method, params", WRONG_TYPES, ids=[m for _, m, _ in WRONG_TYPES])
def test_a_wrong_type_is_refused_before_sending_as_the_host_refuses_it(greenroom_client: Client, typed: Any,
                                                                        method: str, params: dict[str, Any]) -> None:
    with pytest.raises(InvalidParams) as by_host:
        greenroom_client.call(method, params)
    with pytest.raises(InvalidParams) as by_client:
        typed(greenroom_client)
    client, host = by_client.value, by_host.value
    assert (client.code, client.data["kind"], client.data["path"]) == (host.code, host.data["kind"], host.data["path"])
    if host.data["reason"].startswith(("expected", "is required")):  # the decoder's words, not a handler's own
        assert (client.message, client.data) == (host.message, host.data)


def test_the_asyncio_flavour(greenroom_host: Any) -> None:
    async def main() -> None:
        async with AsyncClient(greenroom_host.socket) as client:
            assert await client.host.ping() == {"pong": True}
            ranges = await client.range.create(viewport={"width": 375, "height": 667}, count=1000, item_length=44.0)
            assert has_required_members(ranges.result, RangeCreated) and ranges.result["count"] == 1000
            await ranges.will_begin_dragging(offset=0.0)
            state = await ranges.did_scroll(offset=440.0)
            assert state["session"] == ranges.id
            assert (await client.range.state(ranges, paths=[[0, 10]]))["items"][0]["path"] == [0, 10]
            await client.events.subscribe(["host"], scope="all")
            purge = await client.host.memory_warning(level="critical")
            assert purge["level"] == "critical"
            kinds = [e["kind"] async for e in client.events("host", timeout=0)]
            assert kinds == ["memoryWarning"]
            await ranges.destroy()

    asyncio.run(asyncio.wait_for(main(), 30))


README = Path(__file__).resolve().parents[2] / "README.md"


def readme_block(marker: str) -> str:
    """The Python block of clients/python/README.md that holds ``marker``."""
    [block] = [b for b in re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S) if marker in b]
    return block


def test_the_readme_typed_api_example_runs_as_written(greenroom_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GREENROOM_SOCKET", greenroom_host.socket)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(readme_block("from greenroom.api import"), "clients/python/README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    assert "p-1 0" in lines  # session.id and page.create's index
    assert any(line.endswith(" viewDidLoad") for line in lines)  # the typed lifecycle handler ran


def test_the_readme_asyncio_typed_example_runs_as_written(greenroom_host: Any,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GREENROOM_SOCKET", greenroom_host.socket)
    block = readme_block("await client.range.create(")
    imports, _, body = block.partition("\n\n")
    namespace: dict[str, Any] = {}
    exec(compile(imports + "\n\nasync def main():\n" + textwrap.indent(body, "    "), "clients/python/README.md",
                 "exec"), namespace)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        asyncio.run(asyncio.wait_for(namespace["main"](), 30))
    lines = out.getvalue().splitlines()
    # range.create's first update (mode minimum) and the drag's (mode full, new rows on screen).
    assert lines[0].startswith("minimum ") and lines[-1].startswith("full "), lines
    assert int(lines[-1].split()[1]) > 0, lines
