#!/usr/bin/env python3
"""The reuse article's pager with Greenroom (docs/pages.md): view controllers reused through a queue, only the
current page and its neighbours alive, per-page data cached, and a tap that jumps across many pages.

The article (rebuilding Jianshu's paged home) kept one view controller per page at first, and memory grew with
every page visited. It then kept only the current page and its neighbours, parked the rest in a reuse queue
and re-bound a parked one with the entering page's data. This script walks the same path twice, on the same
host: swipes through --pages pages, then taps a tab far away (an animated `page.show`), and taps back:

- **keep all**: `cache: {limit: PAGES}`, every page's container kept once made (the article's first version);
- **reuse**: `cache: {mode: "reuse"}` with `offscreenLimit: 1` (current +- 1 made and loaded ahead).

For each it prints the containers made (`init`), re-bound from the queue (`configure`), alive at the end,
and the host's resident memory, each page holding --page-kb of real memory.

    python examples/python/reuse_pager.py --pages 30 --page-kb 512
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

try:
    import greenroom  # noqa: F401
except ImportError:  # not installed: use the client from this repository
    sys.path.insert(0, str(REPO / "clients" / "python" / "src"))

from greenroom import Client, GreenroomError
from greenroom.lifecycle import swipe_page
from greenroom.testing import HostProcess, find_binary_or_exit

W, H = 375.0, 667.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Jianshu's reuse pager: containers alive with and without a reuse queue.")
    p.add_argument("--bin", help="the greenroom binary (default: $GREENROOM_BIN, else .build/debug/greenroom)")
    p.add_argument("--socket", help="use a running host with a virtual clock instead of starting one")
    p.add_argument("--pages", type=int, default=30, help="pages in the pager (default 30)")
    p.add_argument("--page-kb", type=int, default=512, help="memory each page's container holds, KiB (default 512)")
    p.add_argument("--json", action="store_true", help="print only the result, as one JSON line")
    args = p.parse_args(argv)
    if not 4 <= args.pages <= 10000 or not 0 <= args.page_kb <= 65536:
        p.error("--pages 4..10000, --page-kb 0..65536")
    return args


def walk(client: Client, cls: str, pages: int, **options: Any) -> dict[str, Any]:
    """Swipe from page 0 to the last, tap back to page 1 (animated), then jump to the middle."""
    stats0 = client.host.stats()
    client.events(["lifecycle"], timeout=0)  # what came before is not this walk's
    s = client.call("page.create", {"class": cls, "count": pages, "width": W, "height": H, "initialIndex": 0,
                                    "data": [{"title": f"article {i}"} for i in range(pages)], **options})["session"]
    client.tasks.drain()
    inits = configures = 0

    def count() -> None:
        nonlocal inits, configures
        for e in client.events(["lifecycle"], timeout=0):
            if e.params["event"] == "init":
                inits += 1
            elif e.params["event"] == "configure":
                configures += 1

    for i in range(pages - 1):
        swipe_page(client, s, i, i + 1, width=W)
        client.tasks.drain()
        count()
    for target in (1, pages // 2):  # the tap-to-jump: one animated show across many pages
        client.call("page.show", {"session": s, "index": target, "animated": True})
        client.clock.advance(300)
        client.tasks.drain()
        count()
    info = client.call("page.info", {"session": s})
    alive = client.host.stats()["containers"]["total"] - stats0["containers"]["total"]
    rss = client.host.stats()["rssBytes"]
    client.call("page.destroy", {"session": s})
    return {"made": inits, "rebound": configures, "alive": alive, "attached": len(info["children"]),
            "parked": sum(info["reuseQueue"].values()), "rssBytes": rss}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    host = None
    try:
        if args.socket:
            client = Client(args.socket)
        else:
            host = HostProcess.start(binary=find_binary_or_exit(args.bin, "reuse_pager"), clock="virtual")
            client = host.client()
        with client:
            if client.host.info()["clock"] != "virtual":
                print("reuse_pager: the host needs --clock virtual (the script advances it)", file=sys.stderr)
                return 2
            client.subscribe(["lifecycle"])
            cls = f"JianshuPage{os.getpid()}"
            client.classes.define(cls, hooks={"configure": {"output": {"bound": True}}},
                                  memory_bytes=args.page_kb * 1024)
            keep_all = walk(client, cls, args.pages, cache={"limit": args.pages})
            reuse = walk(client, cls, args.pages, cache={"mode": "reuse"}, offscreenLimit=1)
        result = {"pages": args.pages, "pageKiB": args.page_kb, "keepAll": keep_all, "reuse": reuse}
        if args.json:
            print(json.dumps(result, separators=(",", ":")))
            return 0
        print(f"Jianshu's reuse pager (docs/pages.md): {args.pages} pages swiped through, two taps across them")
        print()
        print(f"{'cache':<26}{'made':>6}{'re-bound':>10}{'alive':>7}{'parked':>8}{'RSS MiB':>9}")
        for name, r in (("keep all (limit = pages)", keep_all), ("reuse, offscreenLimit 1", reuse)):
            print(f"{name:<26}{r['made']:>6}{r['rebound']:>10}{r['alive']:>7}{r['parked']:>8}{r['rssBytes'] / 1048576:>9.1f}")
        return 0
    except (GreenroomError, OSError) as error:
        print(f"reuse_pager: {error}", file=sys.stderr)
        return 1
    finally:
        if host is not None:
            host.stop()


if __name__ == "__main__":
    sys.exit(main())
