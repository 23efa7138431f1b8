"""One lifecycle suite, three languages: the Counter class in C (examples/plugins/Counter, a library in a worker),
in Python (examples/plugins/python/counter.py, greenroom.plugin) and in JavaScript (examples/plugins/node/counter.mjs,
the node kit), each run as the host runs plugins. Every test runs against each: the lifecycle events a class's
containers go through are those a scripted class goes through in the same calls (the host decides them, whatever
the plugin's language), `configure` sees every hook the host ran, a hook that fails fails its container with the
same -32004 and the same teardown, and a worker that dies is contained, restarted and reported the same way."""

from __future__ import annotations

import os
import shutil
import signal
import sys
from pathlib import Path

import pytest

from test_plugins import lib

ROOT = Path(__file__).resolve().parents[2]
PY_COUNTER = ROOT / "examples" / "plugins" / "python" / "counter.py"
NODE_COUNTER = ROOT / "examples" / "plugins" / "node" / "counter.mjs"

# (language, serve arguments, plugin, class)
LANGUAGES = {
    "c": (lambda: ["--plugin", lib("CounterPlugin")], "counter", "Counter"),
    "python": (lambda: ["--plugin-command", f"{sys.executable} {PY_COUNTER}"], "counter-py", "CounterPy"),
    "javascript": (lambda: ["--plugin-command", f"{shutil.which('node')} {NODE_COUNTER}"], "counter-node", "CounterNode"),
}


@pytest.fixture(params=list(LANGUAGES), ids=list(LANGUAGES))
def language(request, start_host):
    """(host, plugin, class) for one language's Counter, on a virtual clock."""
    args, plugin, cls = LANGUAGES[request.param]
    if request.param == "javascript":
        assert shutil.which("node"), "node is not installed (scripts/install-deps.sh installs it)"
    host = start_host("--clock", "virtual", *args(), "--hook-timeout-ms", "5000")
    return host, plugin, cls


def normalized(events: list[dict]) -> list[tuple]:
    """Lifecycle events with what differs between two runs of the same calls taken out: sequence numbers,
    the class, and container, stack and green room ids (numbered in order of appearance)."""
    ids: dict[str, str] = {}

    def name(v):
        if isinstance(v, str) and v[:2] in ("c-", "s-", "g-"):  # containers, stacks, green rooms
            ids.setdefault(v, f"{v[0]}{len(ids)}")
            return ids[v]
        return v

    out = []
    for e in events:
        p = {k: name(v) for k, v in e["params"].items() if k not in ("seq", "t", "class", "cause")}
        out.append(tuple(sorted(p.items())))
    return out


def lifecycle(conn, cls: str) -> list[dict]:
    """The lifecycle events `conn` received for containers of `cls` (a memory warning reaches every class's)."""
    events = [e for e in conn.events if e["method"] == "lifecycle" and e["params"]["class"] == cls]
    conn.events.clear()
    return events


def scenario(c, cls: str) -> list:
    """A container's life in every shape a client gives it; returns the calls' results."""
    results = []
    stack = c.result("stack.create", {"width": 375, "height": 667})["stack"]
    results.append(c.result("showRendered", {"class": cls, "stack": stack, "data": {"n": 1}}))
    results.append(c.result("showRendered", {"class": cls, "stack": stack, "data": {"n": 2}}))
    box = c.result("container.create", {"class": cls, "data": {"n": 3}})["container"]
    c.result("stack.push", {"stack": stack, "container": box, "animated": False})
    results.append(c.result("container.configure", {"container": box, "data": {"n": 4}}))
    c.result("stack.resize", {"stack": stack, "width": 320, "height": 480})
    c.result("host.memoryWarning", {})
    c.result("stack.pop", {"stack": stack, "animated": False})
    c.result("stack.popToRoot", {"stack": stack, "animated": False})
    c.result("stack.destroy", {"stack": stack})
    return results


