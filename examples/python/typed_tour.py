#!/usr/bin/env python3
"""A tour of the client's typed API: methods grouped as the wire groups them, handles, typed events, asyncio.

Every call below is one JSON-RPC request, generated from rpc-schema/openrpc.json (greenroom.api and
greenroom.aio_api): `client.page.create(...)` is `page.create`, `session.did_scroll(offset=...)` is
`page.didScroll` with the session's id, `class_=` goes out as `class`. mypy --strict checks the names, the
params and what is read from the replies and the events (clients/python/tests/test_typed_api_typing.py
runs it on this file).

By default the script starts its own host (virtual clock) from $GREENROOM_BIN or the repository's
.build/debug/greenroom on a temporary socket; --socket connects to a running one instead.

    python examples/python/typed_tour.py
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

try:
    import greenroom  # noqa: F401
except ImportError:  # not installed: use the client from this repository
    sys.path.insert(0, str(REPO / "clients" / "python" / "src"))

from greenroom import Client, GreenroomError, InvalidParams
from greenroom.aio import AsyncClient
from greenroom.api import LifecycleEvent, PageEvent, PageSession
from greenroom.testing import HostProcess, find_binary_or_exit


def pages(client: Client) -> None:
    """A page session driven through its handle, its children's hooks and its transitions as typed events."""
    hooks: list[str] = []

    @client.on("lifecycle")
    def lifecycle(event: LifecycleEvent) -> None:  # checked against the `lifecycle` topic's type
        page = event.get("page")
        if page is not None and event["event"] in ("viewWillAppear", "viewDidAppear", "viewWillDisappear",
                                                   "viewDidDisappear"):
            hooks.append(f"{event['event']} {page.get('index')}")

    @client.on("page")
    def transition(event: PageEvent) -> None:
        print(f"page event: {event['kind']} {event['from']} -> {event['to']}")

    client.events.subscribe(["lifecycle", "page"])
    session: PageSession = client.page.create(375, 667, class_="Container", count=3)
    print(f"page.create: {session.id}, on page {session.result['index'] if session.result else '?'}")
    hooks.clear()

    # A swipe from page 0 to page 1, as UIScrollViewDelegate reports it.
    session.will_begin_dragging(0.0)
    for offset in (60.0, 150.0, 240.0):
        state = session.did_scroll(offset=offset)
    print(f"dragging: phase {state['phase']}, heading for page {state['guess']}")
    session.will_end_dragging(240.0, 1.0, target_offset=375.0)
    session.did_end_dragging(240.0, True)
    session.did_end_decelerating(375.0)
    print("hooks:", ", ".join(hooks))
    print(f"at rest on page {session.info()['index']}")
    session.destroy()


def stacks(client: Client) -> None:
    """Containers pushed onto a stack: handles stand for ids in any group's calls."""
    stack = client.stack.create(375, 667)
    first, second = client.container.create("Container"), client.container.create("Container")
    stack.set_containers([first, second])
    popped = stack.pop()
    print(f"stack {stack.id}: popped {popped['container']}, top is {stack.info()['top']}")
    try:
        client.clock.advance(ms=-1)
    except InvalidParams as error:  # the host's errors are the client's typed errors
        print(f"clock.advance(ms=-1): {error.code} {error.data['path']}")
    print(f"clock.advance(ms=16): now {client.clock.advance(ms=16)['now']}")


async def ranges(socket: str) -> None:
    """The asyncio flavour: the same names, each a coroutine."""
    async with AsyncClient(socket) as client:
        await client.events.subscribe(["prefetch"])
        session = await client.range.create(viewport={"width": 375, "height": 667}, count=1000)
        await session.will_begin_dragging(offset=0.0)
        await session.did_scroll(offset=2000.0)
        fetched = [event async for event in client.events("prefetch", timeout=0)]
        print(f"range {session.id}: {len(fetched)} prefetch events after a 2000 pt drag")
        await session.destroy()


def main(argv: list[str] | None = None) -> int:
    """Start a host (or use ``--socket``'s) and take the tour on it."""
    parser = argparse.ArgumentParser(description="A tour of the typed API (sync and asyncio).")
    parser.add_argument("--socket", help="connect to a running host (default: start one with a virtual clock)")
    args = parser.parse_args(argv)
    host = None
    try:
        if args.socket:
            socket = args.socket
        else:
            host = HostProcess.start(binary=find_binary_or_exit(None, "typed_tour"))
            assert host.socket is not None
            socket = host.socket
        with Client(socket) as client:
            print(f"host.ping: {client.host.ping()}")
            pages(client)
            stacks(client)
        asyncio.run(ranges(socket))
        return 0
    except (GreenroomError, OSError) as error:
        print(f"typed_tour: {error}", file=sys.stderr)
        return 1
    finally:
        if host is not None:
            host.stop()


if __name__ == "__main__":
    sys.exit(main())
