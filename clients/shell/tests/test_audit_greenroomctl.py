"""Audit: greenroomctl against what README.md and clients/shell/README.md promise.

Real-host tests start `greenroom serve --socket PATH --clock virtual`
($GREENROOM_BIN, else <repo>/.build/debug/greenroom; a missing binary fails,
never skips). The fake host of ctlharness.py plays the hosts a real one will not
be on demand (silent, slow). The README examples run as written.
Runs the script under dash when installed (its target shell), else sh; tests
of output run with jq and with GREENROOM_NO_JQ=1.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from ctlharness import (
    HAVE_JQ,
    JQ_MODES,
    REPO,
    SCRIPT,
    SHELL,
    RealHost,
    clean_env,
    greenroom_bin,
    read_line,
    run,
    wait_for,
)

SHELL_DIR = SCRIPT.parent
needs_jq = pytest.mark.skipif(not HAVE_JQ, reason="the README example pipes into jq")


def env_for(**extra: str) -> dict[str, str]:
    """A clean environment with greenroomctl on PATH (README snippets call it by name)."""
    return clean_env(PATH=f"{SHELL_DIR}:{os.environ.get('PATH', '/usr/bin:/bin')}", **extra)


def ctl(*args: str, sock: str | None = None, jq: bool = True, input: str = "", env=None, timeout: float = 30):
    env = env_for() if env is None else env
    if sock is not None:
        env = dict(env, GREENROOM_SOCKET=sock)
    return run(*args, env=env, input=input, jq=jq, timeout=timeout)


def sh(script: str, sock: str, cwd: str, timeout: float = 60):
    """Run a README snippet with /bin/sh, greenroomctl on PATH and GREENROOM_SOCKET set."""
    return subprocess.run(
        ["/bin/sh", "-c", script], env=env_for(GREENROOM_SOCKET=sock), cwd=cwd,
        capture_output=True, text=True, timeout=timeout,
    )


def sh_blocks(path: Path) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", path.read_text(), flags=re.S)


def block_with(path: Path, needle: str) -> str:
    [block] = [b for b in sh_blocks(path) if needle in b]
    return block


def backgrounded(line: str) -> bool:
    return line.split("#")[0].rstrip().endswith("&")


def one_json_line(text: str):
    """The output is exactly one line (by any splitting rule) holding one JSON text."""
    assert text.endswith("\n") and text.count("\n") == 1, repr(text)
    assert len(text.splitlines()) == 1, "a line separator inside the output"
    return json.loads(text)


# --------------------------------------------------------------------------
# hosts


@pytest.fixture
def host(real_host):
    return real_host


@pytest.fixture
def workdir():
    path = tempfile.mkdtemp(prefix="grw-", dir="/tmp")
    yield path
    shutil.rmtree(path, ignore_errors=True)


def silent(message, conn) -> None:
    """Answers events.subscribe, nothing else."""
    if message.get("method") == "events.subscribe":
        conn.sock.sendall(b'{"jsonrpc":"2.0","id":1,"result":{}}\n')


# --------------------------------------------------------------------------
# the README examples, as written


@needs_jq
def test_main_readme_shell_tour(host, workdir):
    tour = block_with(REPO / "README.md", "greenroomctl ping")
    lines = [line for line in tour.splitlines() if not backgrounded(line)]
    # the backgrounded `events` line is checked in test_main_readme_events_line
    script = f'cd "{REPO}"\n' + "\n".join(lines)
    r = sh(script, host.path, workdir)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert '{"pong":true}\n' in out
    assert '{"now":300.0,"ms":300.0,"fired":0}\n' in out  # as the comment says, byte for byte
    assert '"maxBatch": 256' in out  # jq .limits
    warning = json.loads(out.strip().splitlines()[-1])
    assert warning["level"] == "critical" and "purged" in warning


def test_main_readme_events_line_streams_ndjson(host, workdir):
    tour = block_with(REPO / "README.md", "greenroomctl ping")
    [line] = [line for line in tour.splitlines() if backgrounded(line)]
    command = line.split("&")[0].strip()  # greenroomctl events --scope all host
    assert command.split()[:2] == ["greenroomctl", "events"]
    ready = os.path.join(workdir, "ready")
    args = command.split()[1:]
    proc = subprocess.Popen(
        [SHELL, str(SCRIPT), args[0], "--ready-file", ready, *args[1:]],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env_for(GREENROOM_SOCKET=host.path),
    )
    try:
        wait_for(lambda: os.path.exists(ready) or proc.poll() is not None, 30, "the subscription")
        assert ctl("call", "host.memoryWarning", '{"level":"critical"}', sock=host.path).returncode == 0
        events = []
        while not any(e["params"].get("kind") == "memoryWarning" for e in events):
            events.append(json.loads(read_line(proc, 20)))
        for event in events:
            assert event["jsonrpc"] == "2.0" and event["method"] == "host" and "id" not in event
        assert [e["params"]["seq"] for e in events] == list(range(1, len(events) + 1))
        assert events[-1]["params"]["level"] == "critical"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=15)
    assert proc.returncode == 130


@needs_jq
def test_shell_readme_calls_run_as_written(host, workdir):
    block = block_with(SHELL_DIR / "README.md", "greenroomctl call host.info | jq -r .version")
    r = sh(block, host.path, workdir)
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[0] == "0.1.0"
    assert json.loads(out[1])["name"] == "Card"
    assert json.loads(out[2])["depth"] == 2
    assert re.fullmatch(r"c-\d+", out[3])
    assert json.loads(out[4])["class"] == "Card"
    assert json.loads(out[5])["ms"] == 250.0
    assert len(out) == 6


@needs_jq
def test_shell_readme_error_example_prints_the_error(host, workdir):
    block = block_with(SHELL_DIR / "README.md", "call stack.pop '")
    r = sh(block, host.path, workdir)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("-32002 unknownObject: "), r.stdout


@needs_jq
def test_shell_readme_navigation_example(host, workdir):
    """The README's interactive pop from a script: a cancelled gesture in UIKit's order, then a pop to the
    root that ends on the virtual clock."""
    block = block_with(SHELL_DIR / "README.md", "stack.beginInteractivePop")
    r = sh(block, host.path, workdir)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    begin = lines.index("c-2 willMoveToParent", lines.index("c-2 didMoveToParent"))
    assert lines[begin:] == [
        # the one below never appeared: it loads first, before the top is told it will disappear
        "c-2 willMoveToParent", "c-1 loadView", "c-1 viewDidLoad", "c-2 viewWillDisappear",
        "c-1 viewWillAppear", "c-1 viewIsAppearing", "c-1 viewWillLayoutSubviews", "c-1 viewDidLayoutSubviews",
        "c-1 viewWillDisappear", "c-1 viewDidDisappear", "c-2 viewWillAppear", "c-2 viewIsAppearing", "c-2 viewDidAppear",
        "c-2 didMoveToParent", "c-2 willMoveToParent", "c-2 viewWillDisappear", "c-1 viewWillAppear", "c-1 viewIsAppearing",
        "c-2 viewDidDisappear", "c-1 viewDidAppear", "c-2 didMoveToParent",
    ], lines


@needs_jq
def test_shell_readme_held_reply_example(host, workdir):
    """The README's reply held for the appearance: printed when the push's animation ends."""
    block = block_with(SHELL_DIR / "README.md", '"reply":"afterAppear"')
    r = sh(block, host.path, workdir)
    assert r.returncode == 0, r.stderr
    [line] = r.stdout.splitlines()
    result = json.loads(line)
    assert result["transitionMs"] == 300 and result["container"] == "c-1", result


def test_shell_readme_ready_file_example(host, workdir):
    block = block_with(SHELL_DIR / "README.md", "--ready-file")
    waiting = block[block.index("# wait until"):]
    assert ctl("call", "classes.define", '{"name":"Card"}', sock=host.path).returncode == 0
    r = sh(waiting, host.path, workdir)
    assert r.returncode == 0, r.stderr
    events = [json.loads(line) for line in Path(workdir, "ev.ndjson").read_text().splitlines()]
    assert [e["method"] for e in events] == ["lifecycle", "lifecycle"]
    assert [e["params"]["event"] for e in events] == ["init", "deinit"]  # the container dies with its command
    assert [e["params"]["seq"] for e in events] == [1, 2]


@needs_jq
def test_shell_readme_batch_example(host, workdir):
    block = block_with(SHELL_DIR / "README.md", "greenroomctl batch |")
    r = sh(block, host.path, workdir)
    assert r.returncode == 0, r.stderr
    replies = [json.loads(line) for line in r.stdout.splitlines()]
    assert replies == [
        {"id": 1, "result": {"pong": True}, "error": None},
        {"id": 2, "result": {"now": 16, "ms": 16, "fired": 0}, "error": None},
    ]


@needs_jq
def test_shell_readme_session_example(host, workdir):
    block = block_with(SHELL_DIR / "README.md", "greenroomctl session <<")
    r = sh(block, host.path, workdir)
    assert r.returncode == 0, r.stderr  # jq's status: the pipeline ends with jq
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert lines[0] == {"id": 1, "result": {"topics": ["lifecycle"], "scope": "own"}, "error": None}
    assert lines[1]["id"] == 2 and lines[1]["result"]["name"] == "Card"
    assert lines[2] == "init"  # an event, told apart from the replies
    assert lines[3]["id"] == 3 and lines[3]["result"]["class"] == "Card"
    assert lines[4]["id"] == 4 and lines[4]["error"]["code"] == -32601
    assert len(lines) == 5


@needs_jq
def test_shell_readme_bash_coprocess_example(host, workdir):
    bash = shutil.which("bash")
    assert bash, "bash is needed for the README's coproc example"
    [block] = re.findall(r"```bash\n(.*?)```", (SHELL_DIR / "README.md").read_text(), flags=re.S)
    assert "coproc GR { greenroomctl session; }" in block
    r = subprocess.run(
        [bash, "-c", block], env=env_for(GREENROOM_SOCKET=host.path), cwd=workdir,
        capture_output=True, text=True, timeout=60,
    )
    assert r.returncode == 0, r.stderr
    container = json.loads(r.stdout)
    assert container["state"] == "fresh" and re.fullmatch(r"c-\d+", container["container"])
    events = [json.loads(line) for line in r.stderr.splitlines()]
    assert [e["params"]["event"] for e in events] == ["init"]  # the events went to stderr
    assert events[0]["params"]["container"] == container["container"]


# --------------------------------------------------------------------------
# output: one JSON text per line, as the host wrote it


@pytest.mark.parametrize("jq", JQ_MODES)
def test_results_are_the_hosts_bytes(host, jq):
    big = 9007199254740993  # 2^53 + 1: a double cannot hold it
    hooks = {"configure": {"output": {"n": big, "s": "a\u2028b\u2029c", "f": 1.0}}}
    r = ctl("call", "classes.define", json.dumps({"name": "Echo", "hooks": hooks}), sock=host.path, jq=jq)
    assert r.returncode == 0, r.stderr
    r = ctl("call", "showRendered", '{"class":"Echo","data":{}}', sock=host.path, jq=jq)
    assert r.returncode == 0, r.stderr
    result = one_json_line(r.stdout)
    assert result["output"] == {"n": big, "s": "a\u2028b\u2029c", "f": 1.0}  # PARAMS went out unrounded too
    assert "\\u2028" in r.stdout and "\u2028" not in r.stdout  # still escaped, as the host wrote it
    assert '"f":1.0' in r.stdout.replace(" ", "")
    r = ctl("call", "clock.advance", '{"ms":300}', sock=host.path, jq=jq)
    assert r.stdout == '{"now":300.0,"ms":300.0,"fired":0}\n'


@pytest.mark.parametrize("jq", JQ_MODES)
def test_errors_go_to_stderr_as_one_line_with_exit_2(host, jq):
    for args, code, kind in [
        (("call", "no.such"), -32601, "methodNotFound"),
        (("call", "clock.advance", '{"ms":-1}'), -32602, "invalidParams"),
        (("call", "container.info", '{"container":"c-404"}'), -32002, "unknownObject"),
        (("call", "clock.advance", '{"ms":123456789012345678901234567890}'), -32700, "numberOutOfRange"),
        (("events", "nosuchtopic"), -32602, "invalidParams"),
    ]:
        r = ctl(*args, sock=host.path, jq=jq)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert r.stdout == ""
        error = one_json_line(r.stderr)
        assert error["code"] == code and error["data"]["kind"] == kind and error["message"]


@pytest.mark.parametrize("jq", JQ_MODES)
def test_arguments_with_spaces_quotes_and_specials(host, jq):
    name = "My 'Card' \"x\" $HOME %s \\n café ✓"
    r = ctl("call", "classes.define", json.dumps({"name": name}, ensure_ascii=False), sock=host.path, jq=jq)
    assert r.returncode == 0, r.stderr
    assert one_json_line(r.stdout)["name"] == name
    method = 'no such "method" $x'
    r = ctl("call", method, sock=host.path, jq=jq)
    assert r.returncode == 2
    assert json.loads(r.stderr)["data"]["method"] == method
    # PARAMS from stdin, over several lines, CRLF included
    r = ctl("call", "clock.advance", "-", input='{\r\n  "ms":\r\n   7\r\n}\r\n', sock=host.path, jq=jq)
    assert r.returncode == 0, r.stderr
    assert one_json_line(r.stdout)["ms"] == 7.0
    # by position: an array is sent as is
    r = ctl("call", "host.ping", "[]", sock=host.path, jq=jq)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("jq", JQ_MODES)
def test_events_are_ndjson_in_seq_order(host, workdir, jq):
    ready = os.path.join(workdir, "ready")
    env = env_for(GREENROOM_SOCKET=host.path, **({} if jq else {"GREENROOM_NO_JQ": "1"}))
    proc = subprocess.Popen(
        [SHELL, str(SCRIPT), "events", "--scope", "all", "--ready-file", ready, "--count", "9", "lifecycle", "page"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    try:
        wait_for(lambda: os.path.exists(ready) or proc.poll() is not None, 30, "the subscription")
        page = '{"class":"Container","count":3,"width":100,"height":100}'
        assert ctl("call", "page.create", page, sock=host.path, jq=jq).returncode == 0
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    lines = out.splitlines()
    assert len(lines) == 9
    events = [json.loads(line) for line in lines]
    assert all(set(e) == {"jsonrpc", "method", "params"} for e in events)  # no subscribe reply
    assert [e["params"]["seq"] for e in events] == list(range(1, 10))
    assert all(isinstance(e["params"]["t"], float) for e in events)
    assert events[0]["params"]["event"] == "init"


def test_events_end_when_the_host_goes_away(workdir):
    made = RealHost(greenroom_bin())
    forever = counted = None
    try:
        ready = [os.path.join(workdir, f"ready{i}") for i in (1, 2)]
        forever = subprocess.Popen(
            [SHELL, str(SCRIPT), "events", "--ready-file", ready[0], "host"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env_for(GREENROOM_SOCKET=made.path),
        )
        counted = subprocess.Popen(
            [SHELL, str(SCRIPT), "events", "--ready-file", ready[1], "--count", "50", "host"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env_for(GREENROOM_SOCKET=made.path),
        )
        wait_for(lambda: all(os.path.exists(r) for r in ready), 30, "the subscriptions")
        assert ctl("call", "host.shutdown", sock=made.path).returncode == 0
        forever.communicate(timeout=30)
        _, err = counted.communicate(timeout=30)
        assert forever.returncode == 0  # the stream ended: not an error
        assert counted.returncode == 1 and "before 50 events" in err
    finally:
        for proc in (forever, counted):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
        made.stop()


# --------------------------------------------------------------------------
# exit status, timeouts, signals


def test_usage_errors_exit_64(host):
    for args in [
        ("--bogus", "ping"),
        (),
        ("frobnicate",),
        ("call",),
        ("call", "clock.advance", "5"),
        ("call", "clock.advance", '"text"'),
        ("call", "clock.advance", "{} {}"),
        ("call", "a", "{}", "extra"),
        ("--timeout", "soon", "ping"),
        ("events",),
        ("events", "--count", "x", "host"),
        ("ping", "extra"),
        ("--socket", "tcp:127.0.0.1:1", "ping"),
    ]:
        r = ctl(*args, sock=host.path)
        assert r.returncode == 64, (args, r.stderr)
        assert r.stdout == ""
    r = ctl("batch", sock=host.path, input='{"method":"host.ping"}\nnot json\n')
    assert r.returncode == 64


def test_help_and_version():
    for args in (("--help",), ("-h",), ("help",)):
        r = ctl(*args)
        assert r.returncode == 0 and "Usage: greenroomctl" in r.stdout
    r = ctl("-V")
    assert r.returncode == 0 and re.fullmatch(r"greenroomctl \d+\.\d+\.\d+\n", r.stdout)


def test_transport_failures_exit_1(workdir):
    missing = os.path.join(workdir, "none.sock")
    for args in (("ping",), ("call", "host.ping"), ("events", "host")):
        r = ctl(*args, sock=missing)
        assert r.returncode == 1 and r.stdout == "" and missing in r.stderr
    r = ctl("batch", sock=missing, input='{"method":"host.ping"}\n')
    assert r.returncode == 1
    not_socket = os.path.join(workdir, "plain")
    Path(not_socket).write_text("")
    assert ctl("ping", sock=not_socket).returncode == 1


def test_timeout_from_the_environment_and_the_option(fake):
    host = fake(silent)
    started = time.monotonic()
    r = ctl("call", "host.ping", env=env_for(GREENROOM_SOCKET=host.path, GREENROOM_TIMEOUT="1"))
    assert r.returncode == 1 and "timed out" in r.stderr
    assert time.monotonic() - started < 10
    started = time.monotonic()
    r = ctl("--timeout", "1", "call", "host.ping", env=env_for(GREENROOM_SOCKET=host.path, GREENROOM_TIMEOUT="600"))
    assert r.returncode == 1 and "timed out" in r.stderr
    assert time.monotonic() - started < 10
    r = ctl("-t", "1", "batch", input='{"method":"host.ping"}\n', sock=host.path)
    assert r.returncode == 1


def test_events_never_time_out(fake):
    def late_event(message, conn):
        conn.sock.sendall(b'{"jsonrpc":"2.0","id":1,"result":{}}\n')
        time.sleep(2.5)
        conn.sock.sendall(b'{"jsonrpc":"2.0","method":"host","params":{"seq":1,"t":0.0,"kind":"late"}}\n')

    host = fake(late_event)
    r = ctl("--timeout", "1", "events", "--count", "1", "host", env=env_for(GREENROOM_SOCKET=host.path, GREENROOM_TIMEOUT="1"))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["params"]["kind"] == "late"


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_call_interrupted_exits_128_plus_signal_and_closes(fake, sig, code):
    host = fake(lambda message, conn: None)  # never answers
    proc = subprocess.Popen(
        [SHELL, str(SCRIPT), "--timeout", "0", "call", "host.ping"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env_for(GREENROOM_SOCKET=host.path),
    )
    try:
        wait_for(lambda: host.received, 15, "the request")
        proc.send_signal(sig)
        out, _ = proc.communicate(timeout=15)
        assert proc.returncode == code and out == ""
        assert host.wait_closed(5), "the connection was left open"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_full_host_answers_limit_exceeded_exit_2():
    made = RealHost(greenroom_bin(), "--max-connections", "1")
    holder = socket.socket(socket.AF_UNIX)
    try:
        holder.connect(made.path)
        holder.sendall(b'{"jsonrpc":"2.0","id":1,"method":"host.ping"}\n')
        holder.recv(4096)  # the one connection is in use
        r = ctl("ping", sock=made.path)
        assert r.returncode == 2, (r.stdout, r.stderr)
        error = one_json_line(r.stderr)
        assert error["code"] == -32005 and error["data"]["kind"] == "limitExceeded"
    finally:
        holder.close()
        made.stop()


# --------------------------------------------------------------------------
# where it connects


def test_socket_resolution_with_a_real_host(host, workdir):
    runtime = os.path.join(workdir, "run")
    os.makedirs(os.path.join(runtime, "greenroom"))
    os.symlink(host.path, os.path.join(runtime, "greenroom", "host.sock"))
    env = env_for(XDG_RUNTIME_DIR=runtime)
    assert ctl("ping", env=env).stdout == '{"pong":true}\n'
    env = env_for(XDG_RUNTIME_DIR="/nonexistent", GREENROOM_SOCKET=f"unix:{host.path}")
    assert ctl("ping", env=env).stdout == '{"pong":true}\n'
    env = env_for(GREENROOM_SOCKET="/nonexistent/h.sock")
    assert ctl("--socket", host.path, "ping", env=env).returncode == 0
    assert ctl("-s", f"unix:{host.path}", "ping", env=env).returncode == 0
    env = env_for()
    env.pop("XDG_RUNTIME_DIR", None)
    default = f"/tmp/greenroom-{os.getuid()}/host.sock"
    if not os.path.exists(default):
        r = ctl("ping", env=env)
        assert r.returncode == 1 and default in r.stderr
