"""greenroom.plugin, the Python plugin kit, spoken to over the worker protocol directly (a socketpair, no host):
the handshake, each request and its reply, batches streamed a reply at a time, async hooks, failures, output
limits, logging in the host's format, and what it does outside a host. The same kit under a real host is
tests/integration/test_plugin_languages.py (and the `greenroom_plugin` marker below)."""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
ROOT = Path(__file__).resolve().parents[3]

HELLO, READY, REFUSED = 0x56, 0x52, 0x45
CREATE, HOOK, BATCH, DESTROY, WAKE, OK, FAILED = 0x43, 0x48, 0x42, 0x44, 0x57, 0x4F, 0x46

PLUGIN = textwrap.dedent('''
    import asyncio
    import logging
    from greenroom.plugin import Container, HookCall, PluginError, serve

    log = logging.getLogger("probe")

    class Probe(Container):
        optional_hooks = frozenset({"viewSafeAreaInsetsDidChange"})

        def configure(self, call: HookCall) -> object:
            data = call.data or {}
            if data.get("fail"):
                raise PluginError("Probe refuses", {"why": "asked"})
            if data.get("boom"):
                raise KeyError("boom")
            if data.get("big"):
                return "x" * 2000
            if data.get("set"):
                return {1, 2}
            log.info("configured %s", self.id)
            return {"id": self.id, "data": self.data, "size": self.size and self.size.to_json()}

        async def viewDidLoad(self) -> dict[str, bool]:
            await asyncio.sleep(0.01)
            return {"loaded": True}

        @property
        def memory_bytes(self) -> int:
            return 1234

    class Other(Container):
        name = "Renamed"

    serve("probe", [Probe, Other], version="2.1")
''')


def frame(kind: int, body: bytes = b"") -> bytes:
    return struct.pack("<IB", len(body) + 1, kind) + body


def hook_frame(handle: int, name: str, given: dict) -> bytes:
    return frame(HOOK, struct.pack("<QH", handle, len(name)) + name.encode() + json.dumps(given).encode())


