"""The inspector (/inspect) and the demo (/demo) in a real browser: Debian's chromium driven by Playwright
(by executable_path: Playwright's own browser download is never used), against a real host serving the pages
on its `ws:` listener. Nothing sleeps: every wait is a DOM or page condition with a timeout.

With GREENROOM_SCREENSHOTS=DIR (`make screenshots` sets docs/img) the tests save their screenshots there.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import grhost
import pytest
from grhost import EventCursor


def _serves_web() -> bool:
    """Whether this host has the ws: listener that serves the pages (the browser-sidecar change)."""
    help_text = subprocess.run([grhost.find_bin(), "serve", "--help"], capture_output=True, text=True).stdout
    return "ws:" in help_text


pytestmark = pytest.mark.skipif(not _serves_web(), reason="this greenroom has no ws: listener to serve the pages")

CHROMIUM = os.environ.get("GREENROOM_CHROMIUM", "/usr/bin/chromium")
WAIT_MS = 15_000
#: Seed 001's interactive tables (docs/pages.md), starting on page 1: the pager's offsets the drag passes
#: through (page width 320, so 380 is "toward page 2" and 260 "back toward page 0") and the appearance hooks
#: UIPageViewController calls, in order.
SEED_001_INTERACTIVE = {
    "to a neighbour": ([80], 0, ["viewWillAppear 0", "viewWillDisappear 1", "viewDidAppear 0", "viewDidDisappear 1"]),
    "one turn-back": ([380, 60], 0, ["viewWillAppear 2", "viewWillDisappear 1",
                                     "viewWillAppear 0", "viewWillDisappear 2", "viewDidDisappear 2",
                                     "viewDidAppear 0", "viewDidDisappear 1"]),
    "two turn-backs": ([380, 260, 600], 2, ["viewWillAppear 2", "viewWillDisappear 1",
                                            "viewWillAppear 0", "viewWillDisappear 2", "viewDidDisappear 2",
                                            "viewWillAppear 2", "viewWillDisappear 0", "viewDidDisappear 0",
                                            "viewDidAppear 2", "viewDidDisappear 1"]),
}


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


def web_base(host) -> str:
    """http://HOST:PORT of the host's ws: listener."""
    [ws] = [entry for entry in host.listen if entry.startswith("ws:")]
    return "http://" + ws[len("ws:"):]


@pytest.fixture
def web_host(start_host):
    return start_host("--listen", "ws:127.0.0.1:0")


@pytest.fixture
def web_vhost(start_host):
    return start_host("--listen", "ws:127.0.0.1:0", "--clock", "virtual")


class Page:
    """A browser page that fails the test on any page error or console error."""

    def __init__(self, browser, url: str, width: int = 1400, height: int = 1000, **options):
        self.errors: list[str] = []
        self.page = browser.new_page(viewport={"width": width, "height": height}, **options)
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(f"console: {m.text}"))
        self.page.goto(url)
        self.page.wait_for_selector("body[data-ready]", state="attached", timeout=WAIT_MS)

    def wait(self, expression: str, arg=None):
        return self.page.wait_for_function(expression, arg=arg, timeout=WAIT_MS, polling="raf")

    def js(self, expression: str, arg=None):
        return self.page.evaluate(expression, arg)

    def screenshot(self, name: str, **kwargs) -> None:
        out = os.environ.get("GREENROOM_SCREENSHOTS")
        if out:
            Path(out).mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(Path(out) / name), **kwargs)

    def close(self) -> None:
        self.page.close()
        assert not self.errors, self.errors


# ---------------------------------------------------------------------------------------------------
# the demo


ROWS = "els => els.map(e => Number(e.dataset.index)).sort((a, b) => a - b)"


def display_and_rendered(page: Page) -> tuple[list[int], list[int]]:
    """range.state's display range and the rows in the DOM, read together: range.state's reply comes after
    every event before it, and the page renders on each event, so the two must be equal whenever it answers."""
    state = page.js("""async () => {
        const s = await window.greenroomDemo.feed.state();
        const rows = [...document.querySelectorAll('#feed .row')].map(e => Number(e.dataset.index));
        return { display: s.display.map(p => p[1]).sort((a, b) => a - b), rows: rows.sort((a, b) => a - b) };
    }""")
    return state["display"], state["rows"]


def rest_count(page: Page) -> int:
    return page.js("window.greenroomDemo.scrollEnds")


