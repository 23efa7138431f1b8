"""Plugins in worker processes (the default): with the Crashy example plugin, a hook that aborts, dereferences
NULL, exits, sleeps past the deadline or spins for ever fails only that plugin's containers (-32004 saying
how its worker ended), the host and every other session live on balanced, the worker comes back and the
class works again; past the restart limit the plugin is marked failed until `plugins.restart`; oversized
output is refused, never truncated; workers die with the host. `--plugin-isolation none` still works."""

from __future__ import annotations

import os
import signal
import time

import pytest

from test_plugins import lib

#: Deadline for these hosts: short, so the hanging modes end quickly.
TIMEOUT_MS = "1500"  # a crash must be told from a hang on a loaded machine too


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_for(predicate, timeout: float = 10.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def plugin_status(c, name: str = "crashy") -> dict:
    return next(p for p in c.result("host.info")["plugins"] if p["name"] == name)


def create_when_running(c, data=None) -> str:
    """A new Crashy container, once the worker is back (it may be waiting out its backoff)."""
    params = {"class": "Crashy"} if data is None else {"class": "Crashy", "data": data}

    def attempt():
        reply = c.call("container.create", params)
        if "result" in reply:
            return reply["result"]["container"]
        assert reply["error"]["data"]["reason"] == "restarting", reply
        return None
    return wait_for(attempt, what="the Crashy worker to restart")


def host_events(c, kind: str) -> list[dict]:
    return [e["params"] for e in c.events if e["method"] == "host" and e["params"]["kind"] == kind]


@pytest.fixture
def crash_host(start_host):
    """Crashy and Counter, each in a worker, with a short hook deadline."""
    return start_host("--plugin", lib("CrashyPlugin"), "--plugin", lib("CounterPlugin"),
                      "--hook-timeout-ms", TIMEOUT_MS)


def test_plugins_run_in_workers_of_their_own(crash_host):
    c = crash_host.connect()
    host_pid = c.result("host.info")["pid"]
    crashy, counter = plugin_status(c), plugin_status(c, "counter")
    assert crashy["isolation"] == "process" and crashy["state"] == "running"
    assert crashy["pid"] not in (None, host_pid) and crashy["pid"] != counter["pid"]
    assert alive(crashy["pid"]) and alive(counter["pid"])
    box = c.result("container.create", {"class": "Crashy"})["container"]
    out = c.result("container.configure", {"container": box, "data": {}})["output"]
    assert out["pid"] == crashy["pid"]
    classes = {k["name"]: k for k in c.result("classes.list")["classes"]}
    assert classes["Crashy"]["pluginState"] == "running" and "pluginState" not in classes["Container"]


# (mode, extra data, what the -32004's data says)
MODES = [
    ("abort", {}, {"reason": "crashed", "signal": signal.SIGABRT, "signalName": "SIGABRT"}),
    ("null", {}, {"reason": "crashed", "signal": signal.SIGSEGV, "signalName": "SIGSEGV"}),
    ("exit", {"status": 7}, {"reason": "exited", "exitStatus": 7}),
    ("sleep", {"ms": 10_000}, {"reason": "timeout"}),
    ("spin", {}, {"reason": "timeout"}),
]


@pytest.mark.parametrize("mode, extra, expected", MODES, ids=[m[0] for m in MODES])
@pytest.mark.parametrize("hook", ["configure", "viewWillAppear"])
def test_a_crashing_hook_fails_only_its_plugins_containers(crash_host, mode, extra, expected, hook):
    bystander = crash_host.connect()
    bystander.result("classes.define", {"name": f"Plain{mode}{hook}", "hooks": {}})
    bstack = bystander.result("stack.create", {"width": 320, "height": 480})["stack"]
    shown = bystander.result("showRendered", {"class": "Counter", "stack": bstack, "data": {}})["container"]
    plain = bystander.result("container.create", {"class": f"Plain{mode}{hook}"})["container"]
    bystander.result("stack.push", {"stack": bstack, "container": plain, "animated": False})

    c = crash_host.connect()
    c.result("events.subscribe", {"topics": ["lifecycle", "host"]})
    old_pid = plugin_status(c)["pid"]
    other = c.result("container.create", {"class": "Crashy"})["container"]   # same plugin, no call in flight
    stack = c.result("stack.create", {"width": 375, "height": 667})["stack"]
    under = c.result("showRendered", {"class": "Crashy", "stack": stack, "data": {}})["container"]
    data = dict({"crash": mode}, **extra)
    if hook == "configure":
        victim = c.result("container.create", {"class": "Crashy"})["container"]
        err = c.call("container.configure", {"container": victim, "data": data})["error"]
    else:
        victim = c.result("container.create", {"class": "Crashy", "data": dict(data, on=hook)})["container"]
        err = c.call("stack.push", {"stack": stack, "container": victim, "animated": False})["error"]
    assert err["code"] == -32004, err
    assert err["data"]["kind"] == "pluginFailed" and err["data"]["plugin"] == "crashy"
    assert err["data"]["container"] == victim and err["data"]["hook"] == hook
    for key, value in expected.items():
        assert err["data"][key] == value, err

    # Every container of the plugin went with its worker, torn down with lifecycle events; the stack
    # that held two of them is empty and consistent.
    for gone in (victim, other, under):
        assert c.call("container.info", {"container": gone})["error"]["code"] == -32002
    deinits = {e["params"]["container"] for e in c.events
               if e["method"] == "lifecycle" and e["params"]["event"] == "deinit"}
    assert {victim, other, under} <= deinits
    assert c.result("stack.info", {"stack": stack})["containers"] == []
    crash = host_events(c, "pluginCrashed")
    assert len(crash) == 1 and crash[0]["plugin"] == "crashy" and crash[0]["reason"] == expected["reason"]
    assert crash[0]["willRestart"] is True
    assert not alive(old_pid)

    # The other client, its other plugin and its scripted class are untouched.
    assert bystander.result("container.configure", {"container": shown, "data": {}})["output"]["calls"] >= 2
    assert len(bystander.result("stack.info", {"stack": bstack})["containers"]) == 2
    stats = bystander.result("host.stats")
    assert stats["unbalancedTransitions"] == 0
    assert stats["plugins"]["crashes"] == 1 and stats["plugins"]["timeouts"] == (1 if expected["reason"] == "timeout" else 0)

    # The worker comes back and the class works again.
    fresh = create_when_running(c)
    status = plugin_status(c)
    assert status["state"] == "running" and status["pid"] != old_pid and status["restarts"] == 1
    assert c.result("container.configure", {"container": fresh, "data": {}})["output"]["pid"] == status["pid"]
    assert host_events(c, "pluginRestarted")[0]["plugin"] == "crashy"
    assert c.result("host.stats")["unbalancedTransitions"] == 0


def test_a_failing_hook_is_not_a_crash(crash_host):
    c = crash_host.connect()
    pid = plugin_status(c)["pid"]
    box = c.result("container.create", {"class": "Crashy"})["container"]
    err = c.call("container.configure", {"container": box, "data": {"crash": "fail"}})["error"]
    assert err["code"] == -32004 and err["data"]["reason"] == "failed" and "on request" in err["message"]
    assert plugin_status(c)["pid"] == pid and c.result("host.stats")["plugins"]["crashes"] == 0


@pytest.mark.parametrize("isolation", ["process", "none"])
def test_oversized_output_is_refused_never_truncated(start_host, isolation):
    h = start_host("--plugin-isolation", isolation, "--plugin-output-limit", "4096", "--plugin", lib("CrashyPlugin"))
    c = h.connect()
    box = c.result("container.create", {"class": "Crashy"})["container"]
    err = c.call("container.configure", {"container": box, "data": {"crash": "oversize", "bytes": 5000}})["error"]
    assert err["code"] == -32004 and err["data"]["reason"] == "outputTooLarge", err
    assert err["data"]["outputBytes"] == 5000 and err["data"]["limitBytes"] == 4096
    assert "over the limit" in err["message"]
    # Just under the limit is fine, and the worker never crashed.
    box = c.result("container.create", {"class": "Crashy"})["container"]
    ok = c.result("container.configure", {"container": box, "data": {"crash": "oversize", "bytes": 4096}})
    assert len(ok["output"]) == 4094
    assert c.result("host.stats")["plugins"]["crashes"] == 0


def test_past_the_restart_limit_the_plugin_is_failed_until_plugins_restart(start_host):
    h = start_host("--plugin", lib("CrashyPlugin"), "--plugin-restart-limit", "1")
    c = h.connect()
    c.result("events.subscribe", {"topics": ["host"]})
    for _ in range(2):
        box = create_when_running(c)
        assert c.call("container.configure", {"container": box, "data": {"crash": "abort"}})["error"]["code"] == -32004
    crashes = host_events(c, "pluginCrashed")
    assert [e["willRestart"] for e in crashes] == [True, False]
    assert host_events(c, "pluginFailed")[0]["plugin"] == "crashy"
    status = plugin_status(c)
    assert status["state"] == "failed" and status["pid"] is None and "restart-limit" in status["failedReason"]
    classes = {k["name"]: k for k in c.result("classes.list")["classes"]}
    assert classes["Crashy"]["pluginState"] == "failed"
    err = c.call("container.create", {"class": "Crashy"})["error"]
    assert err["code"] == -32004 and err["data"]["reason"] == "pluginMarkedFailed", err
    assert "plugins.restart" in err["message"]
    assert c.result("host.stats")["plugins"]["failed"] == 1

    restarted = c.result("plugins.restart", {"plugin": "crashy"})
    assert restarted["plugin"] == "crashy" and restarted["state"] == "running" and alive(restarted["pid"])
    box = c.result("container.create", {"class": "Crashy"})["container"]
    assert c.result("container.configure", {"container": box, "data": {}})["output"]["pid"] == restarted["pid"]
    assert host_events(c, "pluginRestarted")[-1]["reason"] == "requested"


def test_plugins_restart_errors(crash_host):
    c = crash_host.connect()
    err = c.call("plugins.restart", {"plugin": "nope"})["error"]
    assert err["code"] == -32602 and err["data"]["path"] == "plugin" and "crashy" in err["data"]["known"]
    assert c.call("plugins.restart", {})["error"]["code"] == -32602
    assert c.call("plugins.restart", {"plugin": 3})["error"]["code"] == -32602
    c.ping()


def test_plugins_restart_of_a_running_plugin_tears_its_containers_down(crash_host):
    c = crash_host.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    box = c.result("container.create", {"class": "Crashy"})["container"]
    pid = plugin_status(c)["pid"]
    new = c.result("plugins.restart", {"plugin": "crashy"})
    assert new["pid"] != pid and not alive(pid)
    assert [f["container"] for f in new["failed"]] == [box], new  # listed in the result, not an error
    assert c.call("container.info", {"container": box})["error"]["code"] == -32002
    assert any(e["params"]["container"] == box and e["params"]["event"] == "deinit" for e in c.events)
    assert c.result("host.stats")["unbalancedTransitions"] == 0


def test_sigkill_of_the_host_leaves_no_worker(crash_host):
    c = crash_host.connect()
    pids = [p["pid"] for p in c.result("host.info")["plugins"]]
    assert all(alive(p) for p in pids)
    crash_host.signal(signal.SIGKILL)
    crash_host.wait(10)
    wait_for(lambda: not any(alive(p) for p in pids), what="the workers to die with their host")


def test_sigterm_stops_workers_after_the_graceful_shutdown(crash_host):
    c = crash_host.connect()
    pids = [p["pid"] for p in c.result("host.info")["plugins"]]
    crash_host.signal(signal.SIGTERM)
    assert crash_host.wait(10) == 0
    wait_for(lambda: not any(alive(p) for p in pids), what="the workers to stop")


def test_isolation_none_loads_in_process_and_warns_about_deadlines(start_host):
    h = start_host("--plugin-isolation", "none", "--hook-timeout-ms", "100", "--plugin", lib("CrashyPlugin"))
    c = h.connect()
    info = c.result("host.info")
    status = plugin_status(c)
    assert status["isolation"] == "none" and status["pid"] is None
    box = c.result("container.create", {"class": "Crashy"})["container"]
    assert c.result("container.configure", {"container": box, "data": {}})["output"]["pid"] == info["pid"]
    err = c.call("plugins.restart", {"plugin": "crashy"})["error"]
    assert err["code"] == -32003 and err["data"]["isolation"] == "none"
    assert "not enforced" in h.stderr_text()


def test_bad_plugins_are_start_up_errors_in_a_worker_too(start_host):
    err = start_host.fail("--plugin", lib("BadABIPlugin"))
    assert err.returncode == 2 and "ABI version mismatch" in err.stderr, err.stderr
