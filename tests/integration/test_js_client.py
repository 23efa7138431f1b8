"""The JavaScript client (clients/js/greenroom.js) in a real browser: Debian's chromium driven by
Playwright for Python (`executable_path`, never Playwright's own browser download), on a page the host
serves itself, against a real host: calls, typed errors, events, and reconnecting after a drop."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("GREENROOM_CHROMIUM", "/usr/bin/chromium")

playwright_api = pytest.importorskip("playwright.sync_api")
if not shutil.which(CHROMIUM):
    pytest.skip(f"no chromium at {CHROMIUM} (scripts/install-deps.sh test installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    pg = context.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        yield pg
    finally:
        context.close()
    assert not errors, errors


def open_client_page(page, host):
    """Loads the host's own page and imports the client as `window.gr`, connected as `window.host`."""
    h, p = host.ws_address
    page.goto(f"http://{h}:{p}/", wait_until="load")
    page.evaluate("""async () => {
        window.gr = await import("/greenroom.js");
        window.host = await window.gr.connect(new URL("/rpc", location.href.replace(/^http/, "ws")).href);
    }""")


def test_calls_typed_errors_and_events(start_host, page):
    host = start_host("--listen", "ws:127.0.0.1:0")
    open_client_page(page, host)
    result = page.evaluate("""async () => {
        const out = {};
        out.pong = await host.call("host.ping");
        out.listen = (await host.call("host.info")).listen;
        try { await host.call("container.info", { container: "c-999" }); } catch (e) {
            out.unknown = { name: e.name, isUnknownObject: e instanceof gr.UnknownObject, isRPCError: e instanceof gr.RPCError,
                            isBase: e instanceof gr.GreenroomError, code: e.code, kind: e.kind, hasMessage: e.message.length > 0 };
        }
        try { await host.call("container.create", { class: 7 }); } catch (e) {
            out.invalid = { name: e.name, code: e.code, path: e.data.path };
        }
        try { await host.call("no.such.method"); } catch (e) { out.missing = e.name; }
        const events = [];
        host.on("lifecycle", (event) => events.push(event));
        await host.subscribe(["lifecycle"]);
        const created = await host.call("container.create", { class: "Container" });
        out.created = typeof created.container;
        out.events = events.map((e) => [e.seq, typeof e.t]);
        out.eventsBeforeReply = events.length > 0;
        return out;
    }""")
    assert result["pong"] == {"pong": True}
    assert result["listen"] == host.listen
    assert result["unknown"] == {"name": "UnknownObject", "isUnknownObject": True, "isRPCError": True, "isBase": True,
                                 "code": -32002, "kind": "unknownObject", "hasMessage": True}, result
    assert result["invalid"]["name"] == "InvalidParams" and result["invalid"]["code"] == -32602 and result["invalid"]["path"]
    assert result["missing"] == "MethodNotFound"
    assert result["created"] == "string"
    assert result["eventsBeforeReply"], result
    seqs = [s for s, _ in result["events"]]
    assert seqs == sorted(seqs) and all(t == "number" for _, t in result["events"]), result


def test_pending_calls_fail_clearly_on_a_drop_and_the_page_reconnects(start_host, page):
    host = start_host("--listen", "ws:127.0.0.1:0")
    h, port = host.ws_address
    open_client_page(page, host)
    # A call in flight while the host is stopped, then killed: the call is rejected, not left waiting.
    host.signal(signal.SIGSTOP)
    page.evaluate("""() => {
        window.pending = host.call("host.ping").then((r) => ({ ok: r }), (e) => ({ name: e.name, closed: e instanceof gr.ConnectionClosed, message: e.message }));
    }""")
    host.signal(signal.SIGKILL)
    host.wait(10)
    dropped = page.evaluate("() => window.pending")
    assert dropped["name"] == "ConnectionClosed" and dropped["closed"], dropped
    assert "closed" in dropped["message"], dropped
    after = page.evaluate("""() => host.call("host.ping").then(() => "answered", (e) => e.name)""")
    assert after == "ConnectionClosed"
    # A new host on the same port: the page connects again and carries on.
    again = start_host("--listen", f"ws:127.0.0.1:{port}")
    pong = page.evaluate("""async () => {
        window.host = await gr.connect(`ws://${location.host}/rpc`);
        return await host.call("host.ping");
    }""")
    assert pong == {"pong": True}
    assert again.stats()["connections"]["webSocketUpgrades"] == 1


