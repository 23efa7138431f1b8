"""examples/shell/swipe.sh run as a user runs it, against a real virtual-clock host.

The script keeps one `greenroomctl session` as a coprocess, subscribes to its own lifecycle and page events,
creates a page session on page 1 and swipes to page 2 through the scroll stream; it prints the appearance
hooks of the swipe in the GYPageViewController article's words. Run under dash when installed (the shell
greenroomctl targets), else sh.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from grhost import REPO

SCRIPT = REPO / "examples" / "shell" / "swipe.sh"
GREENROOMCTL = REPO / "clients" / "shell" / "greenroomctl"
SHELL = shutil.which("dash") or "/bin/sh"
HAVE_JQ = shutil.which("jq") is not None

# The GYPageViewController article: a swipe to the adjacent page (交互切换), here from page 1 to page 2.
SWIPE_1_TO_2 = ["willAppear 2", "willDisappear 1", "didAppear 2", "didDisappear 1"]

JQ_MODES = [
    pytest.param(False, id="awk"),
    pytest.param(True, id="jq", marks=pytest.mark.skipif(not HAVE_JQ, reason="jq not installed")),
]


def run_swipe(*args: str, socket_env: str | None = None, jq: bool = True, extra_env: dict | None = None,
              timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GREENROOM_SOCKET", "GREENROOM_NO_JQ", "GREENROOMCTL")}
    if socket_env is not None:
        env["GREENROOM_SOCKET"] = socket_env
    if not jq:
        env["GREENROOM_NO_JQ"] = "1"
    env.update(extra_env or {})
    return subprocess.run([SHELL, str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=timeout,
                          cwd=str(REPO), stdin=subprocess.DEVNULL)


def check_host_clean(host) -> None:
    """The script's connections are closed: its session was torn down, balanced."""
    stats = host.wait_stats(lambda s: s["containers"]["total"] == 0 and s["sessions"]["page"] == 0)
    assert stats["unbalancedTransitions"] == 0, stats


def ok(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return done.stdout.splitlines()


@pytest.mark.parametrize("jq", JQ_MODES)
def test_swipe_prints_the_interactive_order(start_host, jq):
    host = start_host("--clock", "virtual")
    done = run_swipe("--socket", host.socket_path, jq=jq)
    assert ok(done) == SWIPE_1_TO_2, done.stderr
    check_host_clean(host)


def test_swipe_takes_the_socket_from_the_environment(start_host):
    host = start_host("--clock", "virtual")
    done = run_swipe(socket_env=host.socket_path)
    assert ok(done) == SWIPE_1_TO_2, done.stderr
    # The "unix:" form of the ready line works too.
    assert ok(run_swipe("--socket", f"unix:{host.socket_path}")) == SWIPE_1_TO_2
    check_host_clean(host)


def test_swipe_on_a_busy_host_reports_only_its_own_session(start_host):
    """Another client's session, mid-animation, is on the same host and took the first session id: the
    script reads its own session's id from the reply and sees only its own objects' events."""
    host = start_host("--clock", "virtual")
    other = host.connect()
    created = other.result("page.create", {"class": "Container", "count": 3, "width": 375, "height": 667})
    other.result("page.show", {"session": created["session"], "index": 2, "animated": True})  # mid-animation
    done = run_swipe("--socket", host.socket_path)
    assert ok(done) == SWIPE_1_TO_2, done.stderr
    other.result("clock.advance", {"ms": 300})
    assert other.result("page.info", {"session": created["session"]})["index"] == 2  # untouched by the script
    other.close()
    check_host_clean(host)


def test_swipe_is_one_connection(start_host):
    """One `greenroomctl session` does it all: no second monitor process, no probe connection."""
    host = start_host("--clock", "virtual")
    monitor = host.connect()
    assert monitor.call("events.subscribe", {"topics": ["host"], "scope": "all"})["result"]
    done = run_swipe("--socket", host.socket_path)
    assert ok(done) == SWIPE_1_TO_2, done.stderr
    monitor.ping()  # the script's connection opened long before this reply
    kinds = [e["params"]["kind"] for e in monitor.events if e["method"] == "host"]
    assert kinds.count("connectionOpened") == 1, kinds
    monitor.close()
    check_host_clean(host)


def test_swipe_takes_the_default_socket_as_greenroomctl_does(start_host, tmp_short):
    """No --socket, no GREENROOM_SOCKET: $XDG_RUNTIME_DIR/greenroom/host.sock, where the host listens."""
    env = {k: v for k, v in os.environ.items() if k != "GREENROOM_SOCKET"}
    env["XDG_RUNTIME_DIR"] = tmp_short
    host = start_host("--clock", "virtual", env=env, auto_socket=False)
    assert host.socket_path == os.path.join(tmp_short, "greenroom", "host.sock")
    done = run_swipe(extra_env={"XDG_RUNTIME_DIR": tmp_short})
    assert ok(done) == SWIPE_1_TO_2, done.stderr
    check_host_clean(host)


def test_swipe_without_a_host_at_the_default_socket_names_it(tmp_short):
    done = run_swipe(extra_env={"XDG_RUNTIME_DIR": tmp_short})
    assert done.returncode == 1, done
    assert done.stdout == ""
    assert os.path.join(tmp_short, "greenroom", "host.sock") in done.stderr, done.stderr


def test_swipe_without_a_host_fails_clearly(tmp_short):
    done = run_swipe("--socket", os.path.join(tmp_short, "nobody.sock"), timeout=30)
    assert done.returncode == 1, done
    assert done.stdout == ""
    assert "nobody.sock" in done.stderr, done.stderr


def test_swipe_stops_at_a_failed_call(start_host, tmp_short):
    """A host without the `Container` class: page.create's error reply is named and the script stops."""
    host = start_host("--clock", "virtual")
    wrapper = Path(tmp_short) / "greenroomctl"
    # a greenroomctl whose session turns the class name into one the host does not know
    wrapper.write_text(
        "#!/bin/sh\n"
        """sed -u 's/"Container"/"NoSuchClass"/' | sh "$REAL" "$@"\n"""
    )
    wrapper.chmod(0o755)
    done = run_swipe("--socket", host.socket_path, extra_env={"GREENROOMCTL": str(wrapper), "REAL": str(GREENROOMCTL)})
    assert done.returncode == 1, done
    assert done.stdout == ""
    assert "page.create failed" in done.stderr and "-32001" in done.stderr, done.stderr
    check_host_clean(host)


def test_swipe_passes_shellcheck():
    shellcheck = shutil.which("shellcheck")
    assert shellcheck, "shellcheck is not installed (scripts/install-deps.sh test installs it)"
    r = subprocess.run([shellcheck, "-s", "sh", str(SCRIPT)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
