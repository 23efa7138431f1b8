#!/usr/bin/env python3
"""The Python client's own cost: round trips per second against a bare Python socket loop doing the same.

Three loops of `host.ping` round trips, each on its own connection to one host, taking turns every 250 calls so
that the machine's load falls on all three alike:

- **bare socket loop**: ``sendall`` of one request line (a fresh id each time), ``recv`` until the newline;
  no JSON decoding at all. What Python itself costs for a round trip: the floor for any client.
- **client.call("host.ping")**: :class:`greenroom.Client`, the plain call (framing, endpoint, reply matching,
  JSON both ways).
- **client.host.ping()**: the generated typed API on the same client.

Each client row is reported as a ratio to the bare loop of the same round (the median over rounds, with the
spread in brackets): a ratio measured in the same minute means something on a shared machine, an absolute
rate does not. The budget (docs/performance.md) is 0.6x for ``client.host.ping()``.

By default the script starts its own host (``greenroom serve --clock virtual`` on a temporary socket) from
``--bin``, ``$GREENROOM_BIN`` or the repository's build; ``--socket`` measures a running one instead.

    python3 scripts/bench_python_client.py                    # 20,000 calls x 7 rounds per loop
    python3 scripts/bench_python_client.py --calls 5000 --rounds 3 --json
"""

from __future__ import annotations

import argparse
import json
import socket as socketlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

try:
    import greenroom  # noqa: F401
except ImportError:  # not installed: use the client from this repository
    sys.path.insert(0, str(REPO / "clients" / "python" / "src"))

from greenroom import Client
from greenroom.testing import HostProcess, find_binary

BUDGET = 0.6  # client.host.ping() against the bare loop; docs/performance.md


def bare_loop(path: str) -> Callable[[int], None]:
    """``n`` round trips on a raw socket: one line out, read until the reply's newline."""
    sock = socketlib.socket(socketlib.AF_UNIX, socketlib.SOCK_STREAM)
    sock.connect(path)
    next_id = 0

    def run(n: int) -> None:
        nonlocal next_id
        send, recv = sock.sendall, sock.recv
        for _ in range(n):
            next_id += 1
            send(b'{"jsonrpc":"2.0","id":%d,"method":"host.ping"}\n' % next_id)
            data = recv(65536)
            while not data.endswith(b"\n"):
                more = recv(65536)
                if not more:
                    raise ConnectionError("the host closed the connection")
                data += more

    return run


def plain_call(client: Client) -> Callable[[int], None]:
    """``n`` round trips through ``client.call("host.ping")``."""
    def run(n: int) -> None:
        call = client.call
        for _ in range(n):
            call("host.ping")

    return run


def typed_call(client: Client) -> Callable[[int], None]:
    """``n`` round trips through the typed ``client.host.ping()``."""
    def run(n: int) -> None:
        host = client.host
        for _ in range(n):
            host.ping()

    return run


CHUNK = 250  # calls per turn: the loops take turns this often, so that a burst of load hits all of them


def measure(path: str, calls: int, rounds: int) -> dict[str, Any]:
    """Rates per round for each loop, and each client loop's ratio to the bare loop of its round.

    Within a round the loops take turns every ``CHUNK`` calls until each has made ``calls``: on a machine
    shared with a build, load comes and goes within a second, and turns this short spread it evenly.
    """
    with Client(path) as plain, Client(path) as typed:
        loops = {"bare socket loop": bare_loop(path), 'client.call("host.ping")': plain_call(plain),
                 "client.host.ping()": typed_call(typed)}
        for run in loops.values():  # warm up: connections, caches, the host's first replies
            run(min(calls, 1000))
        rates: dict[str, list[float]] = {name: [] for name in loops}
        for _ in range(rounds):
            spent = dict.fromkeys(loops, 0.0)
            left = calls
            while left > 0:
                n = min(CHUNK, left)
                for name, run in loops.items():
                    start = time.perf_counter()
                    run(n)
                    spent[name] += time.perf_counter() - start
                left -= n
            for name in loops:
                rates[name].append(calls / spent[name])
    bare = rates["bare socket loop"]
    rows = {}
    for name, values in rates.items():
        ratios = [value / base for value, base in zip(values, bare)]
        rows[name] = {"rate": statistics.median(values), "us": 1e6 / statistics.median(values),
                      "ratio": statistics.median(ratios), "ratioMin": min(ratios), "ratioMax": max(ratios),
                      "rates": values}
    return rows


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module's docstring)."""
    p = argparse.ArgumentParser(description="Round trips per second: the Python client vs a bare socket loop.")
    p.add_argument("--socket", help="measure a running host (default: start one with a virtual clock)")
    p.add_argument("--bin", help="the greenroom binary to start (default: $GREENROOM_BIN, else the repository's)")
    p.add_argument("--calls", type=int, default=20000, help="round trips per loop and round (default 20000)")
    p.add_argument("--rounds", type=int, default=7, help="rounds, each running every loop once (default 7)")
    p.add_argument("--json", action="store_true", help="print one JSON line instead of the table")
    args = p.parse_args(argv)
    if args.calls < 1 or args.rounds < 1:
        p.error("--calls and --rounds must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    """Start a host (or use ``--socket``'s), measure, print the table or one JSON line."""
    args = parse_args(argv)
    host = None
    try:
        if args.socket:
            path = args.socket
        else:
            host = HostProcess.start(binary=args.bin or find_binary(start=[Path.cwd(), REPO]))
            assert host.socket is not None
            path = host.socket
        rows = measure(path, args.calls, args.rounds)
    finally:
        if host is not None:
            host.stop()
    typed = rows["client.host.ping()"]["ratio"]
    if args.json:
        print(json.dumps({"calls": args.calls, "rounds": args.rounds, "python": sys.version.split()[0],
                          "rows": rows, "budget": BUDGET, "met": typed >= BUDGET}, separators=(",", ":")))
        return 0
    print(f"host.ping round trips on one Unix socket per loop, {args.calls} calls x {args.rounds} rounds, "
          f"turns of {CHUNK} (Python {sys.version.split()[0]}); medians, ratio spread in brackets")
    print()
    print(f"{'loop':<28}{'calls/s':>10}{'µs/call':>10}   vs bare loop")
    for name, row in rows.items():
        spread = f" [{row['ratioMin']:.2f}-{row['ratioMax']:.2f}]" if name != "bare socket loop" else ""
        print(f"{name:<28}{row['rate']:>10,.0f}{row['us']:>10.2f}   {row['ratio']:.2f}x{spread}")
    print()
    print(f"budget: client.host.ping() at least {BUDGET}x the bare loop: {'yes' if typed >= BUDGET else 'NO'} "
          f"({typed:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