def test_a_plugin_class_lives_the_lifecycle_a_scripted_class_lives(language):
    host, plugin, cls = language
    c = host.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    c.result("classes.define", {"name": "Reference", "hooks": {}})
    scenario(c, "Reference")
    reference = normalized(lifecycle(c, "Reference"))
    results = scenario(c, cls)
    mine = lifecycle(c, cls)
    assert normalized(mine) == reference
    assert len(reference) > 40
    # configure saw every hook the host ran on its container before it (counted and named by the plugin).
    for result in results:
        hooks = [e["params"]["event"] for e in mine if e["params"]["container"] == result["container"]]
        out = result["output"]
        assert hooks[out["calls"] - 1] == "configure", (hooks, out)
        assert out["lastHook"] == hooks[out["calls"] - 2], (hooks, out)
        assert (out["workPending"], out["workDone"], out["sum"]) == (0, 0, None)


@pytest.mark.parametrize("hook", ["init", "viewDidLoad", "viewWillAppear", "viewDidAppear", "willMoveToParent", "configure"])
def test_a_failing_hook_fails_its_container_as_a_scripted_one_does(language, hook):
    host, plugin, cls = language
    c = host.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    c.result("classes.define", {"name": "Reference", "hooks": {hook: {"fail": True}}})

    def run(name, data):
        stack = c.result("stack.create", {"width": 375, "height": 667})["stack"]
        reply = c.call("container.create", {"class": name, "data": data})
        if "result" in reply:
            box = reply["result"]["container"]
            reply = c.call("stack.push", {"stack": stack, "container": box, "animated": False})
            if "result" in reply:
                reply = c.call("container.configure", {"container": box, "data": {}})
        err = reply["error"]
        info = c.result("stack.info", {"stack": stack})
        c.result("stack.destroy", {"stack": stack})
        return err, info

    ref_err, ref_info = run("Reference", {})
    reference = normalized(lifecycle(c, "Reference"))
    err, info = run(cls, {"failOn": hook})
    assert normalized(lifecycle(c, cls)) == reference
    assert err["code"] == ref_err["code"] == -32004
    data = err["data"]
    assert (data["kind"], data["plugin"], data["class"], data["hook"], data["reason"]) == (
        "pluginFailed", plugin, cls, hook, "failed")
    assert f"Counter: {hook} failed because data.failOn names it (call " in err["message"]
    assert [k for k in info if k != "stack"] == [k for k in ref_info if k != "stack"]
    # The class carries on.
    assert c.result("showRendered", {"class": cls, "data": {}})["output"]["calls"] >= 2


def test_a_worker_that_dies_is_contained_restarted_and_reported(language):
    host, plugin, cls = language
    c = host.connect()
    c.result("events.subscribe", {"topics": ["lifecycle", "host"]})
    status = next(p for p in c.result("host.info")["plugins"] if p["name"] == plugin)
    assert status["isolation"] == "process" and status["state"] == "running" and status["workerProtocol"] == 1
    stack = c.result("stack.create", {"width": 375, "height": 667})["stack"]
    shown = c.result("showRendered", {"class": cls, "stack": stack, "data": {}})["container"]
    c.events.clear()
    os.kill(status["pid"], signal.SIGKILL)
    # Noticed from the socket's hang-up, no request needed.
    seen = []
    while not any(e.get("method") == "host" and e["params"]["kind"] == "pluginCrashed" for e in seen):
        seen.append(c.read_json(timeout=10))
    crashed = next(e["params"] for e in seen if e.get("method") == "host" and e["params"]["kind"] == "pluginCrashed")
    assert crashed["plugin"] == plugin and crashed["reason"] == "crashed"
    assert crashed["signalName"] == "SIGKILL" and crashed["willRestart"] is True
    # The lost container is torn down (balanced, out of its stack) before the next request that may run hooks.
    info = c.result("stack.info", {"stack": stack})
    assert shown not in str(info), info
    seen += c.events
    c.events.clear()
    torn = [e["params"]["event"] for e in seen if e["method"] == "lifecycle" and e["params"]["container"] == shown]
    assert torn and torn[-1] == "deinit", seen
    # Restarted: a fresh worker, and the class works again.
    again = c.result("showRendered", {"class": cls, "data": {}})
    assert again["output"]["calls"] == 2
    after = next(p for p in c.result("host.info")["plugins"] if p["name"] == plugin)
    assert after["pid"] != status["pid"] and after["crashes"] == 1 and after["restarts"] == 1
    assert any(e["method"] == "host" and e["params"]["kind"] == "pluginRestarted" for e in seen + c.events)
    # plugins.restart starts it again on request.
    restarted = c.result("plugins.restart", {"plugin": plugin})
    assert restarted["state"] == "running" and restarted["pid"] not in (after["pid"], None)


