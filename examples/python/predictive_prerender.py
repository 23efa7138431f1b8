#!/usr/bin/env python3
"""Predictive prerendering, the prerendering article's own suggestion: on the "my orders" screen, warm the
logistics page the user is likely to open next, so that the tap on an order is a hit.

The article's library warms a class only after its first use ("use the cached one this time, reserve the
next"), so the first logistics page of a session is always cold. Knowing the app, one can do better: the
screen that leads to a page warms it while the user reads. Here:

- "my orders" is a container of class `OrderList` pushed onto the app's stack; right after it is shown
  the script calls `pool.warm {class: "Logistics"}`: the warm-up runs in the host's idle time, while the
  user looks at the list, never before a reply;
- "the tap on an order" is `showRendered {class: "Logistics", stack, data: {order}}`, whose `viewDidLoad`
  costs --load-ms; its reply is when the user sees the page with its data.

It runs the same walk twice, without the prediction (a miss: the tap pays `viewDidLoad`) and with it (a
hit), and prints both. By default it starts its own host (real clock, from $GREENROOM_BIN or the
repository's .build/debug/greenroom); --socket uses a running one (with a virtual clock, the script runs
the idle time itself with `tasks.drain`, and times are the host's, not the user's).

    python examples/python/predictive_prerender.py --load-ms 40
"""

from __future__ import annotations

import argparse
import json
import os
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
from greenroom.testing import HostProcess, find_binary_or_exit


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Warm the next screen's class on this one: the tap becomes a hit.")
    p.add_argument("--socket", help="connect to a running host (default: start one with a real clock)")
    p.add_argument("--bin", help="the greenroom binary to start (default: $GREENROOM_BIN, else .build/debug/greenroom)")
    p.add_argument("--load-ms", type=float, default=40.0, help="CPU cost of the logistics page's viewDidLoad (default 40)")
    p.add_argument("--read-timeout", type=float, default=30.0,
                   help="longest the user 'reads' the list waiting for the warm-up, seconds (default 30)")
    p.add_argument("--json", action="store_true", help="print only the result, as one JSON line")
    args = p.parse_args(argv)
    if not 0 <= args.load_ms <= 10000:
        p.error("--load-ms must be between 0 and 10000")
    return args


class Walk:
    """My orders -> one order's logistics page, on one stack, with or without warming the page first."""

    def __init__(self, client: Client, args: argparse.Namespace) -> None:
        self.client, self.args = client, args
        suffix = f"{os.getpid()}t{int(time.time() * 1000) % 100000000}"
        self.orders, self.logistics = f"OrderList{suffix}", f"Logistics{suffix}"
        self.automatic = client.tasks.status()["automatic"]
        client.classes.define(self.orders)
        client.classes.define(self.logistics, hooks={
            "viewDidLoad": {"costMs": args.load_ms},
            "configure": {"output": {"shipped": True}},
        })
        # depth 1, lazy: one warm-up at most, and only when asked (or after a use), as the article's library.
        client.pool.configure(self.logistics, depth=1, policy="lazy")

    def read_the_list(self) -> None:
        """The user looks at "my orders": the host is idle, and its idle tasks (the warm-up) run."""
        c, deadline = self.client, time.monotonic() + self.args.read_timeout
        while True:
            if not self.automatic:
                c.tasks.drain()
            pool = c.pool.status(class_=self.logistics)["pools"][0]
            if pool["warming"] == 0:
                return
            if time.monotonic() > deadline:
                raise TimeoutError("the warm-up did not finish while the user read the list")
            time.sleep(0.002)

    def run(self, predict: bool) -> dict[str, Any]:
        c = self.client
        stack = c.stack.create(375, 667)
        try:
            orders = c.container.create(self.orders)
            stack.push(orders)
            if predict:
                c.pool.warm(self.logistics, count=1)   # the prediction: the next screen is likely this one
            self.read_the_list()
            t0 = time.perf_counter()
            page = c.show_rendered(self.logistics, stack=stack, data={"order": "2024-0042"})
            tap_ms = (time.perf_counter() - t0) * 1000
            if page.get("output") != {"shipped": True}:
                raise RuntimeError(f"the logistics page did not load: {page}")
            return {"predicted": predict, "warm": page["warm"], "tapMs": tap_ms}
        finally:
            stack.destroy()
            c.pool.purge(class_=self.logistics)  # the next walk starts cold again

    def tear_down(self) -> None:
        try:
            self.client.pool.configure(self.logistics, depth=0)
        except GreenroomError:
            pass


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    host = None
    try:
        if args.socket:
            client, where = Client(args.socket), args.socket
        else:
            host = HostProcess.start(binary=find_binary_or_exit(args.bin, "predictive_prerender"), clock="real")
            client, where = host.client(), f"{host.socket} (started here, real clock)"
        with client:
            walk = Walk(client, args)
            try:
                plain, predicted = walk.run(predict=False), walk.run(predict=True)
            finally:
                walk.tear_down()
        if plain["warm"] or not predicted["warm"]:
            raise RuntimeError(f"expected a miss without the prediction and a hit with it: {plain}, {predicted}")
        result = {"host": where, "loadMs": args.load_ms, "withoutPrediction": plain, "withPrediction": predicted}
        if args.json:
            print(json.dumps(result, separators=(",", ":")))
            return 0
        print("Predictive prerendering (docs/pools.md): warm the logistics page on \"my orders\"")
        print(f"host {where}; logistics viewDidLoad {args.load_ms:g} ms")
        print()
        print(f"{'walk':<22}{'tap':>6}{'tap -> page ms':>16}")
        for name, r in (("without prediction", plain), ("with pool.warm", predicted)):
            print(f"{name:<22}{'hit' if r['warm'] else 'miss':>6}{r['tapMs']:>16.2f}")
        print()
        print(f"the tap on an order is {plain['tapMs'] - predicted['tapMs']:.1f} ms sooner with the prediction")
        return 0
    except (GreenroomError, OSError, RuntimeError) as error:
        print(f"predictive_prerender: {error}", file=sys.stderr)
        return 1
    finally:
        if host is not None:
            host.stop()


if __name__ == "__main__":
    sys.exit(main())
