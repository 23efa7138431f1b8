#!/usr/bin/env python3
"""The prerendering article's experiment with Greenroom: how much sooner does "navigation start" come with prerendering?

The article on prerendering view controllers (docs/pools.md) tapped 20-odd times to open a web page, once creating the
view controller fresh each time and once taking a prerendered one, and measured the time from the tap to
the page's `navigationStart`: 443 ms cold, 56 ms prerendered. Here:

- a scripted class stands in for the view controller: its `viewDidLoad` burns --load-ms of CPU (building
  the view), its `configure` --configure-ms (the article's `setUrl`, which starts the navigation);
- "the tap" is sending `showRendered {class, stack, data}`; "navigation start" is the moment the client
  receives the container's `configure` lifecycle event;
- cold: the class's pool has depth 0 (and is purged before each run), so every call creates, loads and
  lays out a fresh container before configuring it;
- prerendered: an `eager` pool of depth 1 keeps one container warm in the green room; before each run the
  script waits (polling `pool.status` and `tasks.status`) until the warm-up has finished, as a user who
  taps after the page has settled. The hit skips `loadView`/`viewDidLoad` and configures at once.

By default the script starts its own host (real clock) from $GREENROOM_BIN or the repository's
.build/debug/greenroom on a temporary socket; --socket connects to a running one instead (classes get a
unique prefix, since class names are global to a host). With a virtual-clock host, warm-ups run on
`tasks.drain`, which the script calls itself.

    python examples/python/prerender_experiment.py --runs 20 --load-ms 40 --configure-ms 2
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

try:
    import greenroom  # noqa: F401
except ImportError:  # not installed: use the client from this repository
    sys.path.insert(0, str(REPO / "clients" / "python" / "src"))

from greenroom import Client, GreenroomError
from greenroom.api import LifecycleEvent, LifecycleHook, ScriptedHook, Stack
from greenroom.testing import HostProcess


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Cold vs prerendered time to `configure` (the article's navigation start).")
    p.add_argument("--socket", help="connect to a running host (default: start one with a real clock)")
    p.add_argument("--bin", help="the greenroom binary to start (default: $GREENROOM_BIN, else .build/debug/greenroom)")
    p.add_argument("--runs", type=int, default=20, help="runs per mode (default 20)")
    p.add_argument("--load-ms", type=float, default=40.0, help="CPU cost of viewDidLoad, ms (default 40)")
    p.add_argument("--configure-ms", type=float, default=2.0, help="CPU cost of configure, ms (default 2)")
    p.add_argument("--width", type=float, default=375.0, help="stack width (default 375)")
    p.add_argument("--height", type=float, default=667.0, help="stack height (default 667)")
    p.add_argument("--timeout", type=float, default=30.0, help="longest wait for a warm-up, seconds (default 30)")
    p.add_argument("--json", action="store_true", help="print only the summary, as one JSON line (no table)")
    args = p.parse_args(argv)
    if args.runs < 1:
        p.error("--runs must be at least 1")
    for name in ("load_ms", "configure_ms"):
        if not 0 <= getattr(args, name) <= 10000:
            p.error(f"--{name.replace('_', '-')} must be between 0 and 10000")
    return args


def find_binary(explicit: str | None) -> str:
    candidate = explicit or os.environ.get("GREENROOM_BIN") or str(REPO / ".build" / "debug" / "greenroom")
    if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
        sys.exit(f"prerender_experiment: no greenroom binary at {candidate} (run `swift build`, set "
                 "GREENROOM_BIN, or pass --bin / --socket)")
    return candidate


class Experiment:
    """The two runs on one connection, through the client's typed API (greenroom.api: `client.pool.configure(...)`
    rather than `client.call("pool.configure", {...})`, so that mypy --strict checks every name and param)."""

    def __init__(self, client: Client, args: argparse.Namespace):
        self.client = client
        self.args = args
        prefix = f"Exp{os.getpid()}t{int(time.time() * 1000) % 100000000}"
        self.cold_class, self.warm_class = f"{prefix}Cold", f"{prefix}Prerendered"
        self.configured: dict[str, float] = {}  # container -> when its configure event arrived
        self.automatic = client.tasks.status()["automatic"]
        self.stack: Stack | None = None

    def on_lifecycle(self, event: LifecycleEvent) -> None:
        # Runs as the event is read (while the client waits for showRendered's reply): the moment
        # "navigation start" reaches the user.
        if event["event"] == "configure":
            self.configured[event["container"]] = time.perf_counter()

    def set_up(self) -> None:
        c, a = self.client, self.args
        hooks: dict[LifecycleHook, ScriptedHook] = {  # a misspelt hook name is a type error
            "viewDidLoad": {"costMs": a.load_ms},
            "configure": {"costMs": a.configure_ms, "output": {"navigationStart": True}},
        }
        for name in (self.cold_class, self.warm_class):
            c.classes.define(name, hooks=hooks)
        self.stack = c.stack.create(a.width, a.height)
        c.pool.configure(self.cold_class, depth=0, width=a.width, height=a.height)
        c.pool.configure(self.warm_class, depth=1, policy="eager", width=a.width, height=a.height)
        c.on("lifecycle", self.on_lifecycle)
        c.events.subscribe(["lifecycle"])

    def wait_idle(self, pool_class: str | None = None) -> None:
        """Until no idle task is queued (and, for `pool_class`, one container waits warm)."""
        c = self.client
        deadline = time.monotonic() + self.args.timeout
        while True:
            if not self.automatic:
                c.tasks.drain()
            tasks = c.tasks.status()
            ready = tasks["pending"] == 0
            if ready and pool_class:
                pool = c.pool.status(class_=pool_class)["pools"][0]
                ready = pool["idle"] >= 1 and pool["warming"] == 0
            if ready:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"the host did not finish warming within {self.args.timeout:g} s: {tasks}")
            time.sleep(0.005)

    def navigate(self, cls: str) -> tuple[float, bool]:
        """One tap: showRendered with data; returns (ms to the configure event, warm)."""
        c, stack = self.client, self.stack
        assert stack is not None, "set_up() first"
        t0 = time.perf_counter()
        reply = c.show_rendered(cls, stack=stack, data={"url": "http://m.you.163.com"})
        container = reply["container"]
        ms = (self.configured.pop(container) - t0) * 1000
        # Leave the stack as it was: pop the page and release it.
        stack.pop()
        c.container.release(container)
        return ms, reply["warm"]

    def run(self) -> dict[str, list[float]]:
        results: dict[str, list[float]] = {"cold": [], "prerendered": []}
        for _ in range(self.args.runs):
            self.client.pool.purge(class_=self.cold_class)
            self.wait_idle()
            ms, warm = self.navigate(self.cold_class)
            if warm:
                raise RuntimeError("a cold run got a prerendered container")
            results["cold"].append(ms)
        for _ in range(self.args.runs):
            self.wait_idle(self.warm_class)
            ms, warm = self.navigate(self.warm_class)
            if not warm:
                raise RuntimeError("a prerendered run missed the pool")
            results["prerendered"].append(ms)
        return results

    def tear_down(self) -> None:
        c = self.client
        try:
            c.off("lifecycle")
            c.events.unsubscribe(["lifecycle"])
            for cls in (self.cold_class, self.warm_class):
                c.pool.configure(cls, depth=0, width=self.args.width, height=self.args.height)
                c.pool.purge(class_=cls)
            if self.stack is not None:
                self.stack.destroy()
        except GreenroomError:
            pass


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p90 = ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]
    return {"runs": len(ordered), "median": statistics.median(ordered), "mean": statistics.fmean(ordered),
            "p90": p90, "min": ordered[0], "max": ordered[-1]}


def report(results: dict[str, list[float]], args: argparse.Namespace, where: str) -> dict[str, Any]:
    rows = {mode: summary(samples) for mode, samples in results.items()}
    cold, warm = rows["cold"]["median"], rows["prerendered"]["median"]
    speedup = cold / warm if warm > 0 else math.inf
    out: dict[str, Any] = {"host": where, "loadMs": args.load_ms, "configureMs": args.configure_ms, "runs": args.runs,
           "rows": rows, "speedup": speedup, "samples": results}
    if args.json:
        return out
    print('Greenroom prerender experiment (docs/pools.md): showRendered -> `configure` event ("navigation start")')
    print(f"host {where}; viewDidLoad {args.load_ms:g} ms, configure {args.configure_ms:g} ms, "
          f"stack {args.width:g}x{args.height:g}, {args.runs} runs each")
    print()
    print(f"{'mode':<13}{'runs':>6}{'median ms':>12}{'mean ms':>10}{'p90 ms':>10}{'min ms':>10}{'max ms':>10}")
    for mode, r in rows.items():
        print(f"{mode:<13}{r['runs']:>6}{r['median']:>12.2f}{r['mean']:>10.2f}{r['p90']:>10.2f}"
              f"{r['min']:>10.2f}{r['max']:>10.2f}")
    print()
    print(f"speed-up (median): {speedup:.1f}x, {cold - warm:.1f} ms sooner   "
          f"(the article, simulator: 443.14 ms -> 56.13 ms mean, 7.9x)")
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    host = None
    try:
        if args.socket:
            client = Client(args.socket)
            where = args.socket
        else:
            host = HostProcess.start(binary=find_binary(args.bin), clock="real")
            client = host.client()
            where = f"{host.socket} (started here, real clock, pid {host.pid})"
        with client:
            experiment = Experiment(client, args)
            if not experiment.automatic:
                where += ", virtual clock: warm-ups run on tasks.drain"
            experiment.set_up()
            try:
                results = experiment.run()
            finally:
                experiment.tear_down()
        out = report(results, args, where)
        if args.json:
            print(json.dumps(out, separators=(",", ":")))
        return 0
    except (GreenroomError, OSError, RuntimeError) as error:
        print(f"prerender_experiment: {error}", file=sys.stderr)
        return 1
    finally:
        if host is not None:
            host.stop()


if __name__ == "__main__":
    sys.exit(main())
