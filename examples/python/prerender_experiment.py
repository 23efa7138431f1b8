#!/usr/bin/env python3
"""The prerendering article's experiment with Greenroom: how much sooner do "navigation start" and "page
loaded" come with prerendering?

The article on prerendering view controllers (docs/pools.md) tapped 20-odd times to open a web page, once creating the
view controller fresh each time and once taking a prerendered one, and measured two times from the tap:
to the page's `navigationStart`, 443 ms cold and 56 ms prerendered (7.9x sooner), and to the page having
loaded (`document.onload`), 2353 ms and 2068 ms (12% sooner): the second figure is what the user waits
for, and it shows how little of the first win reaches them when the page itself is slow. Here:

- a scripted class stands in for the view controller: its `viewDidLoad` burns --load-ms of CPU (building
  the view), its `configure` --configure-ms (the article's `setUrl` and the page load it starts);
- "the tap" is sending `showRendered {class, stack, data}`; "page loaded" is its reply, which carries
  configure's output (the analogue of `document.onload` is the configure output being ready);
  "navigation start" is that less the time configure took by the host's clock (the events' `t`): the
  moment the controller was on the stack and its `setUrl` began (under a virtual clock, which does not
  move, the two figures are the same);
- cold: the class's pool has depth 0 (and is purged before each run), so every call creates, loads and
  lays out a fresh container;
- prerendered: an `eager` pool of depth 1 keeps one container warm in the green room; before each run the
  script waits (polling `pool.status` and `tasks.status`) until the warm-up has finished, as a user who
  taps after the page has settled. The hit skips `loadView`/`viewDidLoad`.

By default the script starts its own host (real clock) from $GREENROOM_BIN or the repository's
.build/debug/greenroom on a temporary socket; --socket connects to a running one instead (classes get a
unique prefix, since class names are global to a host). With a virtual-clock host, warm-ups run on
`tasks.drain`, which the script calls itself.

    python examples/python/prerender_experiment.py --runs 20 --load-ms 40 --configure-ms 60
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
from greenroom.testing import HostProcess, find_binary_or_exit


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Cold vs prerendered time to navigation start and to page loaded.")
    p.add_argument("--socket", help="connect to a running host (default: start one with a real clock)")
    p.add_argument("--bin", help="the greenroom binary to start (default: $GREENROOM_BIN, else .build/debug/greenroom)")
    p.add_argument("--runs", type=int, default=20, help="runs per mode (default 20)")
    p.add_argument("--load-ms", type=float, default=40.0, help="CPU cost of viewDidLoad, ms (default 40)")
    p.add_argument("--configure-ms", type=float, default=60.0,
                   help="CPU cost of configure, the page load, ms (default 60)")
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


class Experiment:
    """The two runs on one connection, through the client's typed API (greenroom.api: `client.pool.configure(...)`
    rather than `client.call("pool.configure", {...})`, so that mypy --strict checks every name and param)."""

    def __init__(self, client: Client, args: argparse.Namespace):
        self.client = client
        self.args = args
        prefix = f"Exp{os.getpid()}t{int(time.time() * 1000) % 100000000}"
        self.cold_class, self.warm_class = f"{prefix}Cold", f"{prefix}Prerendered"
        self.automatic = client.tasks.status()["automatic"]
        self.stack: Stack | None = None
        self.times: dict[str, list[tuple[str, float]]] = {}  # container -> its events' (hook, host time)

    def set_up(self) -> None:
        c, a = self.client, self.args
        hooks: dict[LifecycleHook, ScriptedHook] = {  # a misspelt hook name is a type error
            "viewDidLoad": {"costMs": a.load_ms},
            "configure": {"costMs": a.configure_ms, "output": {"loaded": True}},
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

    def on_lifecycle(self, event: LifecycleEvent) -> None:
        # Host-clock times of the container's events: `configure`'s is when the page had loaded, the one
        # before it when the controller was on the stack and `setUrl` began.
        self.times.setdefault(event["container"], []).append((event["event"], event["t"]))

    def navigate(self, cls: str) -> tuple[float, float, bool]:
        """One tap: showRendered with the page's data; returns (ms to navigation start, ms to page loaded, warm).

        Page loaded is the reply, which carries configure's output. Navigation start is that less the time
        configure took, from the host's clock (the events' `t`): the moment the controller was on the stack
        and its `setUrl` began. Both in one request, as the article calls `setUrl` in the completion of the
        show: a second request would wait for the replacement warm-up the hit queued."""
        c, stack = self.client, self.stack
        assert stack is not None, "set_up() first"
        t0 = time.perf_counter()
        reply = c.show_rendered(cls, stack=stack, data={"url": "http://m.you.163.com"})
        loaded = (time.perf_counter() - t0) * 1000
        container = reply["container"]
        if reply.get("output") != {"loaded": True}:
            raise RuntimeError(f"the page did not load: {reply}")
        events = self.times.pop(container, [])
        at = [i for i, (name, _) in enumerate(events) if name == "configure"]
        if not at or at[-1] == 0:
            raise RuntimeError(f"no configure event after the push for {container}: {events}")
        configure_ms = events[at[-1]][1] - events[at[-1] - 1][1]
        # Leave the stack as it was: pop the page and release it.
        stack.pop()
        c.container.release(container)
        return loaded - configure_ms, loaded, reply["warm"]

    def run(self) -> dict[str, dict[str, list[float]]]:
        """{"navigationStart": {"cold": [...], "prerendered": [...]}, "pageLoaded": {...}}, in ms."""
        results: dict[str, dict[str, list[float]]] = {"navigationStart": {"cold": [], "prerendered": []},
                                                      "pageLoaded": {"cold": [], "prerendered": []}}
        for mode, cls in (("cold", self.cold_class), ("prerendered", self.warm_class)):
            for _ in range(self.args.runs):
                if mode == "cold":
                    self.client.pool.purge(class_=cls)
                    self.wait_idle()
                else:
                    self.wait_idle(cls)
                start, loaded, warm = self.navigate(cls)
                if warm != (mode == "prerendered"):
                    raise RuntimeError("a cold run got a prerendered container" if warm
                                       else "a prerendered run missed the pool")
                results["navigationStart"][mode].append(start)
                results["pageLoaded"][mode].append(loaded)
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


# The article's own figures (iOS simulator, means of about 20 taps), ms.
ARTICLE = {"navigationStart": (443.14, 56.13), "pageLoaded": (2353.0, 2068.0)}
TITLES = {"navigationStart": "navigation start (on the stack, configure begins)",
          "pageLoaded": "page loaded (configure output ready)"}


def report(results: dict[str, dict[str, list[float]]], args: argparse.Namespace, where: str) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for figure, samples in results.items():
        rows = {mode: summary(values) for mode, values in samples.items()}
        cold, warm = rows["cold"]["median"], rows["prerendered"]["median"]
        figures[figure] = {"rows": rows, "speedup": cold / warm if warm > 0 else math.inf,
                           "soonerMs": cold - warm, "soonerShare": (cold - warm) / cold if cold > 0 else 0.0,
                           "article": {"cold": ARTICLE[figure][0], "prerendered": ARTICLE[figure][1]},
                           "samples": samples}
    nav = figures["navigationStart"]
    # Top-level rows, speedup and samples are navigation start's, as before page loaded was measured.
    out: dict[str, Any] = {"host": where, "loadMs": args.load_ms, "configureMs": args.configure_ms, "runs": args.runs,
                           "rows": nav["rows"], "speedup": nav["speedup"], "samples": nav["samples"],
                           "figures": figures}
    if args.json:
        return out
    print("Greenroom prerender experiment (docs/pools.md): the article's two figures, cold vs prerendered")
    print(f"host {where}; viewDidLoad {args.load_ms:g} ms, configure (the page load) {args.configure_ms:g} ms, "
          f"stack {args.width:g}x{args.height:g}, {args.runs} runs each")
    for figure, f in figures.items():
        print()
        print(TITLES[figure])
        print(f"{'mode':<13}{'runs':>6}{'median ms':>12}{'mean ms':>10}{'p90 ms':>10}{'min ms':>10}{'max ms':>10}")
        for mode, r in f["rows"].items():
            print(f"{mode:<13}{r['runs']:>6}{r['median']:>12.2f}{r['mean']:>10.2f}{r['p90']:>10.2f}"
                  f"{r['min']:>10.2f}{r['max']:>10.2f}")
    print()
    a_nav, a_load = ARTICLE["navigationStart"], ARTICLE["pageLoaded"]
    load = figures["pageLoaded"]
    print(f"speed-up (median): navigation start {nav['speedup']:.1f}x, {nav['soonerMs']:.1f} ms sooner   "
          f"(the article, simulator: {a_nav[0]:g} ms -> {a_nav[1]:g} ms mean, {a_nav[0] / a_nav[1]:.1f}x)")
    print(f"                   page loaded {load['speedup']:.2f}x, {load['soonerMs']:.1f} ms "
          f"({100 * load['soonerShare']:.0f}%) sooner   (the article: {a_load[0]:g} ms -> {a_load[1]:g} ms, "
          f"{100 * (a_load[0] - a_load[1]) / a_load[0]:.0f}% sooner)")
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    host = None
    try:
        if args.socket:
            client = Client(args.socket)
            where = args.socket
        else:
            host = HostProcess.start(binary=find_binary_or_exit(args.bin, "prerender_experiment"), clock="real")
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
