#!/usr/bin/env python3
"""The ASDK preloading article's comparison, measured: which prefetch strategy shows blank rows, and which fetches for
nothing?

The article on ASDK's intelligent preloading ("预加载与智能预加载(iOS)"; docs/ranges.md) compares an infinite list, a static
threshold (fetch the
next page at 70% of the content), a dynamic threshold (70% of the newest page), lazy loading (only the
region a fling will stop in) and Texture's working ranges (preload 2.5 screens ahead, 1.5 behind once the
user scrolls). This script replays recorded scroll traces (examples/traces/*.json, see make_traces.py)
against Greenroom range sessions, once per strategy, with a simple network:

- every fetch takes --latency-ms (default 150) from the moment it is asked for;
- the list starts with one page (--page, default 20 rows of --item-length points) and grows by batch
  fetches: on a `batch` event the script answers `range.batchFetchDone` with the next page's lengths once
  the latency has passed, until --budget rows exist (the batch after that is left unanswered: the host
  has no "no more data", and a batch in flight stops the next);
- strategies "ranges" (Texture's batch rule, leadingScreens 2) and "lazy" (the same with `lazy: true`):
  a row's data is asked for when the row enters the preload range (`prefetchItems`; a row that is already
  visible when it enters is asked for then too), and a request still on its way when `cancelPrefetching`
  names its row is dropped (a later entry asks again);
- strategies "threshold" and "dynamicThreshold" (the ASDK preloading article; docs/ranges.md): a page's rows come with
the page, so their
  data is asked for when the batch fires (the first page when the list is created).

Between trace events the host's virtual clock is advanced (`clock.advance`, in the same JSON-RPC batch as
the scroll call). The trace starts --settle-ms after the list is created (default: the latency, so the
first screen has its data; that first blank screen is the same for every strategy and is not counted).
Offsets are replayed as differences, kept inside the content loaded so far: a user who reaches the end of
the list waits there ("end waits": the time spent pushing against the end while rows were still to come).
--sample-ms sends fewer didScroll frames (a quicker, coarser run).

Per trace and strategy it prints: blank shows (rows that became visible before their data had arrived),
never shown (rows whose data was asked for and which never became visible: wasted), churn (rows named in
`cancelPrefetching` that entered the preload range again later: prefetch/cancel churn, counted from the
host's events for every strategy), requests (row fetches, repeats included; for the page strategies, the
rows of every page fetched), batches (page fetches), and end waits.

The feed_grows trace also has rows arriving at the head between drags (a feed receiving new posts): the
script inserts them with `range.insertItems {keepOnScreen: true}`, so what is on screen stays still, and the
session is keyed. A second table says what following rows by index path would have cost a client: stale
paths (events naming a path that held another row when the client last saw it, had it not remapped its
books) and remaps (the entries a careful client shifts at each insert). A keyed client has neither.

What the model favours, so that the table is read right: page strategies pay the latency once (the rows
come with their data), per-row strategies twice at the end of the list (the page, then each row's data)
but only for rows near the viewport. So page strategies never show a blank row after the first screen,
and pay instead in rows fetched for nothing and in waits at the end of the list.

    python3 examples/python/prefetch_sim.py                       # its own virtual-clock host
    python3 examples/python/prefetch_sim.py --latency-ms 300 --traces fling steady --json
    python3 examples/python/prefetch_sim.py --socket /tmp/gr-x/host.sock   # a running virtual-clock host
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TRACES = REPO / "examples" / "traces"
DEFAULT_TRACES = ["steady", "fling", "reversal", "jump_to_top", "feed_grows"]

try:
    import greenroom  # noqa: F401
except ImportError:  # not installed: use the client from this repository
    sys.path.insert(0, str(REPO / "clients" / "python" / "src"))

from greenroom import Client, GreenroomError  # noqa: E402
from greenroom.testing import HostProcess, find_binary_or_exit  # noqa: E402

#: name -> range.create members
STRATEGIES = {
    "ranges": {"strategy": "ranges"},
    "threshold": {"strategy": "threshold"},
    "dynamicThreshold": {"strategy": "dynamicThreshold"},
    "lazy": {"strategy": "ranges", "lazy": True},
}
#: Strategies whose rows are fetched one by one as they enter preload (else: with their page).
PER_ROW = {"ranges", "lazy"}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Replay scroll traces against range sessions, per prefetch strategy.")
    p.add_argument("--socket", help="a running host with a virtual clock (default: start one)")
    p.add_argument("--bin", help="the greenroom binary (default: $GREENROOM_BIN, else .build/debug/greenroom)")
    p.add_argument("--traces", nargs="+", default=DEFAULT_TRACES,
                   help="trace names in examples/traces, or paths to trace files (default: all four)")
    p.add_argument("--strategies", nargs="+", default=list(STRATEGIES), choices=list(STRATEGIES))
    p.add_argument("--latency-ms", type=float, default=150.0, help="time of every fetch, ms (default 150)")
    p.add_argument("--page", type=int, default=20, help="rows per page (default 20)")
    p.add_argument("--budget", type=int, default=400, help="rows the server has in all (default 400)")
    p.add_argument("--item-length", type=float, default=120.0, help="row height, points (default 120)")
    p.add_argument("--width", type=float, default=375.0, help="viewport width (default 375)")
    p.add_argument("--height", type=float, default=667.0, help="viewport height (default 667)")
    p.add_argument("--settle-ms", type=float, default=None,
                   help="time from creating the list to the trace's first event (default: --latency-ms)")
    p.add_argument("--sample-ms", type=float, default=0.0,
                   help="send at most one didScroll per this many ms of the trace (default 0: every frame)")
    p.add_argument("--json", action="store_true", help="also print the results as one JSON line")
    args = p.parse_args(argv)
    if args.page < 1 or args.budget < args.page:
        p.error("--page must be >= 1 and --budget >= --page")
    if not 0 <= args.latency_ms <= 60_000:
        p.error("--latency-ms must be between 0 and 60000")
    if args.item_length <= 0 or args.width <= 0 or args.height <= 0:
        p.error("--item-length, --width and --height must be > 0")
    return args


def load_trace(name: str) -> tuple[str, list[dict]]:
    path = Path(name) if name.endswith(".json") else TRACES / f"{name}.json"
    if not path.is_file():
        sys.exit(f"prefetch_sim: no trace {path} (run examples/traces/make_traces.py)")
    data = json.loads(path.read_text())
    events = data["events"] if isinstance(data, dict) else data
    return (data.get("trace", path.stem) if isinstance(data, dict) else path.stem), events


@dataclass
class Result:
    trace: str
    strategy: str
    blank_shows: int = 0
    never_shown: int = 0
    churn: int = 0
    requests: int = 0
    batches: int = 0
    end_wait_ms: float = 0.0
    shown: int = 0
    rows: int = 0
    # Rows inserted at the head (traces with insertAtHead), and what they cost a client that follows rows
    # by index path instead of by key: events naming a path that held another row when it last saw it
    # (stale, if it never remaps), and the entries it must shift to stay right (remaps). A keyed client
    # has neither: every event names the row's key beside its path.
    head_inserts: int = 0
    stale_paths: int = 0
    remaps: int = 0


@dataclass
class Row:
    """What the client knows about one row's data."""
    requested_at: float | None = None  # of the request on its way or answered
    shown: bool = False
    blank: bool = False
    asked: bool = False