def test_demo_feed_renders_the_display_range_fills_every_row_and_fetches_batches(browser, web_host):
    page = Page(browser, web_base(web_host) + "/demo?latency=150")
    display, rows = display_and_rendered(page)
    assert rows == display and rows, (rows, display)
    page.wait("document.querySelectorAll('#feed .row.blank').length === 0")

    # By wheel: a drag that ends when the scroll rests (scrollend).
    box = page.page.locator("#feed").bounding_box()
    page.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    ends = rest_count(page)
    for _ in range(4):
        page.page.mouse.wheel(0, 240)
    page.wait(f"window.greenroomDemo.scrollEnds > {ends} && window.greenroomDemo.feed.phase === 'idle'")
    assert page.js("document.querySelector('#feed').scrollTop") > 0
    display, rows = display_and_rendered(page)
    assert rows == display and rows[0] > 0, (rows, display)
    # At rest, with a 150 ms backend, no row stays blank.
    page.wait("document.querySelectorAll('#feed .row.blank').length === 0 && window.greenroomDemo.feed.blankNow() === 0")

    # By script: a jump the page did not drag.
    ends = rest_count(page)
    page.js("document.querySelector('#feed').scrollTop = 900")
    page.wait(f"window.greenroomDemo.scrollEnds > {ends}")
    display, rows = display_and_rendered(page)
    assert rows == display and 900 // 72 in rows, (rows, display)
    page.wait("document.querySelectorAll('#feed .row.blank').length === 0")

    # To the end: a batch is fetched and appended.
    count = page.js("window.greenroomDemo.feed.count")
    page.js("document.querySelector('#feed').scrollTop = 1e9")
    page.wait(f"window.greenroomDemo.feed.counts.batches > 0 && window.greenroomDemo.feed.count > {count}")
    page.wait(f"document.querySelector('#feed-content').offsetHeight > {count * 72}")
    page.wait("document.querySelectorAll('#feed .row.blank').length === 0")
    display, rows = display_and_rendered(page)
    assert rows == display, (rows, display)
    assert page.js("Number(document.querySelector('#count-batches').textContent)") >= 1
    page.close()


RECORD_CALLS = """() => {
    const client = window.greenroomDemo.client;
    const call = client.call.bind(client);
    window.calls = [];
    client.call = (method, params) => { window.calls.push(method); return call(method, params); };
}"""


def test_demo_feed_touch_scroll_is_a_drag(browser, web_host):
    """A real touch scroll (touch events dispatched to chromium: touchstart, twenty moves, touchend) on the feed:
    the page reports it as a drag — range.willBeginDragging, range.didScroll, range.willEndDragging, then
    range.didEndDecelerating at rest — and renders the display range filled."""
    page = Page(browser, web_base(web_host) + "/demo?latency=150", has_touch=True)
    page.wait("document.querySelectorAll('#feed .row.blank').length === 0")
    page.js(RECORD_CALLS)
    box = page.page.locator("#feed").bounding_box()
    ends = rest_count(page)
    cdp = page.page.context.new_cdp_session(page.page)
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.8
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 21):  # a finger moving up 400 px: the browser scrolls the feed (and cancels the pointer)
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y - step * 20}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    page.wait(f"window.greenroomDemo.scrollEnds > {ends} && window.greenroomDemo.feed.phase === 'idle'")
    calls = [c for c in page.js("window.calls") if c.startswith("range.") and c != "range.state"]
    assert calls[0] == "range.willBeginDragging" and calls[-1] == "range.didEndDecelerating", calls
    assert "range.didScroll" in calls and calls.index("range.willEndDragging") > calls.index("range.didScroll"), calls
    assert page.js("document.querySelector('#feed').scrollTop") > 0
    display, rows = display_and_rendered(page)
    assert rows == display and rows[0] > 0, (rows, display)
    page.wait("document.querySelectorAll('#feed .row.blank').length === 0")
    page.close()


def test_demo_feed_tap_or_wheel_at_the_top_leaves_the_range_session_at_rest(browser, web_host):
    """A click on the feed, or a wheel turned up at its top (nothing scrolls, so no scrollend), ends the drag it
    began: the host's range session is not left tracking, which would pause its idle tasks (pool refills)."""
    page = Page(browser, web_base(web_host) + "/demo")
    page.js(RECORD_CALLS)
    page.page.click("#feed")
    page.wait("window.calls.includes('range.willBeginDragging') && window.greenroomDemo.feed.phase === 'idle'")
    assert [c for c in page.js("window.calls") if c.startswith("range.")] == \
        ["range.willBeginDragging", "range.willEndDragging", "range.didEndDecelerating"]
    stats = page.js("window.greenroomDemo.client.call('host.stats')")
    assert stats["sessions"]["rangeTracking"] == 0, stats["sessions"]
    # A wheel turned up at the top scrolls nothing either.
    page.js("window.calls.length = 0")
    box = page.page.locator("#feed").bounding_box()
    page.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.page.mouse.wheel(0, -240)
    page.wait("window.calls.includes('range.didEndDecelerating') && window.greenroomDemo.feed.phase === 'idle'")
    assert page.js("document.querySelector('#feed').scrollTop") == 0
    assert [c for c in page.js("window.calls") if c.startswith("range.")] == \
        ["range.willBeginDragging", "range.willEndDragging", "range.didEndDecelerating"]
    stats = page.js("window.greenroomDemo.client.call('host.stats')")
    assert stats["sessions"]["rangeTracking"] == 0, stats["sessions"]
    page.close()


