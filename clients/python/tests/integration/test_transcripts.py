"""Transcripts the client records are golden tests: `greenroom replay` sends their requests to a fresh host
and gets every reply and event back the same (docs/transcripts.md)."""

from __future__ import annotations

import asyncio
import json
import subprocess

import pytest

from greenroom.aio import AsyncClient
from greenroom.lifecycle import swipe_page, swipe_page_async
from greenroom.testing import HostProcess

pytestmark = pytest.mark.integration


def replay(binary: str, path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([binary, "replay", str(path), *args], capture_output=True, text=True, timeout=60,
                          check=False)


def test_a_recorded_client_replays_the_same(greenroom_host, tmp_path):
    client = greenroom_host.client()
    path = tmp_path / "swipe.ndjson"
    with client.record(path, comment="a cancelled swipe, a batch and a notification") as recording:
        client.subscribe(["lifecycle", "page"])
        session = client.page.create(375, 667, class_="Container", count=3, initial_index=1)
        swipe_page(client, session.id, 1, 2, width=375, cancelled=True)
        client.batch([("page.info", {"session": session.id}), ("clock.advance", {"ms": 16})])
        client.notify("host.ping")
        client.call("clock.settle")
    header = json.loads(path.read_text().splitlines()[0])
    assert header == {"transcript": "greenroom", "version": 1, "protocol": 1, "clock": "virtual",
                      "host": header["host"]}
    assert recording.messages > 20
    done = replay(greenroom_host.command[0], path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the same" in done.stdout


def test_a_recording_replays_against_a_running_host(greenroom_host, tmp_path):
    """--socket: the replay resets a running host (a virtual clock allows it) and gets the same. The host is
    a fresh one: host.reset does not turn its clock back, and every event's `t` is part of the test."""
    client = greenroom_host.client()
    path = tmp_path / "show.ndjson"
    with client.record(path):
        client.subscribe("lifecycle")
        session = client.page.create(375, 667, class_="Container", count=3)
        session.show(2)
        client.call("clock.settle")
    with HostProcess.start() as other:
        with other.client() as objects:  # objects of another connection, which the reset tears down
            objects.page.create(375, 667, class_="Container", count=2)
            done = replay(greenroom_host.command[0], path, "--socket", other.socket)
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_async_recording_replays_the_same(greenroom_host, tmp_path):
    path = tmp_path / "async.ndjson"

    async def main() -> None:
        async with AsyncClient(greenroom_host.socket) as client:
            async with client.record(path):
                await client.subscribe(["lifecycle", "page"])
                session = await client.page.create(375, 667, class_="Container", count=3)
                await swipe_page_async(client, session.id, 0, 1, width=375)
                await client.batch([("host.ping", None), ("clock.advance", {"ms": 5})])

    asyncio.run(asyncio.wait_for(main(), 30))
    done = replay(greenroom_host.command[0], path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_changed_reply_is_found_under_its_request(greenroom_host, tmp_path):
    client = greenroom_host.client()
    path = tmp_path / "t.ndjson"
    with client.record(path):
        client.subscribe("lifecycle")
        client.page.create(375, 667, class_="Container", count=3, initial_index=1)
    lines = path.read_text().splitlines()
    # A hook the host did not call: page.create's events, with one swapped for another.
    at = next(i for i, text in enumerate(lines) if '"event":"viewWillAppear"' in text)
    lines[at] = lines[at].replace("viewWillAppear", "viewDidAppear")
    path.write_text("\n".join(lines) + "\n")
    done = replay(greenroom_host.command[0], path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "page.create" in done.stdout and "c-1 viewDidAppear" in done.stdout, done.stdout
