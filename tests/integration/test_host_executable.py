"""`greenroom serve` runs the host in `greenroom-host` beside it (the same pid, output and signals), so
that the host's process does not map the argument parser's Foundation library; without one it serves in
its own process. `greenroom-host` is not run by hand."""

from __future__ import annotations

import os
import shutil
import subprocess

import grhost


def mapped_libraries(pid: int) -> set[str]:
    with open(f"/proc/{pid}/maps") as f:
        return {line.split()[-1].rsplit("/", 1)[-1] for line in f if "/" in line}


def test_serve_becomes_greenroom_host(start_host):
    host = start_host()
    pid = host.process.pid
    assert os.path.basename(os.readlink(f"/proc/{pid}/exe")) == "greenroom-host"
    libraries = mapped_libraries(pid)
    assert not any("Foundation" in name for name in libraries), sorted(libraries)
    assert host.call("host.ping")["result"] == {"pong": True}


def test_plugin_workers_are_still_greenroom(start_host):
    plugin = os.path.join(os.path.dirname(os.path.abspath(start_host.bin)), "libCounterPlugin.so")
    host = start_host("--plugin", plugin)
    children = subprocess.run(["pgrep", "-P", str(host.process.pid)], capture_output=True, text=True).stdout.split()
    assert children, "no worker process"
    for child in children:
        assert os.path.basename(os.readlink(f"/proc/{child}/exe")) == "greenroom"
    classes = host.call("classes.list")["result"]
    assert any(c.get("plugin") for c in classes["classes"]), classes


def test_without_greenroom_host_serve_runs_in_its_own_process(start_host):
    folder = start_host.factory.tmpdir()
    alone = os.path.join(folder, "greenroom")
    shutil.copy2(os.path.realpath(start_host.bin), alone)
    factory = grhost.HostFactory(alone)
    try:
        host = factory.start()
        assert os.path.basename(os.readlink(f"/proc/{host.process.pid}/exe")) == "greenroom"
        assert host.call("host.ping")["result"] == {"pong": True}
        assert "warning" not in host.stderr_text()
    finally:
        factory.teardown()


def test_greenroom_host_is_not_run_by_hand(start_host):
    host_bin = os.path.join(os.path.dirname(os.path.realpath(start_host.bin)), "greenroom-host")
    for args, said in [
        ([], "started by `greenroom serve`"),
        (["--options"], "started by `greenroom serve`"),
        (["--options", "{"], "greenroom-host: options:"),
        (["--options", '{"socket":null}'], "greenroom-host: options: listen is missing or has the wrong type"),
    ]:
        done = subprocess.run([host_bin, *args], capture_output=True, text=True, timeout=30)
        assert done.returncode == 2, (args, done)
        assert said in done.stderr, (args, done.stderr)
        assert done.stdout == ""


def test_a_refusal_in_greenroom_host_reads_as_before(start_host, tmp_short):
    not_a_dir = os.path.join(tmp_short, "file")
    open(not_a_dir, "w").close()
    e = start_host.fail("--record", not_a_dir)
    assert e.returncode == 2, e
    assert f"greenroom: --record {not_a_dir} is not a directory" in e.stderr, e.stderr