@pytest.mark.parametrize("case", list(SEED_001_INTERACTIVE))
def test_demo_pager_drag_shows_seed_001s_interactive_order(browser, web_host, case):
    """A real pointer drag on the pager (Playwright's mouse: pointerdown, pointermoves, pointerup on the
    element) through the offsets of one of seed 001's interactive tables: the page lists UIPageViewController's
    appearance hooks in the table's order, each page's own list ends with its last appearance hooks, and the
    pager rests on the table's page."""
    offsets, rest, expected = SEED_001_INTERACTIVE[case]
    page = Page(browser, web_base(web_host) + "/demo")
    box = page.page.locator("#pager").bounding_box()
    y = box["y"] + box["height"] / 2
    start_x = box["x"] + box["width"] / 2
    mouse = page.page.mouse
    mouse.move(start_x, y)
    mouse.down()
    for offset in offsets:  # the pages follow the pointer: offset = 320 - (x - start_x)
        mouse.move(start_x - (offset - 320), y, steps=8)
    mouse.up()
    page.wait(f"document.querySelectorAll('#pager-interaction li').length >= {len(expected)} && "
              f"window.greenroomDemo.pager.index === {rest} && window.greenroomDemo.pager.offset === {rest * 320}")
    hooks = page.js("[...document.querySelectorAll('#pager-interaction li')].map(li => li.textContent)")
    assert hooks == expected
    # Each page's own hook list in the DOM: its appearance hooks (the table's four; viewIsAppearing is not in the
    # article's tables) end as the table leaves it.
    for index in {int(h.split()[1]) for h in expected}:
        mine = [h.split()[0] for h in expected if int(h.split()[1]) == index]
        shown = page.js(f"[...document.querySelectorAll('ol.page-hooks[data-index=\"{index}\"] li')].map(li => li.textContent)"
                        ".filter(h => h.startsWith('view') && h.includes('ppear') && h !== 'viewIsAppearing')")
        k = min(len(mine), len(shown))  # a page shows its last 8 hooks
        assert k > 0 and shown[-k:] == mine[-k:], (index, shown, mine)
    page.close()


def test_demo_pager_buttons_show_the_animated_order(browser, web_host):
    page = Page(browser, web_base(web_host) + "/demo")
    # An animated page.show (seed 001's non-interactive table), its did-hooks after the 300 ms animation.
    page.page.click("#pager-next")
    page.wait("window.greenroomDemo.pager.index === 2 && document.querySelectorAll('#pager-interaction li').length >= 4")
    hooks = page.js("[...document.querySelectorAll('#pager-interaction li')].map(li => li.textContent)")
    assert hooks == ["viewWillAppear 2", "viewWillDisappear 1", "viewDidAppear 2", "viewDidDisappear 1"]
    page.wait("document.querySelector('#pager-index').textContent === 'page 2 of 5'")
    page.close()


def test_demo_article_is_cold_then_warm(browser, web_host):
    page = Page(browser, web_base(web_host) + "/demo")
    page.page.click("#article-show")
    page.wait("document.querySelectorAll('#article-times li').length === 1")
    # The replacement warm-up runs as an idle task after the reply: wait until the pool holds it.
    page.wait("""async () => {
        const { pools } = await window.greenroomDemo.client.call('pool.status', { class: 'DemoArticle' });
        return pools.length === 1 && pools[0].idle === 1;
    }""")
    page.page.click("#article-show")
    page.wait("document.querySelectorAll('#article-times li').length === 2")
    warm = page.js("[...document.querySelectorAll('#article-times li')].map(li => li.dataset.warm)")
    assert warm == ["false", "true"]
    times = page.js("window.greenroomDemo.article.times.map(t => t.ms)")
    assert times[0] >= 120, times  # viewDidLoad burns 120 ms of CPU inside the cold call
    # The screenshot: every part of the demo used once.
    page.page.click("#pager-prev")
    page.wait("window.greenroomDemo.pager.index === 0 && document.querySelectorAll('#pager-interaction li').length >= 4")
    page.js("document.querySelector('#feed').scrollTop = 700")
    page.wait("document.querySelector('#feed .row[data-index=\"12\"]:not(.blank)') !== null")
    page.screenshot("demo.png")
    page.close()