@dataclass
class Run:
    """One trace replayed with one strategy on its own range session."""

    client: Client
    args: argparse.Namespace
    trace: str
    strategy: str
    now: float = 0.0  # ms since the run began
    rows: list[Row] = field(default_factory=list)
    pending_batch: tuple[str, float] | None = None  # (context, done at)
    session: str = ""
    early: list = field(default_factory=list)
    content: float = 0.0
    host_now: float = 0.0  # what the host's clock has been advanced to, since the run began
    cancelled: set = field(default_factory=set)  # rows cancelled and not back in preload since
    serial: int = 0  # keys given so far
    by_path: dict = field(default_factory=dict)  # a positional client's book: row index -> key it last saw there

    def __post_init__(self) -> None:
        self.result = Result(self.trace, self.strategy)
        self.per_row = self.strategy in PER_ROW

    # -- the network model --------------------------------------------------------------------

    def request(self, index: int) -> None:
        row = self.rows[index]
        if row.requested_at is not None:
            return
        row.requested_at = self.now
        row.asked = True
        self.result.requests += 1

    def cancel(self, index: int) -> None:
        row = self.rows[index]
        if row.requested_at is not None and row.requested_at + self.args.latency_ms > self.now:
            row.requested_at = None  # dropped on its way; its cost was paid

    def show(self, index: int) -> None:
        row = self.rows[index]
        if row.requested_at is None:
            self.request(index)  # the cell asks for it as it appears (cellForRow)
        if not row.shown:
            row.shown = True
            self.result.shown += 1
        if self.now < row.requested_at + self.args.latency_ms and not row.blank:
            row.blank = True
            self.result.blank_shows += 1

    def add_rows(self, n: int) -> None:
        start = len(self.rows)
        self.rows.extend(Row() for _ in range(n))
        if not self.per_row:
            # The page brought its rows' data: asked for when the batch fired, arrived with it.
            fired = self.now - (self.args.latency_ms if start else 0.0)
            for row in self.rows[start:]:
                row.requested_at = fired
                row.asked = True
            self.result.requests += n

    # -- host events ----------------------------------------------------------------------------

    def new_keys(self, n: int) -> list[str]:
        self.serial += n
        return [f"k{i}" for i in range(self.serial - n, self.serial)]

    def seen_at(self, paths: list, keys: list) -> None:
        """What a client that follows rows by path would make of an event's paths."""
        for path, key in zip(paths, keys):
            if self.by_path.get(path[1], key) != key:
                self.result.stale_paths += 1
            self.by_path[path[1]] = key

    def on_range(self, p: dict) -> None:
        if p.get("session") != self.session:
            return
        for side in ("enter", "exit"):
            for kind in ("preload", "visible"):
                self.seen_at(p[side][kind], p["keys"][side][kind])
        for path in p["enter"]["preload"]:
            if path[1] in self.cancelled:
                self.cancelled.discard(path[1])
                self.result.churn += 1
            if self.per_row:
                self.request(path[1])
        for path in p["enter"]["visible"]:
            self.show(path[1])

    def on_prefetch(self, p: dict) -> None:
        if p.get("session") == self.session:
            self.seen_at(p["paths"], p["keys"])
        if p.get("session") == self.session and p["kind"] == "cancelPrefetching":
            for path in p["paths"]:
                self.cancelled.add(path[1])
                if self.per_row:
                    self.cancel(path[1])

    def on_batch(self, p: dict) -> None:
        if p.get("session") != self.session:
            return
        self.result.batches += 1
        if len(self.rows) >= self.args.budget:
            return  # no answer: nothing more to load, and while it is in flight no batch fires
        self.pending_batch = (p["context"], self.now + self.args.latency_ms)

    # -- replay ---------------------------------------------------------------------------------

    def call(self, method: str, params: dict):
        """`method`, after advancing the host's clock to `now` (in one JSON-RPC batch)."""
        calls = []
        if self.now > self.host_now:
            calls.append(("clock.advance", {"ms": self.now - self.host_now}))
            self.host_now = self.now
        calls.append((method, params))
        outcomes = self.client.batch(calls)
        for outcome in outcomes:
            if isinstance(outcome, GreenroomError):
                raise outcome
        return outcomes[-1]

    def finish_batches_until(self, t: float) -> None:
        while self.pending_batch is not None and self.pending_batch[1] <= t:
            context, done = self.pending_batch
            self.pending_batch = None
            n = min(self.args.page, self.args.budget - len(self.rows))
            self.now = max(self.now, done)
            # The rows exist (with their data, for page strategies) before the host announces them.
            self.add_rows(n)
            self.content += n * self.args.item_length
            self.call("range.batchFetchDone", {"session": self.session, "context": context,
                                               "lengths": [self.args.item_length] * n, "keys": self.new_keys(n)})

    def insert_at_head(self, n: int) -> float:
        """`n` new rows arrive at the head and the list keeps what is on screen (the offset moves down by
        their length, as a table that inserts above the visible rows keeps them still). Returns the
        offset's change."""
        self.result.head_inserts += n
        # A careful positional client shifts every row it knows; a keyed one shifts nothing.
        self.result.remaps += len(self.by_path)
        new = [Row() for _ in range(n)]
        if not self.per_row:
            for row in new:  # pushed with their content
                row.requested_at = self.now - self.args.latency_ms
                row.asked = True
            self.result.requests += n
        self.rows[0:0] = new
        self.cancelled = {i + n for i in self.cancelled}
        self.content += n * self.args.item_length
        self.call("range.insertItems", {"session": self.session, "at": [0, 0], "lengths": [self.args.item_length] * n,
                                        "keys": self.new_keys(n), "keepOnScreen": True})
        return n * self.args.item_length

    def replay(self, events: list[dict]) -> Result:
        a = self.args
        L = a.height
        self.add_rows(a.page)
        self.content = a.page * a.item_length
        created = self.call("range.create", {"count": a.page, "itemLength": a.item_length, "keys": self.new_keys(a.page),
                                             "viewport": {"width": a.width, "height": L}, **STRATEGIES[self.strategy]})
        self.session = created["session"]
        early, self.early = self.early, []
        for topic, params in early:
            self.dispatch(topic, params)
        # The first screen is blank in every strategy until the first data arrives: not counted. The user
        # starts scrolling --settle-ms later (default: once it has arrived).
        self.result.blank_shows = 0
        start = a.latency_ms if a.settle_ms is None else a.settle_ms
        t0 = events[0]["t_ms"] if events else 0
        offset = 0.0  # where the list is
        wanted = events[0]["offset"] if events else 0.0  # where the trace's finger is
        last_sent = None
        for e in events:
            t = start + float(e["t_ms"] - t0)
            kind = e["kind"]
            if kind == "didScroll" and last_sent is not None and t - last_sent < a.sample_ms:
                continue  # --sample-ms: fewer frames (the next one carries this one's motion)
            self.finish_batches_until(t)
            if kind == "insertAtHead":
                # Between gestures: the list moves by the rows' length, the finger does not.
                self.now = t
                offset += self.insert_at_head(int(e["count"]))  # the host moved it the same way (keepOnScreen)
                last_sent = t
                continue
            delta = e["offset"] - wanted
            wanted = e["offset"]
            top = max(0.0, self.content - L)
            if delta > 0 and offset + delta > top + 1e-9 and len(self.rows) < a.budget and last_sent is not None:
                self.result.end_wait_ms += t - last_sent  # pushing against the end of what is loaded
            offset = min(max(offset + delta, 0.0), top)
            params = {"session": self.session, "offset": round(offset, 3)}
            if kind == "willEndDragging":
                params["velocity"] = e.get("velocity", 0.0)
            self.now = t
            self.call(f"range.{kind}", params)
            last_sent = t
        if self.pending_batch is not None:
            self.finish_batches_until(self.pending_batch[1])
        self.client.call("range.destroy", {"session": self.session})
        r = self.result
        r.rows = len(self.rows)
        r.never_shown = sum(1 for row in self.rows if row.asked and not row.shown)
        return r

    def dispatch(self, topic: str, params: dict) -> None:
        if not self.session:
            # The create call's events come before its reply, which names the session: keep them till then.
            self.early.append((topic, params))
            return
        {"range": self.on_range, "prefetch": self.on_prefetch, "batch": self.on_batch}[topic](params)


