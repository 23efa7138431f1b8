"""The JavaScript client (clients/js/greenroom.js) in a real browser: Debian's chromium driven by
Playwright for Python (`executable_path`, never Playwright's own browser download), on a page the host
serves itself, against a real host: calls, typed errors, events, and reconnecting after a drop."""

from __future__ import annotations

import os
import shutil
import signal

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