# ---------------------------------------------------------------------------------------------------
# the inspector


def driver(host) -> EventCursor:
    return EventCursor(host.connect()).subscribe(["lifecycle"])


def timeline(page: Page) -> list[tuple[str, str, bool]]:
    return [tuple(m) for m in page.js("""[...document.querySelectorAll('#timeline-canvas .mark')]
        .sort((a, b) => parseFloat(a.style.left) - parseFloat(b.style.left))
        .map(m => [m.dataset.container, m.dataset.event, m.dataset.offscreen === 'true'])""")]


def test_inspector_timeline_shows_each_event_of_a_page_session_once_in_order(browser, web_vhost):
    page = Page(browser, web_base(web_vhost) + "/inspect")
    p = driver(web_vhost)
    # A prerendered page session: its children leave a green room (offscreen hooks) to join it.
    p("classes.define", {"name": "Story", "hooks": {"viewDidLoad": {"costMs": 1}}})
    p("pool.configure", {"class": "Story", "depth": 2, "width": 320, "height": 480, "policy": "eager"})
    p("tasks.drain")
    session = p("page.create", {"class": "Story", "count": 4, "width": 320, "height": 480, "initialIndex": 1,
                                "prerender": True})["session"]
    p("tasks.drain")
    w = 320
    p("page.willBeginDragging", {"session": session, "offset": w})
    p("page.didScroll", {"session": session, "offset": w - 60})
    p("page.willEndDragging", {"session": session, "offset": w - 100, "velocity": -1, "targetOffset": 0})
    p("page.didEndDragging", {"session": session, "offset": w - 100, "willDecelerate": True})
    p("page.didEndDecelerating", {"session": session, "offset": 0})
    p("page.show", {"session": session, "index": 2})
    p("clock.advance", {"ms": 300})
    p("tasks.drain")
    expected = [(e["params"]["container"], e["params"]["event"], e["params"]["offscreen"])
                for e in p.events() if e["method"] == "lifecycle"]
    assert any(off for _, _, off in expected) and not all(off for _, _, off in expected)
    page.wait(f"document.querySelectorAll('#timeline-canvas .mark').length >= {len(expected)}")
    assert timeline(page) == expected
    # Offscreen marks look different from on-screen ones.
    styles = page.js("""['.mark.offscreen', '.mark:not(.offscreen)'].map(s =>
        getComputedStyle(document.querySelector('#timeline-canvas ' + s)).borderStyle)""")
    assert styles[0] == "dashed" and styles[1] != "dashed", styles
    page.wait(f"document.querySelector('.page-session[data-session=\"{session}\"] .page-cell.current')?.dataset.index === '2'")
    page.close()


@pytest.mark.parametrize("call", ["endAppearance", "beginAppearance(false)"])
def test_inspector_shows_an_unbalanced_transition_in_red(browser, web_vhost, call):
    """container.endAppearanceTransition with no transition begun, or beginAppearanceTransition(appearing:
    false) of a container that never appeared: the host refuses it with an unbalancedAppearanceTransition
    event, which the timeline draws red."""
    page = Page(browser, web_base(web_vhost) + "/inspect")
    p = driver(web_vhost)
    c = p("container.create", {"class": "Container"})["container"]
    if call == "endAppearance":
        p("container.endAppearanceTransition", {"container": c})  # from disappeared: unbalanced
    else:
        p("container.beginAppearanceTransition", {"container": c, "appearing": False})  # disappearing, never appeared
    page.wait("document.querySelector('#timeline-canvas .mark.unbalanced') !== null")
    mark = page.page.locator("#timeline-canvas .mark.unbalanced")
    assert mark.get_attribute("data-container") == c
    assert page.js("getComputedStyle(document.querySelector('#timeline-canvas .mark.unbalanced')).backgroundColor") \
        == "rgb(208, 16, 16)"
    page.wait("document.querySelector('.tile[data-stat=unbalanced]').classList.contains('bad')")
    assert page.js("document.querySelector('.tile[data-stat=unbalanced] .tile-value').textContent") == "1"
    # Clicking the mark shows the event's JSON.
    mark.click()
    page.wait("document.querySelector('#detail').textContent.includes('unbalancedAppearanceTransition')")
    assert f'"call": "{call}"' in page.js("document.querySelector('#detail').textContent")
    page.close()


