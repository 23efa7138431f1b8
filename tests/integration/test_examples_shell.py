"""examples/shell/swipe.sh run as a user runs it, against a real virtual-clock host.

The script streams lifecycle events with `greenroomctl events` in the background, creates a page session
on page 1 and swipes to page 2 through the scroll stream; it prints the appearance hooks of the swipe in
the GYPageViewController article's words. Run under dash when installed (the shell greenroomctl targets), else sh.
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
def test_swipe_prints_seed_001s_sequence(start_host, jq):
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
    """Another client's session, with its own events, is on the same host: the monitor sees its events
    too (--scope all), but the script prints only its own session's swipe."""
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


def test_swipe_tries_again_when_its_session_id_is_taken(start_host, tmp_short):
    """The script predicts its session's id; when another client takes that id first, it tries again.

    A wrapper around greenroomctl takes the id once: right after the script's probe page.create, it makes
    one more session (which, like the probe's, goes away with its connection but uses up the id)."""
    host = start_host("--clock", "virtual")
    marker = Path(tmp_short) / "taken"
    wrapper = Path(tmp_short) / "greenroomctl"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'real="{GREENROOMCTL}"\n'
        'sh "$real" "$@" || exit $?\n'
        'case " $* " in\n'
        f'*" call page.create "*) [ -e "{marker}" ] || {{ : >"{marker}"; sh "$real" "$@" >/dev/null; }} ;;\n'
        "esac\n"
    )
    wrapper.chmod(0o755)
    done = run_swipe("--socket", host.socket_path, extra_env={"GREENROOMCTL": str(wrapper)})
    assert ok(done) == SWIPE_1_TO_2, done.stderr
    assert marker.exists()
    assert "trying again" in done.stderr, done.stderr
    check_host_clean(host)


def test_swipe_without_a_socket_is_a_usage_error():
    done = run_swipe()
    assert done.returncode == 64, done
    assert done.stdout == ""
    assert "--socket" in done.stderr and "GREENROOM_SOCKET" in done.stderr


def test_swipe_without_a_host_fails_clearly(tmp_short):
    done = run_swipe("--socket", os.path.join(tmp_short, "nobody.sock"), timeout=30)
    assert done.returncode == 1, done
    assert done.stdout == ""
    assert "nobody.sock" in done.stderr, done.stderr
