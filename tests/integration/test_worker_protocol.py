"""The worker protocol (docs/worker-protocol.md) held against a worker that breaks it: garbage, half a frame, a
frame of the wrong kind, a reply to a hook it was not asked, a reply over the limit, nothing at all, a version
the host does not speak, a request of its own. Each is refused at start-up with one sentence, or contained as a
crash is: the call in flight fails with -32004 saying why, `pluginCrashed` reports it, the worker is restarted
and its class works again, and every other plugin's containers carry on untouched. A worker reaches no
container but its own, and cannot speak for another plugin."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from test_plugins import lib

ROGUE = Path(__file__).resolve().parent / "rogue_worker.py"
TIMEOUT_MS = "1500"


def rogue(start: str = "ok", plugin: str = "rogue") -> list[str]:
    return ["--plugin-command", f"{sys.executable} {ROGUE} {start} {plugin}"]


# (start mode, what the refusal says)
START_FAILURES = [
    ("garbage", "its first frame claims"),
    ("silent", "it sent no ready frame within 1000 ms (--plugin-start-timeout-ms)"),
    ("v2", "it speaks worker protocol version 2; this host speaks version 1"),
    ("noversion", "its ready frame names no protocol version"),
    ("badhook", "class Rogue asks for optional hook \"viewDidWiggle\", which is not an optional hook"),
    ("refuse", "rogue cannot find its configuration file"),
    ("exit", "its worker ended before it was ready (exited with status 4)"),
]


@pytest.mark.parametrize("start, said", START_FAILURES, ids=[s for s, _ in START_FAILURES])
def test_a_worker_that_cannot_start_is_refused_in_one_sentence(start_host, start, said):
    began = time.monotonic()
    err = start_host.fail(*rogue(start), "--plugin-start-timeout-ms", "1000")
    assert err.returncode == 2
    line = err.stderr.strip().splitlines()[-1]
    assert line.startswith(f"greenroom: cannot load plugin {sys.executable} {ROGUE} {start} rogue: "), line
    assert said in line, line
    assert time.monotonic() - began < 15


def test_a_command_that_cannot_be_split_or_found_is_refused(start_host):
    unclosed = start_host.fail("--plugin-command", "python3 'plugin.py")
    assert unclosed.returncode == 2 and "a single quote (') is never closed" in unclosed.stderr
    missing = start_host.fail("--plugin-command", "no-such-greenroom-plugin --flag")
    assert missing.returncode == 2 and "no executable no-such-greenroom-plugin in PATH" in missing.stderr
    empty = start_host.fail("--plugin-command", "   ")
    assert empty.returncode == 2 and "the command is empty" in empty.stderr
    inproc = start_host.fail("--plugin-command", f"{sys.executable} {ROGUE} ok", "--plugin-isolation", "none")
    assert inproc.returncode != 0 and "--plugin-command needs --plugin-isolation process" in inproc.stderr


def test_quoted_words_reach_the_command_as_words(start_host):
    # The plugin's name comes from its second argument: a quoted word with a space and a quote in it.
    host = start_host("--plugin-command", f"{sys.executable} '{ROGUE}' ok \"it's a \\\"name\\\"\"")
    c = host.connect()
    plugin = next(p for p in c.result("host.info")["plugins"] if p["kind"] == "command")
    assert plugin["name"] == 'it\'s a "name"'
    assert plugin["command"] == [sys.executable, str(ROGUE), "ok", 'it\'s a "name"']


@pytest.fixture
def rogue_host(start_host):
    """The rogue beside the C Counter, a bystander whose containers must not notice anything."""
    return start_host(*rogue(), "--plugin", lib("CounterPlugin"), "--hook-timeout-ms", TIMEOUT_MS)


def plugin_status(c, name: str) -> dict:
    return next(p for p in c.result("host.info")["plugins"] if p["name"] == name)


# (mode, the -32004's data.reason, words of its message)
VIOLATIONS = [
    ("garbage", "protocol", "over the limit"),
    ("half", "timeout", "ran past its deadline"),
    ("halfexit", "exited", "exited with status 0"),
    ("silent", "timeout", "ran past its deadline"),
    ("exit", "exited", "exited with status 5"),
    ("wrongkind", "protocol", "a frame of kind 0x52 where a reply (ok or failed) was due"),
    ("shortok", "protocol", "an ok reply of 3 bytes"),
    ("badfailed", "protocol", "a failed reply that is not a JSON object with a message"),
    ("huge", "protocol", "over the limit"),
]


@pytest.mark.parametrize("mode, reason, words", VIOLATIONS, ids=[v[0] for v in VIOLATIONS])
def test_a_worker_that_breaks_the_protocol_is_contained_like_a_crash(rogue_host, mode, reason, words):
    c = rogue_host.connect()
    c.result("events.subscribe", {"topics": ["host"]})
    # A bystander: another plugin's container, mid-life.
    bystander = c.result("container.create", {"class": "Counter"})["container"]
    before = c.result("container.configure", {"container": bystander, "data": {}})["output"]["calls"]
    old = plugin_status(c, "rogue")
    victim = c.result("container.create", {"class": "Rogue"})["container"]
    other = c.result("container.create", {"class": "Rogue"})["container"]  # same plugin, lost with the worker
    err = c.call("container.configure", {"container": victim, "data": {"do": mode}}, timeout=10)["error"]
    assert err["code"] == -32004, err
    data = err["data"]
    assert (data["plugin"], data["class"], data["hook"], data["container"], data["reason"]) == (
        "rogue", "Rogue", "configure", victim, reason), err
    assert words in err["message"], err["message"]
    crashed = [e["params"] for e in c.events if e["method"] == "host" and e["params"]["kind"] == "pluginCrashed"]
    assert len(crashed) == 1 and crashed[0]["plugin"] == "rogue" and crashed[0]["reason"] == reason
    # The other container of that worker is gone with it; the class works again in a new worker.
    lost = c.call("container.configure", {"container": other, "data": {}})["error"]
    assert lost["code"] in (-32002, -32004), lost
    fresh = c.result("container.create", {"class": "Rogue"})["container"]
    out = c.result("container.configure", {"container": fresh, "data": {}})["output"]
    assert out["pid"] != old["pid"] and out["pid"] == plugin_status(c, "rogue")["pid"]
    assert plugin_status(c, "rogue")["lastCrash"]["reason"] == reason
    # The bystander saw one more hook (its own configure), nothing else.
    assert c.result("container.configure", {"container": bystander, "data": {}})["output"]["calls"] == before + 1
    assert c.result("host.stats")["unbalancedTransitions"] == 0


@pytest.mark.parametrize("mode", ["extra", "late"])
def test_a_reply_to_a_hook_it_was_not_asked_is_a_violation(rogue_host, mode):
    c = rogue_host.connect()
    c.result("events.subscribe", {"topics": ["host"]})
    victim = c.result("container.create", {"class": "Rogue"})["container"]
    # The configure itself is answered; the reply that follows answers nothing.
    answered = c.result("container.configure", {"container": victim, "data": {"do": mode}})["output"]
    assert answered == ({"first": True} if mode == "extra" else {"late": False})
    if mode == "late":
        time.sleep(0.5)  # the unasked reply is written 0.2 s after the asked one
    err = c.call("container.configure", {"container": victim, "data": {}})["error"]
    assert err["code"] == -32004 and err["data"]["reason"] == "protocol", err
    assert "bytes no request asked for" in err["message"], err["message"]
    fresh = c.result("container.create", {"class": "Rogue"})["container"]
    assert "pid" in c.result("container.configure", {"container": fresh, "data": {}})["output"]


def test_output_over_the_limit_fails_the_hook_and_the_worker_lives(start_host):
    host = start_host(*rogue(), "--plugin-output-limit", "1000")
    c = host.connect()
    pid = plugin_status(c, "rogue")["pid"]
    box = c.result("container.create", {"class": "Rogue"})["container"]
    err = c.call("container.configure", {"container": box, "data": {"do": "oversize"}})["error"]
    assert err["code"] == -32004
    assert err["data"]["reason"] == "outputTooLarge" and err["data"]["limitBytes"] == 1000
    assert err["data"]["outputBytes"] == 1012
    box = c.result("container.create", {"class": "Rogue"})["container"]
    err = c.call("container.configure", {"container": box, "data": {"do": "notjson"}})["error"]
    assert err["data"]["reason"] == "invalidOutput"
    assert plugin_status(c, "rogue")["pid"] == pid and plugin_status(c, "rogue")["crashes"] == 0


def test_a_worker_cannot_speak_for_another_plugin(rogue_host):
    c = rogue_host.connect()
    box = c.result("container.create", {"class": "Rogue"})["container"]
    err = c.call("container.configure", {"container": box, "data": {"do": "forge"}})["error"]
    data = err["data"]
    # The host names the plugin, class, hook and container; the worker's own extra fields pass.
    assert (data["plugin"], data["class"], data["hook"], data["container"], data["reason"]) == (
        "rogue", "Rogue", "configure", box, "failed")
    assert data["extra"] == 1
    assert plugin_status(c, "counter")["crashes"] == 0


def test_a_worker_cannot_reach_another_plugins_containers(rogue_host):
    c = rogue_host.connect()
    c.result("events.subscribe", {"topics": ["host", "lifecycle"]})
    # Instance 1 in the Counter worker is this container; the rogue asks the host to run its configure.
    bystander = c.result("container.create", {"class": "Counter"})["container"]
    box = c.result("container.create", {"class": "Rogue"})["container"]
    err = c.call("container.configure", {"container": box, "data": {"do": "request"}})["error"]
    assert err["data"]["reason"] == "protocol" and "a frame of kind 0x48" in err["message"]
    touched = [e["params"] for e in c.events if e["method"] == "lifecycle" and e["params"]["container"] == bystander]
    assert [e["event"] for e in touched] == ["init"]
    out = c.result("container.configure", {"container": bystander, "data": {}})["output"]
    assert out["calls"] == 2 and out["lastHook"] == "init"
    assert plugin_status(c, "counter")["crashes"] == 0