def test_another_origin_is_refused_until_allowed(start_host, page):
    host = start_host("--listen", "ws:127.0.0.1:0")
    open_client_page(page, host)
    _, port = host.ws_address
    # The page at http://localhost:PORT is the listener's own origin too; a data: page is not.
    refused = page.evaluate("""async (url) => {
        const frame = document.createElement("iframe");
        frame.setAttribute("sandbox", "allow-scripts");
        document.body.append(frame);
        return await new Promise((resolve) => {
            window.addEventListener("message", (e) => resolve(e.data), { once: true });
            frame.srcdoc = `<script>const ws = new WebSocket(${JSON.stringify(url)});
                ws.onopen = () => parent.postMessage("open", "*"); ws.onerror = () => parent.postMessage("refused", "*");<\\/script>`;
        });
    }""", host.ws_url())
    assert refused == "refused"
    assert host.stats()["connections"]["httpAnswers"]["origin"] == 1


def test_the_lifecycle_model_against_the_host(start_host, page):
    """The lifecycle model in clients/js/greenroom.js (this checkout's file, whatever the binary embeds) drives
    a virtual-clock host in the browser: swipePage gives docs/pages.md's orders, the checker finds nothing,
    a wrong expectation fails with the first difference, and rangeDrag's fling stops at the host's target."""
    host = start_host("--clock", "virtual", "--listen", "ws:127.0.0.1:0")
    source = (Path(__file__).resolve().parents[2] / "clients" / "js" / "greenroom.js").read_text()
    page.route("**/greenroom.js", lambda route: route.fulfill(status=200, content_type="text/javascript", body=source))
    open_client_page(page, host)
    result = page.evaluate("""async () => {
        const checker = new gr.AppearanceChecker();
        const seen = [];
        host.on("lifecycle", (event) => { checker.feed(event); seen.push(event); });
        await host.subscribe(["lifecycle"]);
        const { session } = await host.call("page.create", { class: "Container", count: 5, width: 375, height: 667, initialIndex: 1 });
        seen.length = 0;
        const out = {};
        out.reply = await gr.swipePage(host, session, 1, 0, { width: 375 });
        out.swipe = gr.assertCalls(seen.splice(0), ["willAppear 0", "willDisappear 1", "didAppear 0", "didDisappear 1"], { session });
        await gr.swipePage(host, session, 0, 1, { width: 375, cancelled: true });
        const cancelled = seen.splice(0);
        out.cancelled = gr.pageCalls(cancelled, session);
        try { gr.assertCalls(cancelled, ["willAppear 1", "willDisappear 0", "didAppear 1", "didDisappear 0"]); }
        catch (e) { out.wrong = { name: e.name, index: e.index, head: e.message.split("\\n").slice(0, 3) }; }
        out.atRest = (await gr.assertPageAtRest(host, session, 0)).index;
        checker.check({ atRest: true });
        out.checked = checker.ok;
        const rows = await host.call("range.create", { count: 40, itemLength: 100, viewport: { width: 400, height: 1000 } });
        out.fling = await gr.rangeDrag(host, rows.session, [0, 100, 250, 500], { fling: 3, frameMs: 16 });
        out.now = (await host.call("clock.now")).ms;
        return out;
    }""")
    assert result["reply"]["index"] == 0 and result["reply"]["phase"] == "idle", result
    assert result["swipe"] == ["willAppear 0", "willDisappear 1", "didAppear 0", "didDisappear 1"]
    # docs/pages.md, a cancelled swipe: the old page appears again, the glimpsed one goes.
    assert result["cancelled"] == ["willAppear 1", "willDisappear 0", "willAppear 0", "didAppear 0",
                                   "willDisappear 1", "didDisappear 1"]
    assert result["wrong"] == {"name": "LifecycleAssertionError", "index": 2,
                               "head": ["page calls differ at call 3 (expected 4, got 6):",
                                        "  expected: didAppear 1", "  got:      willAppear 0"]}, result
    assert result["atRest"] == 0 and result["checked"] is True
    # docs/ranges.md: 3 points/ms at release stops 1497 points on; six frames of 16 ms.
    assert result["fling"]["target"] == pytest.approx(500 + 3 * 499) and result["fling"]["reply"]["phase"] == "idle"
    assert result["now"] == 96


def test_a_reply_held_for_the_appearance_resolves_when_the_clock_ends_the_push(start_host, page):
    """`reply: "afterAppear"`: the promise stays pending while other calls answer, and resolves with
    `transitionMs` once the `clock.advance` that ends the animated push has run."""
    host = start_host("--listen", "ws:127.0.0.1:0", "--clock", "virtual")
    open_client_page(page, host)
    result = page.evaluate("""async () => {
        const { stack } = await host.call("stack.create", { width: 375, height: 667 });
        let settled = false;
        const shown = host.call("showRendered", { class: "Container", stack, animated: true, reply: "afterAppear" })
            .then((r) => { settled = true; return r; });
        const pong = await host.call("host.ping");
        const before = settled;
        await host.call("clock.advance", { ms: 300 });
        const r = await shown;
        return { pong, before, transitionMs: r.transitionMs, warm: r.warm };
    }""")
    assert result == {"pong": {"pong": True}, "before": False, "transitionMs": 300, "warm": False}, result