def test_inspector_keeps_up_with_a_million_item_range_session(browser, web_vhost):
    """Thousands of range updates of a 1,000,000-item session: the inspector's history stays bounded and its
    strip shows the host's final ranges (as intervals). The screenshot of the whole inspector is taken here,
    with a pool, a page session and the range session on it."""
    page = Page(browser, web_base(web_vhost) + "/inspect")
    p = driver(web_vhost)
    p("classes.define", {"name": "Article", "hooks": {"viewDidLoad": {"costMs": 1}}})
    p("pool.configure", {"class": "Article", "depth": 2, "width": 375, "height": 667, "policy": "eager"})
    p("tasks.drain")
    # The virtual clock moves between the steps, so that the timeline's axis and the log show host time.
    tick = lambda ms=40: p("clock.advance", {"ms": ms})  # noqa: E731
    tick()
    stack = p("stack.create", {"width": 375, "height": 667})["stack"]
    p("showRendered", {"class": "Article", "stack": stack})
    tick()
    p("tasks.drain")
    tick()
    pages = p("page.create", {"class": "Container", "count": 6, "width": 375, "height": 667, "initialIndex": 2})["session"]
    tick()
    p("page.willBeginDragging", {"session": pages, "offset": 750})
    p("page.didScroll", {"session": pages, "offset": 800})
    tick(20)
    p("page.didScroll", {"session": pages, "offset": 700})
    tick()
    c = p("container.create", {"class": "Container"})["container"]
    tick(20)
    p("container.beginAppearanceTransition", {"container": c, "appearing": False})  # unbalanced: shows red
    tick()
    ranges = p("range.create", {"count": 1_000_000, "itemLength": 50, "viewport": {"width": 375, "height": 600},
                                "batch": {"leadingScreens": 0}})["session"]
    p("range.willBeginDragging", {"session": ranges, "offset": 0})
    requests = [{"jsonrpc": "2.0", "id": i, "method": "range.didScroll",
                 "params": {"session": ranges, "offset": 49_000_000 + i * 25}} for i in range(3000)]
    for start in range(0, len(requests), 200):  # in batches of 200 (the batch limit is 256)
        p.conn.send(requests[start:start + 200])
        replies = p.conn.read_json(10.0)  # the driver subscribed to lifecycle only: the batch's reply is next
        assert isinstance(replies, list) and all("result" in r for r in replies), replies
        tick(16)
    state = p("range.state", {"session": ranges})
    visible = sorted(path[1] for path in state["visible"])
    text = f"visible {visible[0]}–{visible[-1]}"
    page.wait(f"document.querySelector('.range-session[data-session=\"{ranges}\"] .range-text')?.textContent.startsWith({text!r})")
    counts = page.js("""({ log: window.greenroomInspector.model.log.length, max: window.greenroomInspector.model.maxLog,
        lines: document.querySelector('#log').textContent.split('\\n').length })""")
    assert counts["log"] <= counts["max"] and counts["lines"] <= 60, counts
    page.wait("document.querySelector('.tile[data-stat=unbalanced]').classList.contains('bad')")
    # The time axis follows the host's (virtual) clock: each mark sits at its event's t, ticks read host time.
    now = p("clock.now")["ms"]
    page.wait(f"document.querySelector('#clock').textContent.includes('virtual {round(now)} ms')")
    axis = page.js("""({ ticks: [...document.querySelectorAll('#timeline-axis .tick')].map(t => parseFloat(t.textContent)),
        marks: [...document.querySelectorAll('#timeline-canvas .mark')].map(m => [parseFloat(m.style.left), Number(m.dataset.t)]) })""")
    assert len(axis["ticks"]) >= 3 and axis["ticks"] == sorted(set(axis["ticks"])) and axis["ticks"][-1] <= now, axis["ticks"]
    marks = sorted(axis["marks"])
    assert [t for _, t in marks] == sorted(t for _, t in marks) and marks[-1][1] > marks[0][1], marks
    page.screenshot("inspector.png", full_page=True)
    page.close()