def run_all(client: Client, args: argparse.Namespace) -> list[Result]:
    client.subscribe(["range", "prefetch", "batch"])
    traces = [load_trace(name) for name in args.traces]
    results = []
    for trace, events in traces:
        for strategy in args.strategies:
            run = Run(client, args, trace, strategy)
            handlers = {topic: (lambda p, topic=topic, run=run: run.dispatch(topic, p))
                        for topic in ("range", "prefetch", "batch")}
            for topic, handler in handlers.items():
                client.on(topic, handler)
            try:
                results.append(run.replay(events))
            finally:
                for topic, handler in handlers.items():
                    client.off(topic, handler)
    return results


HEADER = f"{'trace':<13}{'strategy':<18}{'blank shows':>12}{'never shown':>13}{'churn':>7}{'requests':>10}" \
         f"{'batches':>9}{'end waits ms':>14}"


def print_table(results: list[Result], args: argparse.Namespace) -> None:
    print(f"latency {args.latency_ms:g} ms, pages of {args.page} rows of {args.item_length:g} points, "
          f"budget {args.budget} rows, viewport {args.width:g}x{args.height:g}")
    print(HEADER)
    for r in results:
        print(f"{r.trace:<13}{r.strategy:<18}{r.blank_shows:>12}{r.never_shown:>13}{r.churn:>7}{r.requests:>10}"
              f"{r.batches:>9}{r.end_wait_ms:>14.0f}")
    grown = [r for r in results if r.head_inserts]
    if grown:
        print()
        print("rows inserted at the head: what following rows by path costs (keyed: 0 and 0, events carry keys)")
        print(f"{'trace':<13}{'strategy':<18}{'inserted':>9}{'stale paths':>13}{'remaps':>8}")
        for r in grown:
            print(f"{r.trace:<13}{r.strategy:<18}{r.head_inserts:>9}{r.stale_paths:>13}{r.remaps:>8}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    host = None
    if args.socket:
        client = Client(args.socket)
    else:
        host = HostProcess.start(binary=find_binary_or_exit(args.bin, "prefetch_sim"), clock="virtual")
        client = host.client()
    try:
        if client.call("host.info").get("clock") != "virtual":
            sys.exit("prefetch_sim: the host must run with --clock virtual (clock.advance times the network)")
        results = run_all(client, args)
    finally:
        client.close()
        if host is not None:
            host.stop()
    print_table(results, args)
    if args.json:
        print(json.dumps({"latencyMs": args.latency_ms, "results": [asdict(r) for r in results]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
