"""The inspector (/inspect) and the demo (/demo) in a real browser: Debian's chromium driven by Playwright
(by executable_path: Playwright's own browser download is never used), against a real host serving the pages
on its `ws:` listener. Nothing sleeps: every wait is a DOM or page condition with a timeout.

With GREENROOM_SCREENSHOTS=DIR (`make screenshots` sets docs/img) the tests save their screenshots there.
"""

from __future__ import annotations

import os
import subprocess
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
#: Seed 001's interactive table, 1 -> 0 (docs/pages.md).
SEED_001_INTERACTIVE_1_TO_0 = ["viewWillAppear 0", "viewWillDisappear 1", "viewDidAppear 0", "viewDidDisappear 1"]


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

    def __init__(self, browser, url: str, width: int = 1400, height: int = 1000):
        self.errors: list[str] = []
        self.page = browser.new_page(viewport={"width": width, "height": height})
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


def test_demo_pager_drag_shows_seed_001s_interactive_order(browser, web_host):
    page = Page(browser, web_base(web_host) + "/demo")
    box = page.page.locator("#pager").bounding_box()
    y = box["y"] + box["height"] / 2
    mouse = page.page.mouse
    mouse.move(box["x"] + 40, y)
    mouse.down()
    for step in range(1, 13):
        mouse.move(box["x"] + 40 + step * 20, y)
    mouse.up()
    page.wait("document.querySelectorAll('#pager-interaction li').length >= 4 && window.greenroomDemo.pager.index === 0")
    hooks = page.js("[...document.querySelectorAll('#pager-interaction li')].map(li => li.textContent)")
    assert hooks == SEED_001_INTERACTIVE_1_TO_0
    # And with the buttons: an animated page.show, its did-hooks after the 300 ms animation.
    page.page.click("#pager-next")
    page.wait("window.greenroomDemo.pager.index === 1 && document.querySelectorAll('#pager-interaction li').length >= 4")
    hooks = page.js("[...document.querySelectorAll('#pager-interaction li')].map(li => li.textContent)")
    assert hooks == ["viewWillAppear 1", "viewWillDisappear 0", "viewDidAppear 1", "viewDidDisappear 0"]
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


def test_inspector_shows_an_unbalanced_transition_in_red(browser, web_vhost):
    page = Page(browser, web_base(web_vhost) + "/inspect")
    p = driver(web_vhost)
    c = p("container.create", {"class": "Container"})["container"]
    p("container.endAppearanceTransition", {"container": c})  # from disappeared: unbalanced
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
    assert '"call": "endAppearance"' in page.js("document.querySelector('#detail').textContent")
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
    stack = p("stack.create", {"width": 375, "height": 667})["stack"]
    p("showRendered", {"class": "Article", "stack": stack})
    p("tasks.drain")
    pages = p("page.create", {"class": "Container", "count": 6, "width": 375, "height": 667, "initialIndex": 2})["session"]
    p("page.willBeginDragging", {"session": pages, "offset": 750})
    p("page.didScroll", {"session": pages, "offset": 800})
    p("page.didScroll", {"session": pages, "offset": 700})
    c = p("container.create", {"class": "Container"})["container"]
    p("container.beginAppearanceTransition", {"container": c, "appearing": False})  # unbalanced: shows red
    ranges = p("range.create", {"count": 1_000_000, "itemLength": 50, "viewport": {"width": 375, "height": 600},
                                "batch": {"leadingScreens": 0}})["session"]
    p("range.willBeginDragging", {"session": ranges, "offset": 0})
    requests = [{"jsonrpc": "2.0", "id": i, "method": "range.didScroll",
                 "params": {"session": ranges, "offset": 49_000_000 + i * 25}} for i in range(3000)]
    for start in range(0, len(requests), 200):  # in batches of 200 (the batch limit is 256)
        p.conn.send(requests[start:start + 200])
        replies = p.conn.read_json(10.0)  # the driver subscribed to lifecycle only: the batch's reply is next
        assert isinstance(replies, list) and all("result" in r for r in replies), replies
    state = p("range.state", {"session": ranges})
    visible = sorted(path[1] for path in state["visible"])
    text = f"visible {visible[0]}–{visible[-1]}"
    page.wait(f"document.querySelector('.range-session[data-session=\"{ranges}\"] .range-text')?.textContent.startsWith({text!r})")
    counts = page.js("""({ log: window.greenroomInspector.model.log.length, max: window.greenroomInspector.model.maxLog,
        lines: document.querySelector('#log').textContent.split('\\n').length })""")
    assert counts["log"] <= counts["max"] and counts["lines"] <= 60, counts
    page.wait("document.querySelector('.tile[data-stat=unbalanced]').classList.contains('bad')")
    page.screenshot("inspector.png", full_page=True)
    page.close()