def test_inspector_opened_while_a_script_drives_a_page_session_shows_each_later_event_once_in_order(browser, web_host):
    """The inspector is opened while a Python script (in another thread, on the real clock) swipes through a
    page session whose children come warm from an eager pool (their green-room hooks offscreen): the timeline
    shows exactly the script's lifecycle events from some point on — each once, in order, none missed after
    the inspector subscribed — with the offscreen ones marked."""
    p = driver(web_host)
    p("classes.define", {"name": "Story", "hooks": {"viewDidLoad": {"costMs": 1}}})
    p("pool.configure", {"class": "Story", "depth": 2, "width": 320, "height": 480, "policy": "eager"})
    p("tasks.drain")
    session = p("page.create", {"class": "Story", "count": 400, "width": 320, "height": 480, "initialIndex": 0,
                                "prerender": True, "cache": {"limit": 1}})["session"]
    opened = threading.Event()
    failure: list[BaseException] = []

    def drive() -> None:
        try:
            after = None
            for step in range(1, 400):
                p("page.show", {"session": session, "index": step})
                p("tasks.drain")  # the pool warms the next child in its green room: offscreen hooks
                if opened.is_set():
                    after = step if after is None else after
                    if step - after >= 12:
                        return
                elif step >= 40:
                    opened.wait(WAIT_MS / 1000)
            raise AssertionError("the inspector did not open while the script was driving")
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            failure.append(e)

    thread = threading.Thread(target=drive, daemon=True)
    thread.start()
    page = Page(browser, web_base(web_host) + "/inspect")
    opened.set()
    thread.join(WAIT_MS / 1000)
    assert not thread.is_alive() and not failure, failure
    last = p("container.create", {"class": "Container"})["container"]  # the last event: everything before it arrived
    page.wait(f"document.querySelector('#timeline-canvas .mark[data-container=\"{last}\"]') !== null")
    expected = [(e["params"]["container"], e["params"]["event"], e["params"]["offscreen"])
                for e in p.events() if e["method"] == "lifecycle"]
    # One snapshot of the marks (each with its offscreen class), cut where `expected` ends: on the real
    # clock the eager pool goes on warming in idle passes after the last call, and those later events may
    # reach the page but not yet the script.
    snapshot = [tuple(m) for m in page.js("""[...document.querySelectorAll('#timeline-canvas .mark')]
        .sort((a, b) => parseFloat(a.style.left) - parseFloat(b.style.left))
        .map(m => [m.dataset.container, m.dataset.event, m.dataset.offscreen === 'true', m.classList.contains('offscreen')])""")]
    end = next(i for i, m in enumerate(snapshot) if m[0] == last and m[1] == "init") + 1
    assert expected[-1][:2] == (last, "init"), expected[-1]
    shown = [m[:3] for m in snapshot[:end]]
    assert 0 < len(shown) < len(expected), (len(shown), len(expected))  # opened in the middle of the drive
    assert shown == expected[-len(shown):]
    # The drive had offscreen (green-room) hooks and on-screen ones; how many of each the page saw depends
    # on when it opened. Each shown mark is drawn offscreen exactly when its event was.
    assert any(off for _, _, off in expected) and not all(off for _, _, off in expected)
    assert all(m[2] == m[3] for m in snapshot[:end])  # offscreen events are drawn as such, and only they
    page.close()


def test_inspector_stats_pools_and_page_strip_match_the_host(browser, web_vhost):
    """The tiles say what host.stats says (connections, containers by state, the task queue), the pool row what
    pool.status says (idle, warming, depth, hits, misses), and the page strip marks the current page, the guess
    of a drag under way and the cached children."""
    page = Page(browser, web_base(web_vhost) + "/inspect")
    p = driver(web_vhost)
    p("classes.define", {"name": "Story", "hooks": {"viewDidLoad": {"costMs": 1}}})
    p("pool.configure", {"class": "Story", "depth": 2, "width": 320, "height": 480, "policy": "lazy"})
    stack = p("stack.create", {"width": 320, "height": 480})["stack"]
    p("showRendered", {"class": "Story", "stack": stack})  # a miss: a lazy pool warms nothing before the first take
    p("tasks.drain")
    p("showRendered", {"class": "Story", "stack": stack})  # a hit
    p("tasks.drain")
    session = p("page.create", {"class": "Container", "count": 5, "width": 320, "height": 480, "initialIndex": 2})["session"]
    p("page.willBeginDragging", {"session": session, "offset": 640})
    p("page.didScroll", {"session": session, "offset": 700})  # toward page 3: the guess
    pool = p.pool("Story")
    assert pool["hits"] == 1 and pool["misses"] == 1, pool
    stats = p.stats()
    by_state = stats["containers"]["byState"]
    page.wait("""([pool, stats, states]) => {
        const cells = [...document.querySelectorAll('#pools-body tr[data-pool="Story 320x480"] td.num')].map(td => td.textContent);
        const tile = (name) => document.querySelector(`.tile[data-stat="${name}"]`);
        return JSON.stringify(cells) === JSON.stringify([pool.idle, pool.warming, pool.depth, pool.hits, pool.misses].map(String))
            && tile('connections')?.querySelector('.tile-value').textContent === String(stats.connections.open)
            && tile('containers')?.querySelector('.tile-value').textContent === String(stats.containers.total)
            && states.every(([state, n]) => tile('containers').querySelector('.tile-note').textContent.split(' · ').includes(`${state} ${n}`))
            && tile('task queue')?.querySelector('.tile-value').textContent === String(stats.tasks.pending);
    }""", [pool, stats, [[s, by_state[s]] for s in ("appeared", "appearing", "disappearing", "disappeared", "fresh")]])
    assert stats["connections"]["open"] == 2  # the inspector and this script
    strip = f".page-session[data-session=\"{session}\"]"
    page.wait(f"document.querySelector('{strip} .page-cell.guess')?.dataset.index === '3'")
    cells = page.js(f"""[...document.querySelectorAll('{strip} .page-cell')].map(c => ({{
        index: Number(c.dataset.index), current: c.classList.contains('current'), guess: c.classList.contains('guess'),
        cached: c.classList.contains('cached'), state: ['appeared', 'appearing', 'disappearing', 'disappeared', 'fresh'].find(s => c.classList.contains(s)) ?? null }}))""")
    assert [c["index"] for c in cells if c["current"]] == [2]
    assert [c["index"] for c in cells if c["guess"]] == [3]
    cached = {c["index"]: c["state"] for c in cells if c["cached"]}
    assert cached.get(2) == "disappearing" and cached.get(3) == "appearing", cached
    page.close()