@pytest.mark.parametrize("batching", ["on", "off"])
def test_batched_and_unbatched_hooks_give_the_same_replies_and_events(start_host, batching):
    """Command workers stream a batch's replies (no shared page): the same stream as one hook at a time."""
    def run(args, cls):
        host = start_host("--clock", "virtual", "--hook-batching", batching, *args)
        c = host.connect()
        c.result("events.subscribe", {"topics": ["lifecycle"]})
        stack = c.result("stack.create", {"width": 375, "height": 667})["stack"]
        replies = []
        for f in (None, None, "configure", None, "configure", None):
            replies.append(c.call("showRendered", {"class": cls, "stack": stack, "animated": False, "data": {"failOn": f}}))
            c.result("tasks.drain")  # the pool warms, so the next call is a hit: planned and batched
        stats = c.result("host.stats")["hookBatching"]
        host.stop()
        return [strip(r) for r in replies], normalized(lifecycle(c, cls)), stats

    def strip(reply):
        if "error" in reply:
            d = reply["error"]["data"]
            # "<Class>.configure failed: <the plugin's message> (call N); ...": the plugin's own words.
            return ("error", d["hook"], d["reason"], reply["error"]["message"].split(": ", 1)[1].split(" (call")[0])
        return ("ok", reply["result"]["warm"], reply["result"]["output"]["calls"])

    outcomes = {}
    for language, (args, _plugin, cls) in LANGUAGES.items():
        outcomes[language] = run(args(), cls)
    assert outcomes["python"][:2] == outcomes["c"][:2] == outcomes["javascript"][:2]
    if batching == "on":
        for language in LANGUAGES:
            assert outcomes[language][2]["batches"] > 0, language


def test_the_article_renders_the_same_page_in_swift_python_and_javascript(start_host):
    """The Article example ported to both kits renders what the Swift plugin renders, byte for byte."""
    host = start_host("--clock", "virtual", "--plugin", lib("ArticlePlugin"),
                      "--plugin-command", f"{sys.executable} {ROOT / 'examples/plugins/python/article.py'}",
                      "--plugin-command", f"{shutil.which('node')} {ROOT / 'examples/plugins/node/article.mjs'}")
    c = host.connect()
    data = {"title": "Tom & Jerry <3", "subtitle": "It's \"quoted\"", "author": {"name": "Ann", "handle": "ann"},
            "tags": ["a", "b"], "readingMinutes": 4, "paragraphs": ["one", "two"], "html": "<em>raw</em>",
            "items": [{"name": "Pen", "url": "/pen", "price": 2.5, "currency": "€"}, {"name": "Ink", "soldOut": True}],
            "published": "2024-05-01", "comments": 0, "site": "Prerender Weekly", "includeHTML": True}
    pages = {}
    for cls in ("Article", "ArticlePy", "ArticleNode"):
        stack = c.result("stack.create", {"width": 390, "height": 844})["stack"]
        box = c.result("container.create", {"class": cls, "data": data})["container"]
        c.result("stack.push", {"stack": stack, "container": box, "animated": False})
        out = c.result("container.configure", {"container": box, "data": None})["output"]
        assert out["size"] == {"width": 390, "height": 844} and out["title"] == data["title"]
        page = out["html"].replace(box, "C")
        assert out["bytes"] == len(out["html"].encode())
        pages[cls] = page
        failed = c.call("container.configure", {"container": box, "data": {"fail": True}})["error"]
        assert f"Article.configure failed on purpose: data.fail is true (container {box})" in failed["message"]
    assert pages["ArticlePy"] == pages["Article"]
    assert pages["ArticleNode"] == pages["Article"]
    assert "Tom &amp; Jerry &lt;3" in pages["Article"] and "<em>raw</em>" in pages["Article"]
