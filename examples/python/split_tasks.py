#!/usr/bin/env python3
"""The table article's two main-thread techniques with Greenroom (docs/tasks.md): preload cell templates in idle
time, paused while the user drags, and split a heavy cell into one small task per run-loop pass.

The article (MDTable, rebuilding NetEase Cloud Music's home feed) could not move cell work off the main thread,
so it preloaded cell templates when the run loop was about to sleep, in a `default` mode that scrolling pauses,
and split a heavy row's binding (six item views) into six `common` tasks, one per pass, so that no pass held
the main thread long enough to drop a frame. Greenroom's loop thread is that main thread. This script:

1. **templates**: a range session over a heterogeneous feed (sections whose rows are different classes, each
   `viewDidLoad` costing --load-ms) with `templates: true` queues one warm-up per row class; while a drag is
   held the warm-ups wait (`tasks.status` says `paused`), and they run once it ends;
2. **splitting**: a heavy row costing --heavy-ms is queued with `tasks.add` whole, then split into --parts; a
   second client pings the host the whole time (as frames would tick), and the script prints how late the
   pings came back in each case: the worst is about one task's cost, so splitting cuts it by the number of parts.

By default it starts its own host (real clock) from $GREENROOM_BIN or the repository's .build/debug/greenroom.

    python examples/python/split_tasks.py --heavy-ms 60 --parts 6
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

try:
    import greenroom  # noqa: F401
except ImportError:  # not installed: use the client from this repository
    sys.path.insert(0, str(REPO / "clients" / "python" / "src"))

from greenroom import Client, GreenroomError
from greenroom.testing import HostProcess, find_binary_or_exit

ROW_CLASSES = ("BannerRow", "MenuRow", "PlaylistRow", "MVRow", "ChannelRow")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Idle-time templates paused by a drag, and a heavy task split into parts.")
    p.add_argument("--bin", help="the greenroom binary (default: $GREENROOM_BIN, else .build/debug/greenroom)")
    p.add_argument("--load-ms", type=float, default=8.0, help="viewDidLoad cost of each row class (default 8)")
    p.add_argument("--heavy-ms", type=float, default=60.0, help="the heavy row's binding cost (default 60)")
    p.add_argument("--parts", type=int, default=6, help="parts to split it into (default 6: the article's six items)")
    p.add_argument("--json", action="store_true", help="print only the result, as one JSON line")
    args = p.parse_args(argv)
    if not 0 <= args.load_ms <= 1000 or not 0 < args.heavy_ms <= 10000 or not 1 <= args.parts <= 1000:
        p.error("--load-ms 0..1000, --heavy-ms up to 10000, --parts 1..1000")
    return args


def templates(client: Client, load_ms: float) -> dict[str, Any]:
    """Templates queued at create, held while a drag is down, run after it."""
    for name in ROW_CLASSES:
        client.classes.define(name, hooks={"viewDidLoad": {"costMs": load_ms}})
    sections = [{"count": 10, "itemLength": 120 + 20 * i, "reuseIdentifier": name} for i, name in enumerate(ROW_CLASSES)]
    viewport = {"width": 375, "height": 667}
    # The user is dragging another list (a tab next to the feed) when the feed is built.
    other = client.call("range.create", {"viewport": viewport, "count": 50, "itemLength": 44})["session"]
    client.call("range.willBeginDragging", {"session": other})
    created = client.call("range.create", {"viewport": viewport, "sections": sections, "templates": True})
    session, queued = created["session"], created["templatesQueued"]
    held = client.tasks.status()
    while_dragging = {"paused": held["paused"], "pending": held["pending"], "runnable": held["runnable"]}
    client.call("range.willEndDragging", {"session": other, "velocity": 0})
    client.call("range.didEndDecelerating", {"session": other})
    deadline = time.monotonic() + 30
    while client.tasks.status()["pending"] and time.monotonic() < deadline:
        time.sleep(0.005)
    warm = {p["class"]: p["idle"] for p in client.pool.status()["pools"] if p["class"] in ROW_CLASSES}
    for sid in (session, other):
        client.call("range.destroy", {"session": sid})
    return {"queued": queued, "whileDragging": while_dragging, "warmAfter": warm}


def ping_while(host: HostProcess, busy: threading.Event, out: list[float]) -> None:
    """Another client's pings, back to back while `busy` is set: how late each comes back, in ms."""
    with host.client() as other:
        while busy.is_set():
            t0 = time.perf_counter()
            other.ping()
            out.append((time.perf_counter() - t0) * 1000)


def one_heavy_row(host: HostProcess, client: Client, key: str, heavy_ms: float, parts: int) -> dict[str, float]:
    latencies: list[float] = []
    busy = threading.Event()
    busy.set()
    pinger = threading.Thread(target=ping_while, args=(host, busy, latencies))
    pinger.start()
    time.sleep(0.05)  # the pinger is pinging before the work starts
    client.subscribe(["task"])
    done = threading.Event()
    client.on("task", lambda e: done.set() if e.get("done") and e.get("key") == key else None)
    client.call("tasks.add", {"key": key, "mode": "common", "costMs": heavy_ms, "parts": parts})
    deadline = time.monotonic() + 30
    while not done.is_set() and time.monotonic() < deadline:
        client.poll_events(0.01)
    time.sleep(0.05)
    busy.clear()
    pinger.join()
    client.off("task")
    ordered = sorted(latencies)
    return {"pings": len(ordered), "median": statistics.median(ordered), "max": ordered[-1],
            "p99": ordered[max(0, int(len(ordered) * 0.99) - 1)]}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    host = HostProcess.start(binary=find_binary_or_exit(args.bin, "split_tasks"), clock="real")
    try:
        with host.client() as client:
            t = templates(client, args.load_ms)
            whole = one_heavy_row(host, client, "heavy-row", args.heavy_ms, 1)
            split = one_heavy_row(host, client, "heavy-row-split", args.heavy_ms, args.parts)
        result = {"templates": t, "whole": whole, "split": split, "heavyMs": args.heavy_ms, "parts": args.parts}
        if args.json:
            print(json.dumps(result, separators=(",", ":")))
            return 0
        print("The table article's techniques on Greenroom's loop thread (docs/tasks.md)")
        print()
        d = t["whileDragging"]
        print(f"templates: {t['queued']} warm-ups queued; while the drag was held paused={d['paused']}, "
              f"{d['pending']} pending, {d['runnable']} runnable; after it, warm: {t['warmAfter']}")
        print()
        print(f"a {args.heavy_ms:g} ms row while another client pings:")
        print(f"{'task':<22}{'pings':>7}{'median ms':>11}{'p99 ms':>9}{'max ms':>9}")
        for name, r in ((f"whole (1 part)", whole), (f"split ({args.parts} parts)", split)):
            print(f"{name:<22}{r['pings']:>7}{r['median']:>11.2f}{r['p99']:>9.2f}{r['max']:>9.2f}")
        print()
        print(f"the worst ping waited {whole['max']:.1f} ms behind the whole row and {split['max']:.1f} ms "
              f"behind one part of it")
        return 0
    except (GreenroomError, OSError) as error:
        print(f"split_tasks: {error}", file=sys.stderr)
        return 1
    finally:
        host.stop()


if __name__ == "__main__":
    sys.exit(main())
