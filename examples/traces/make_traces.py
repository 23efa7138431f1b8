#!/usr/bin/env python3
"""Writes the scroll traces that examples/python/prefetch_sim.py replays (deterministic: a fixed seed).

A trace is what a UIScrollViewDelegate would see from a user's finger on a phone-sized list, at 60 Hz
(one `didScroll` per 16 ms frame):

    {"trace": "fling", "description": "...", "seed": 4, "frameMs": 16,
     "events": [{"t_ms": 0, "kind": "willBeginDragging", "offset": 0.0},
                {"t_ms": 16, "kind": "didScroll", "offset": 12.5}, ...,
                {"t_ms": 112, "kind": "willEndDragging", "offset": 210.0, "velocity": 4.2},
                {"t_ms": 128, "kind": "didScroll", "offset": 276.8}, ...,
                {"t_ms": 2410, "kind": "didEndDecelerating", "offset": 2305.1}]}

`kind` is willBeginDragging | didScroll | willEndDragging | didEndDecelerating | insertAtHead (`count` new rows
arrive at the head of the list; the finger does not move); `velocity` (points per ms,
only on willEndDragging) is the finger's speed at release. Offsets are absolute, from the top of an
endless list: the simulator replays their differences inside the content actually loaded.

Deceleration follows UIScrollView's normal rate, as docs/ranges.md does: every millisecond the velocity is
multiplied by 0.998 (a release at v points/ms travels v * 0.998 / 0.002 in all); the motion ends below
0.02 points/ms, or at the top of the list. A drag that begins during a deceleration catches it (no
didEndDecelerating for the caught one, as on iOS). A tap on the status bar scrolls to the top in 300 ms
with didScroll alone, no drag.

The five traces:

- steady:      reading — short drags (180-320 points, gentle releases) with pauses to read.
- fling:       a little reading, then hard flings (release 3.5-6 points/ms), some caught by the next.
- reversal:    reading down, a flick back up, dragging up, then flinging down again, twice.
- jump_to_top: reading down with two flings, a status-bar tap to the top, reading again.
- feed_grows:  reading down while 2-5 new rows arrive at the head between drags, eight times.

    python3 examples/traces/make_traces.py            # rewrites examples/traces/*.json
    python3 examples/traces/make_traces.py --check    # exit 1 if the files differ from what it makes
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 4  # the random generator's seed (4, for the fourth article: preloading)
FRAME_MS = 16
DECELERATION = 0.998  # per millisecond (UIScrollView.DecelerationRate.normal)
STOP_VELOCITY = 0.02  # points per ms


class Recorder:
    """A finger on a scroll view: drags, releases, decelerations, pauses; records the delegate calls."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.t = 0
        self.offset = 0.0
        self.velocity = 0.0  # of a running deceleration
        self.decelerating = False
        self.events: list[dict] = []

    def emit(self, kind: str, **extra) -> None:
        self.events.append({"t_ms": self.t, "kind": kind, "offset": round(self.offset, 2), **extra})

    def drag(self, distance: float, duration_ms: float, release: float, coast_ms: float | None = None) -> None:
        """A drag by `distance` points (negative: toward the top) over `duration_ms`, released at
        `release` points/ms, then the deceleration (cut short after `coast_ms` when the next gesture
        catches it)."""
        self.emit("willBeginDragging")
        self.decelerating = False
        frames = max(1, round(duration_ms / FRAME_MS))
        # The finger speeds up then keeps its pace: a smoothstep position profile.
        start = self.offset
        for i in range(1, frames + 1):
            self.t += FRAME_MS
            x = i / frames
            self.offset = max(0.0, start + distance * (3 * x * x - 2 * x * x * x))
            self.emit("didScroll")
        self.emit("willEndDragging", velocity=round(release, 3))
        self.velocity = release
        self.decelerating = True
        self.coast(coast_ms)

    def coast(self, limit_ms: float | None) -> None:
        """Runs the deceleration frame by frame; leaves it running when cut short."""
        elapsed = 0
        while self.decelerating and (limit_ms is None or elapsed < limit_ms):
            for _ in range(FRAME_MS):
                self.velocity *= DECELERATION
                self.offset += self.velocity
            self.t += FRAME_MS
            elapsed += FRAME_MS
            if self.offset <= 0:
                self.offset = 0.0
                self.velocity = 0.0
            self.emit("didScroll")
            if abs(self.velocity) < STOP_VELOCITY:
                self.decelerating = False
                self.emit("didEndDecelerating")

    def insert_at_head(self, count: int) -> None:
        """New rows arrive at the head of the list (a feed or chat that grows while it is read)."""
        self.emit("insertAtHead", count=count)

    def pause(self, ms: float) -> None:
        assert not self.decelerating
        self.t += int(ms)

    def scroll_to_top(self, duration_ms: float = 300) -> None:
        """A status-bar tap: an animation to the top, didScroll only."""
        assert not self.decelerating
        frames = max(1, round(duration_ms / FRAME_MS))
        start = self.offset
        for i in range(1, frames + 1):
            self.t += FRAME_MS
            x = i / frames
            self.offset = start * (1 - x) ** 3  # ease out
            self.emit("didScroll")

    # Gestures with the trace's randomness

    def read(self, n: int, up: bool = False) -> None:
        for _ in range(n):
            sign = -1 if up else 1
            self.drag(sign * self.rng.uniform(180, 320), self.rng.uniform(250, 400), sign * self.rng.uniform(0.2, 0.5))
            self.pause(self.rng.uniform(800, 2000))

    def fling(self, up: bool = False, caught_after_ms: float | None = None) -> None:
        sign = -1 if up else 1
        self.drag(sign * self.rng.uniform(150, 250), self.rng.uniform(80, 120), sign * self.rng.uniform(3.5, 6.0),
                  coast_ms=caught_after_ms)
        if caught_after_ms is None:
            self.pause(self.rng.uniform(300, 600))