class Worker:
    """The kit in a process of its own, its socket's other end here."""

    def __init__(self, tmp_path: Path, source: str = PLUGIN) -> None:
        script = tmp_path / "probe.py"
        script.write_text(source)
        self.sock, theirs = socket.socketpair()
        self.sock.settimeout(10)
        env = {**os.environ, "GREENROOM_WORKER_FD": str(theirs.fileno()),
               "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
        self.proc = subprocess.Popen([sys.executable, str(script)], pass_fds=[theirs.fileno()], env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        theirs.close()

    def read(self) -> tuple[int, bytes]:
        def exact(n: int) -> bytes:
            out = b""
            while len(out) < n:
                chunk = self.sock.recv(n - len(out))
                assert chunk, "the worker closed its socket"
                out += chunk
            return out
        length, kind = struct.unpack("<IB", exact(5))
        return kind, exact(length - 1)

    def hello(self, protocols: list[int] | None = None, limit: int = 1000) -> tuple[int, dict | str]:
        self.sock.sendall(frame(HELLO, json.dumps({"protocols": protocols or [1], "maxOutputBytes": limit,
                                                   "maxDepth": 64, "hookTimeoutMs": 2000}).encode()))
        kind, body = self.read()
        return kind, (json.loads(body) if kind == READY else body.decode())

    def ask(self, request: bytes) -> tuple[int, bytes]:
        self.sock.sendall(request)
        return self.read()

    def close(self) -> tuple[int, str]:
        self.sock.close()
        _, err = self.proc.communicate(timeout=10)
        return self.proc.returncode, err.decode()


@pytest.fixture
def worker(tmp_path):
    w = Worker(tmp_path)
    yield w
    if w.proc.poll() is None:
        w.proc.kill()
        w.proc.wait()


def ok_value(kind: int, body: bytes) -> tuple[int, int, object]:
    assert kind == OK, body
    value, memory = struct.unpack_from("<QQ", body)
    return value, memory, json.loads(body[16:]) if len(body) > 16 else None


def test_the_handshake_declares_the_classes(worker):
    kind, ready = worker.hello()
    assert kind == READY
    assert ready == {"protocol": 1, "plugin": "probe", "version": "2.1", "classes": ["Probe", "Renamed"],
                     "optionalHooks": {"Probe": ["viewSafeAreaInsetsDidChange"]}, "batches": True}
    assert worker.close()[0] == 0  # the host's end closing ends the worker


def test_a_version_the_kit_does_not_speak_is_refused(worker):
    kind, said = worker.hello(protocols=[2, 3])
    assert kind == REFUSED and "speaks worker protocol version 1; the host offers [2, 3]" in str(said)
    assert worker.close()[0] == 2


def test_requests_and_their_replies(worker):
    worker.hello()
    handle, memory, _ = ok_value(*worker.ask(frame(CREATE, struct.pack("<I", 0) + b"c-7")))
    assert handle == 1 and memory == 1234
    assert ok_value(*worker.ask(hook_frame(handle, "init", {"data": {"a": 1}})))[2] is None
    assert ok_value(*worker.ask(hook_frame(handle, "viewDidLoad", {})))[2] == {"loaded": True}  # async
    worker.ask(hook_frame(handle, "viewWillLayoutSubviews", {"size": {"width": 375.0, "height": 667.0}}))
    out = ok_value(*worker.ask(hook_frame(handle, "configure", {"data": None})))[2]
    assert out == {"id": "c-7", "data": {"a": 1}, "size": {"width": 375.0, "height": 667.0}}
    assert ok_value(*worker.ask(hook_frame(handle, "didReceiveMemoryWarning", {"level": "critical"})))[2] is None
    other = ok_value(*worker.ask(frame(CREATE, struct.pack("<I", 1) + b"c-8")))[0]
    assert other == 2
    assert ok_value(*worker.ask(frame(DESTROY, struct.pack("<Q", other))))[:2] == (0, 0)
    code, err = worker.close()
    assert code == 0 and "greenroom: plugin probe: info: configured c-7" in err


def test_failures_and_limits(worker):
    worker.hello(limit=1000)
    handle = ok_value(*worker.ask(frame(CREATE, struct.pack("<I", 0) + b"c-1")))[0]
    kind, body = worker.ask(hook_frame(handle, "configure", {"data": {"fail": True}}))
    assert kind == FAILED and json.loads(body) == {"message": "Probe refuses", "data": {"why": "asked"}}
    kind, body = worker.ask(hook_frame(handle, "configure", {"data": {"boom": True}}))
    assert kind == FAILED and json.loads(body)["message"] == "Probe.configure raised KeyError: 'boom'"
    kind, body = worker.ask(hook_frame(handle, "configure", {"data": {"big": True}}))
    failed = json.loads(body)
    assert kind == FAILED and failed["data"] == {"reason": "outputTooLarge", "outputBytes": 2002, "limitBytes": 1000}
    kind, body = worker.ask(hook_frame(handle, "configure", {"data": {"set": True}}))
    assert kind == FAILED and json.loads(body)["data"] == {"reason": "invalidOutput"}
    code, err = worker.close()
    assert code == 0 and "greenroom: plugin probe: error: Probe.configure raised" in err and "KeyError" in err


def test_a_batch_is_answered_a_reply_at_a_time_up_to_the_first_failure(worker):
    worker.hello()
    handle = ok_value(*worker.ask(frame(CREATE, struct.pack("<I", 0) + b"c-1")))[0]
    hooks = [hook_frame(handle, "viewDidLoad", {}), hook_frame(handle, "configure", {"data": {"fail": True}}),
             hook_frame(handle, "viewWillAppear", {"animated": False})]
    worker.sock.sendall(frame(WAKE) + frame(BATCH, struct.pack("<I", len(hooks)) + b"".join(hooks)))
    assert ok_value(*worker.read())[2] == {"loaded": True}
    assert worker.read()[0] == FAILED
    # The third hook did not run: the next reply answers the next request.
    assert ok_value(*worker.ask(hook_frame(handle, "configure", {"data": {}})))[2]["id"] == "c-1"


def test_a_request_for_an_instance_it_does_not_have_ends_the_worker(worker):
    worker.hello()
    worker.sock.sendall(hook_frame(42, "configure", {}))
    code, err = worker.close()
    assert code == 3 and "the host broke the worker protocol: a hook for instance 42" in err


def test_outside_a_host_it_says_how_to_run_it(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text(PLUGIN)
    env = {k: v for k, v in os.environ.items() if k != "GREENROOM_WORKER_FD"}
    env["PYTHONPATH"] = str(SRC)
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "is a Greenroom plugin: the host runs it" in done.stderr
    assert f"greenroom serve --plugin-command \"{sys.executable} {script}\"" in done.stderr


def test_classes_are_checked_when_declared():
    from greenroom.plugin import Container, serve

    class Bad(Container):
        optional_hooks = frozenset({"viewDidWiggle"})

    with pytest.raises(ValueError, match="not optional hooks"):
        serve("bad", [Bad])
    with pytest.raises(ValueError, match="distinct names"):
        serve("bad", [])


def test_command_quotes_for_the_host():
    from greenroom.plugin import command

    assert command("/x/my plugin.py", python="/usr/bin/python3") == "/usr/bin/python3 '/x/my plugin.py'"
    assert command("a/b.mjs") == "node a/b.mjs"


@pytest.mark.integration
@pytest.mark.greenroom_plugin(str(ROOT / "examples" / "plugins" / "python" / "article.py"))
def test_the_marker_runs_a_plugin_under_a_real_host(greenroom_client):
    shown = greenroom_client.call("showRendered", {"class": "ArticlePy", "data": {"title": "Hello"}})
    assert shown["output"]["title"] == "Hello" and shown["output"]["bytes"] == 1838
    plugins = greenroom_client.call("host.info")["plugins"]
    assert [(p["name"], p["kind"], p["state"]) for p in plugins] == [("article-py", "command", "running")]
