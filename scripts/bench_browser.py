#!/usr/bin/env python3
"""The browser row of the performance table: `range.didScroll` sent to its `range` event received, p50 and p99,
measured inside chromium with performance.now() over the ws: listener, beside the same measurement over the Unix
socket in the same run, on the same host.

    .venv/bin/python scripts/bench_browser.py [--bin .build/release/greenroom] [--samples 2000]

(`make bench-browser` builds the release binary and runs this.) Each sample scrolls a 1,000,000-item session by
one item, so that every didScroll changes the visible range and yields one `range` event; the time is from the
call to the event (which the host writes before the reply). Chromium's performance.now() is coarsened to
100 us on a page that is not cross-origin isolated: the browser's numbers are quantised to that.

Two more rows: the inspector open while a client streams 60 range.didScroll a second on a million items (its
redraw time per frame and its frame intervals), and the demo feed's blank and wasted rows at 150 and 500 ms of
backend latency.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("GREENROOM_CHROMIUM", "/usr/bin/chromium")
SESSION = {"count": 1_000_000, "itemLength": 50, "viewport": {"width": 400, "height": 600}}

IN_PAGE = """async ({ samples, session }) => {
  const client = window.greenroomDemo.client;
  const { session: id } = await client.call('range.create', session);
  await client.call('range.willBeginDragging', { session: id, offset: 0 });
  let arrived = null;
  const off = client.on('range', (e) => { if (e.session === id && arrived) { const a = arrived; arrived = null; a(performance.now()); } });
  const times = [];
  for (let i = 1; i <= samples; i += 1) {
    const got = new Promise((resolve) => { arrived = resolve; });
    const t0 = performance.now();
    client.call('range.didScroll', { session: id, offset: i * 50 });
    times.push(((await got) - t0) * 1000);
  }
  off();
  await client.call('range.destroy', { session: id });
  return times;
}"""


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


class Lines:
    """A bare line connection: the measurement needs nothing between the socket and the clock."""

    def __init__(self, path: str):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.file = self.sock.makefile("rwb")
        self.next_id = 0

    def send(self, method: str, params: dict) -> int:
        self.next_id += 1
        self.file.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}).encode() + b"\n")
        self.file.flush()
        return self.next_id

    def call(self, method: str, params: dict) -> dict:
        rid = self.send(method, params)
        while True:
            msg = json.loads(self.file.readline())
            if msg.get("id") == rid:
                assert "result" in msg, msg
                return msg["result"]


def unix_samples(path: str, samples: int) -> list[float]:
    conn = Lines(path)
    conn.call("events.subscribe", {"topics": ["range"]})
    session = conn.call("range.create", SESSION)["session"]
    conn.call("range.willBeginDragging", {"session": session, "offset": 0})
    times = []
    for i in range(1, samples + 1):
        t0 = time.perf_counter()
        rid = conn.send("range.didScroll", {"session": session, "offset": i * 50})
        got_event = None
        while True:
            msg = json.loads(conn.file.readline())
            if got_event is None and msg.get("method") == "range" and msg["params"]["session"] == session:
                got_event = time.perf_counter()
            if msg.get("id") == rid:
                break
        assert got_event is not None, f"no range event for didScroll {i}"
        times.append((got_event - t0) * 1e6)
    conn.call("range.destroy", {"session": session})
    return times


def browser_samples(base: str, samples: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.goto(base + "/demo")
            page.wait_for_selector("body[data-ready]", state="attached", timeout=15_000)
            return page.evaluate(IN_PAGE, {"samples": samples, "session": SESSION})
        finally:
            browser.close()


def feed_counts(base: str, latencies=(150, 500)) -> dict[int, dict]:
    """The demo feed's autoscroll (six drags down, two back up) at each backend latency: rows shown blank and
    rows fetched but never shown."""
    from playwright.sync_api import sync_playwright

    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            for latency in latencies:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(f"{base}/demo?latency={latency}")
                page.wait_for_selector("body[data-ready]", state="attached", timeout=15_000)
                page.wait_for_function("document.querySelectorAll('#feed .row.blank').length === 0", timeout=15_000)
                out[latency] = page.evaluate("window.greenroomDemo.autoscroll()")
                page.close()
        finally:
            browser.close()
    return out


INSPECTOR_PROBE = """() => {
  const view = window.greenroomInspector.view;
  const probe = { renders: [], frames: [], stop: false };
  const render = view.render.bind(view);
  view.render = () => { const t0 = performance.now(); render(); probe.renders.push(performance.now() - t0); };
  let last = performance.now();
  const frame = (t) => { probe.frames.push(t - last); last = t; if (!probe.stop) requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
  window.inspectorProbe = probe;
}"""


def inspector_load(base: str, sock: str, seconds: float = 5.0, rate: float = 60.0) -> dict:
    """The inspector open on a host while a client streams range.didScroll at `rate` a second on a 1,000,000-item
    session (one item a call, so each call moves every range: a range and a prefetch event each): the page's
    redraw time per frame and its frame intervals (requestAnimationFrame), and whether it kept up."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(base + "/inspect")
            page.wait_for_selector("body[data-ready]", state="attached", timeout=15_000)
            page.evaluate(INSPECTOR_PROBE)
            conn = Lines(sock)
            session = conn.call("range.create", SESSION)["session"]
            conn.call("range.willBeginDragging", {"session": session, "offset": 0})
            calls = int(seconds * rate)
            due = time.monotonic()
            for i in range(1, calls + 1):
                conn.call("range.didScroll", {"session": session, "offset": i * 50})
                due += 1 / rate
                time.sleep(max(0.0, due - time.monotonic()))
            page.wait_for_function(f"window.greenroomInspector.model.ranges.get({session!r})?.updates > {calls}", timeout=15_000)
            probe = page.evaluate("(() => { const p = window.inspectorProbe; p.stop = true; return { renders: p.renders, frames: p.frames,"
                                  " events: window.greenroomInspector.model.eventCount, log: window.greenroomInspector.model.log.length }; })()")
            conn.call("range.destroy", {"session": session})
            probe["calls"] = calls
            return probe
        finally:
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default=str(REPO / ".build" / "release" / "greenroom"))
    parser.add_argument("--samples", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="grb-") as tmp:
        sock = f"{tmp}/host.sock"
        host = subprocess.Popen([args.bin, "serve", "--socket", sock, "--listen", "ws:127.0.0.1:0"],
                                stdout=subprocess.PIPE, text=True)
        try:
            ready = json.loads(host.stdout.readline())
            [ws] = [entry for entry in ready["listen"] if entry.startswith("ws:")]
            base = "http://" + ws[len("ws:"):]
            # Interleaved, twice each, best p50 kept: both saw the same moments of a shared machine.
            unix, web = [], []
            for _ in range(2):
                unix.append(unix_samples(sock, args.samples))
                web.append(browser_samples(base, args.samples))
            feeds = feed_counts(base)
            inspector = inspector_load(base, sock)
        finally:
            host.terminate()
            host.wait(10)
    u = min(unix, key=lambda s: statistics.median(s))
    w = min(web, key=lambda s: statistics.median(s))
    rows = [
        ("range.didScroll to its range event, p50", percentile(u, 50), percentile(w, 50)),
        ("range.didScroll to its range event, p99", percentile(u, 99), percentile(w, 99)),
    ]
    print(f"greenroom bench-browser: {args.samples} didScroll samples per client, best of 2, 1,000,000 items")
    print(f"{'row':<44} {'unix socket (us)':>17} {'browser ws (us)':>16} {'browser / unix':>15}")
    for name, unix_us, web_us in rows:
        print(f"{name:<44} {unix_us:>17.1f} {web_us:>16.1f} {web_us / unix_us:>14.2f}x")
    print()
    r, f = inspector["renders"], inspector["frames"]
    print(f"inspector open during {inspector['calls']} range.didScroll at 60/s on 1,000,000 items "
          f"({inspector['events']} events applied, log kept {inspector['log']}):")
    print(f"  redraw per frame: p50 {percentile(r, 50):.2f} ms, p99 {percentile(r, 99):.2f} ms, max {max(r):.2f} ms ({len(r)} redraws)")
    print(f"  frame interval:   p50 {percentile(f, 50):.1f} ms, p99 {percentile(f, 99):.1f} ms, max {max(f):.1f} ms ({len(f)} frames)")
    print()
    print("demo feed autoscroll (6 drags down, 2 up):")
    for latency, c in feeds.items():
        print(f"  backend {latency:>4} ms: {c['blank']:>3} rows shown blank, {c['wasted']:>3} fetched and never shown, "
              f"{c['fetched']} fetched, {c['cancelled']} cancelled, {c['batches']} batches, {c['rows']} rows")


if __name__ == "__main__":
    main()
