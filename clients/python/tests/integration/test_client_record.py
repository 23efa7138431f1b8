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
    assert header == {"transcript": "greenroom", "version": 1, "protocol": 1, "clock": "virtual", "uikit": 17,
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


SWIPE_TEST = """
    from greenroom.lifecycle import swipe_pages

    def test_toward_2_then_back_to_0(greenroom_golden):
        c = greenroom_golden
        c.subscribe(["lifecycle", "page"])
        s = c.page.create(375, 667, class_="Container", count=3, initial_index=1)
        swipe_pages(c, s.id, [375, 450, 560, 370, 200], rest=0, velocity=-0.8, target=0)
"""


def test_greenroom_golden_on_the_real_host(pytester):
    """The fixture end to end with the real binary: the first run writes the golden file, the second passes,
    and a changed lifecycle order fails with the diff naming the container and the request under it."""
    pytester.makepyfile(test_swipe=SWIPE_TEST)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1, warnings=1)
    golden = pytester.path / "golden" / "test_swipe" / "test_toward_2_then_back_to_0.ndjson"
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)

    # As if the host called didDisappear 1 before didAppear 0 at rest: swap the two in the golden file.
    lines = golden.read_text().splitlines()
    did_appear = next(i for i, text in enumerate(lines) if '"event":"viewDidAppear"' in text and '"index":0' in text)
    assert '"event":"viewDidDisappear"' in lines[did_appear + 1]
    lines[did_appear], lines[did_appear + 1] = lines[did_appear + 1], lines[did_appear]
    golden.write_text("\n".join(lines) + "\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        '*transcripts differ at message *, under request * (page.didEndDecelerating {"session":"p-1","offset":0*',
        # page 1's child (c-1) and page 0's (c-3, made when the drag turned toward page 0)
        ">*c-1 viewDidDisappear (cause 11)*c-3 viewDidAppear (cause 11)",
    ])
    assert "Traceback" not in result.stdout.str()