def steady(r: Recorder) -> None:
    r.read(24)


def fling(r: Recorder) -> None:
    r.read(2)
    for caught in (None, 600, None, None, 500, None):
        r.fling(caught_after_ms=caught)
    r.read(2)


def reversal(r: Recorder) -> None:
    for _ in range(2):
        r.read(6)
        r.fling(up=True)
        r.read(3, up=True)
        r.fling()
        r.fling()
    r.read(2)


def jump_to_top(r: Recorder) -> None:
    r.read(10)
    r.fling()
    r.read(2)
    r.fling()
    r.read(2)
    r.scroll_to_top()
    r.pause(1000)
    r.read(3)


def feed_grows(r: Recorder) -> None:
    for _ in range(8):
        r.read(2)
        r.insert_at_head(r.rng.randint(2, 5))
    r.read(2)


TRACES = {
    "steady": (steady, "reading: short gentle drags with pauses, always down"),
    "fling": (fling, "hard flings down (release 3.5-6 points/ms), two caught by the next drag"),
    "reversal": (reversal, "reading down, a flick and drags back up, flings down again; twice"),
    "jump_to_top": (jump_to_top, "reading and two flings down, a status-bar tap to the top, reading again"),
    "feed_grows": (feed_grows, "reading down while new rows arrive at the head between drags, eight times"),
}


def make(name: str) -> dict:
    build, description = TRACES[name]
    # One generator per trace, seeded from the trace's name: editing one trace leaves the others alone.
    r = Recorder(random.Random(f"{SEED}:{name}"))
    build(r)
    assert all(math.isfinite(e["offset"]) for e in r.events)
    return {"trace": name, "description": description, "seed": SEED, "frameMs": FRAME_MS, "events": r.events}


def encode(trace: dict) -> str:
    """One event per line: small, and readable in a diff."""
    head = {k: v for k, v in trace.items() if k != "events"}
    lines = [json.dumps(e, separators=(",", ":")) for e in trace["events"]]
    body = json.dumps(head, separators=(", ", ": "))[:-1]
    return body + ', "events": [\n' + ",\n".join(lines) + "\n]}\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=HERE, help="folder for the JSON files (default: this one)")
    p.add_argument("--check", action="store_true", help="compare with the files instead of writing them")
    args = p.parse_args(argv)
    stale = []
    for name in TRACES:
        text = encode(make(name))
        path = args.out / f"{name}.json"
        if args.check:
            if not path.is_file() or path.read_text() != text:
                stale.append(str(path))
            continue
        path.write_text(text)
        print(f"{path}: {len(json.loads(text)['events'])} events, {len(text) / 1024:.1f} KiB")
    if stale:
        print("out of date (run make_traces.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