def test_inspector_pause_clear_and_bounded_history_under_60_scrolls_a_second(browser, web_host):
    """A script streams range.didScroll at 60 a second (real clock) on a 1,000,000-item session while the
    inspector is open. Pause freezes the picture while events are still applied; Resume catches up; Clear
    forgets the timeline and the log but keeps the sessions; the event history stays bounded and the range
    strip ends on the host's own final ranges (the page kept up)."""
    page = Page(browser, web_base(web_host) + "/inspect")
    p = driver(web_host)
    for _ in range(3):
        p("container.create", {"class": "Container"})  # lanes for Clear to clear
    ranges = p("range.create", {"count": 1_000_000, "itemLength": 50, "viewport": {"width": 375, "height": 600},
                                "batch": {"leadingScreens": 0}})["session"]
    p("range.willBeginDragging", {"session": ranges, "offset": 0})
    page.wait("document.querySelectorAll('#timeline-canvas .mark').length === 3")
    stop = threading.Event()
    sent = []
    failure: list[BaseException] = []

    def stream() -> None:
        try:
            period, due = 1 / 60, time.monotonic()
            while not stop.is_set():
                offset = (len(sent) + 1) * 50  # one item a frame: each call moves every range
                p("range.didScroll", {"session": ranges, "offset": offset})
                sent.append(offset)
                due += period
                stop.wait(max(0.0, due - time.monotonic()))  # the 60 Hz pace of a display, not a wait for a result
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            failure.append(e)

    thread = threading.Thread(target=stream, daemon=True)
    thread.start()
    try:
        model = "window.greenroomInspector.model"
        row = f"document.querySelector('.range-session[data-session=\"{ranges}\"] .strip-head')"
        page.wait(f"{model}.ranges.get({ranges!r})?.updates >= 20")
        # Pause: the drawing stops, the model goes on.
        page.page.click("#pause")
        page.wait("document.body.classList.contains('paused') && document.querySelector('#pause').textContent === 'Resume'")
        frozen = page.js(f"({{ head: {row}.textContent, events: document.querySelector('.tile[data-stat=events] .tile-value').textContent, applied: {model}.eventCount }})")
        page.wait(f"{model}.eventCount > {frozen['applied'] + 30}")
        now = page.js(f"({{ head: {row}.textContent, events: document.querySelector('.tile[data-stat=events] .tile-value').textContent }})")
        assert now == {"head": frozen["head"], "events": frozen["events"]}
        # Resume: the picture catches up with what was applied meanwhile.
        applied = page.js(f"{model}.eventCount")
        page.page.click("#pause")
        page.wait(f"Number(document.querySelector('.tile[data-stat=events] .tile-value').textContent.replace(/,/g, '')) >= {applied}"
                  f" && {row}.textContent !== {frozen['head']!r}")
        # Clear: no marks, no lanes, a fresh log; the range session stays.
        page.page.click("#clear")
        page.wait("document.querySelectorAll('#timeline-canvas .mark').length === 0 && document.querySelectorAll('#timeline-labels .lane-label').length === 0"
                  f" && document.querySelector('#timeline-count').textContent.startsWith('0 hooks') && {row} !== null")
        # Bounded: more events than the log keeps went by, and the page holds no more than its bounds.
        page.wait(f"{model}.eventCount > {model}.maxLog + {frozen['applied']}")
        # Clear while paused shows at once, and the picture stays paused (a connection of its own: the
        # stream thread uses `p`).
        driver(web_host)("container.create", {"class": "Container"})
        page.wait("document.querySelectorAll('#timeline-canvas .mark').length >= 1")
        page.page.click("#pause")
        page.wait("document.body.classList.contains('paused')")
        page.page.click("#clear")
        page.wait("document.querySelectorAll('#timeline-canvas .mark').length === 0 && document.body.classList.contains('paused')")
        page.page.click("#pause")
    finally:
        stop.set()
        thread.join(WAIT_MS / 1000)
    assert not failure, failure
    assert len(sent) > 100
    state = p("range.state", {"session": ranges})
    visible = sorted(path[1] for path in state["visible"])
    page.wait(f"document.querySelector('.range-session[data-session=\"{ranges}\"] .range-text')?.textContent.startsWith('visible {visible[0]}–{visible[-1]}')")
    sizes = page.js(f"""({{ log: {model}.log.length, maxLog: {model}.maxLog, logLines: document.querySelector('#log').textContent.split('\\n').length,
        rangeNodes: document.querySelectorAll('#ranges *').length, updates: {model}.ranges.get({ranges!r}).updates,
        preload: {model}.ranges.get({ranges!r}).sets.preload.size }})""")
    assert sizes["log"] <= sizes["maxLog"] and sizes["logLines"] <= 60, sizes
    # Bands are intervals; only the items being prefetched (inside preload, a few screens) are dots, twice.
    assert sizes["preload"] < 200 and sizes["rangeNodes"] <= 30 + 2 * sizes["preload"], sizes
    assert sizes["updates"] >= len(sent), sizes
    page.close()


