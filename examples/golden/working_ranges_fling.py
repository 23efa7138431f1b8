"""Working ranges on a fling (docs/ranges.md): Texture's range controller as a range session.

A list of 1000 rows of 44 points in a 375x667 viewport. The finger drags it down a little (a frame every
16 ms of virtual clock), lifts with a velocity of 4 points per ms, and the list decelerates to the target
the host works out, frame by frame, to ``didEndDecelerating``: the ranges lean toward the motion (``full``
mode from the first drag), rows enter and leave the preload, display and visible ranges, and the
``prefetch`` events say what to fetch and what to cancel. Run it to record ``working_ranges_fling.ndjson``.
"""

from __future__ import annotations

from typing import cast

from goldenrun import record

from greenroom import Client
from greenroom.api import RangeRanges
from greenroom.lifecycle import range_drag
from greenroom.transcript import Recording


def scenario(client: Client, recording: Recording) -> None:
    client.subscribe(["range", "prefetch", "batch"])
    rows = client.range.create({"width": 375, "height": 667}, count=1000, item_length=44)
    recording.comment("the drag, the lift with a velocity, then the deceleration's frames")
    fling = range_drag(client, rows.id, [0, 30, 80, 150, 240], fling=4.0, fling_frames=8, frame_ms=16)
    assert fling.target is not None and fling.target > 1000, fling
    assert fling.reply["offset"] == fling.target and fling.reply["phase"] == "idle", fling
    state = cast(RangeRanges, rows.state())  # without paths, the reply is the ranges themselves
    # At rest the rows on screen are those under the target: row floor(target / 44) first.
    assert state["visible"][0] == [0, int(fling.target // 44)] and state["mode"] == "full", state["visible"]


if __name__ == "__main__":
    record(__file__, "a range session of 1000 rows: a drag, a fling and its deceleration", scenario)