def test_the_readmes_page_of_your_own_runs_as_written(browser, web_host):
    """README.md's "From a page of your own" snippet, run as written in a page of the host's own origin: it
    logs the container's lifecycle, the typed error for an unknown container, and the container's info."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme[readme.index("### From a page of your own"):]
    html = section[section.index("```html\n") + len("```html\n"):section.index("```", section.index("```html\n") + 8)]
    script = html.strip().removeprefix('<script type="module">').removesuffix("</script>")
    page = browser.new_page()
    logs: list[str] = []
    errors: list[str] = []
    page.on("console", lambda m: logs.append(m.text) if m.type == "log"
            else "favicon.ico" in m.location.get("url", "") or errors.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(web_base(web_host) + "/")  # a page of the host's origin
    page.add_script_tag(content=script, type="module")
    deadline = time.monotonic() + WAIT_MS / 1000
    while len(logs) < 3 and time.monotonic() < deadline:
        page.wait_for_timeout(20)  # the module runs asynchronously; its console lines are the condition
    page.close()
    assert not errors, errors
    container_lines = [line for line in logs if line.startswith("c-") and " " in line]
    assert container_lines and container_lines[0].split()[1] == "init", logs
    assert "-32002 unknownObject" in logs, logs
    assert logs[-1].startswith("{container: c-1, class: Container,"), logs


def test_inspector_lists_native_and_command_plugins_and_their_crashes(browser, start_host):
    """The Plugins panel shows a library's worker beside a command's (host.info), and a crash at once."""
    import signal
    import sys

    from test_plugins import lib

    counter = Path(__file__).resolve().parents[2] / "examples" / "plugins" / "python" / "counter.py"
    host = start_host("--listen", "ws:127.0.0.1:0", "--plugin", lib("CounterPlugin"),
                      "--plugin-command", f"{sys.executable} {counter}")
    page = Page(browser, web_base(host) + "/inspect")
    page.wait("document.querySelectorAll('#plugins-body tr').length === 2")
    rows = page.js("[...document.querySelectorAll('#plugins-body tr')].map(r => [...r.cells].map(c => c.textContent))")
    assert [r[:2] + r[3:5] for r in rows] == [["counter", "library", "Counter", "running"],
                                             ["counter-py", "command", "CounterPy", "running"]]
    assert rows[1][2] == f"{sys.executable} {counter}"
    pid = int(rows[1][5])
    os.kill(pid, signal.SIGKILL)
    page.wait("document.querySelector('#plugins-body tr[data-plugin=counter-py] td.crash').textContent.startsWith('crashed')")
    page.wait(f"document.querySelector('#plugins-body tr[data-plugin=counter-py]').cells[5].textContent !== '{pid}'")
    page.screenshot("inspector-plugins.png", full_page=True)
    page.close()
