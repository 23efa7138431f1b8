"""greenroom.lifecycle is typed for its users: the module passes `mypy --strict`, and so does code that hands
it the package's own clients (the sync helpers take a `greenroom.Client`, the *_async ones an `AsyncClient`).
greenroom.wsbridge, greenroomctl's WebSocket helper, and greenroom.transcript and greenroom.pytest_plugin
(recordings and golden tests) are held to the same standard, and so is the whole package as mypy reads it
from MYPYPATH.

mypy is a test dependency (requirements-dev.txt); an interpreter without it skips these tests and says so.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("mypy", reason="mypy is not installed here (pip install -r requirements-dev.txt)")

SRC = Path(__file__).resolve().parents[1] / "src"
MODULES = [SRC / "greenroom" / "lifecycle.py", SRC / "greenroom" / "wsbridge.py", SRC / "greenroom" / "transcript.py",
           SRC / "greenroom" / "pytest_plugin.py"]

USER_CODE = textwrap.dedent('''
    from __future__ import annotations

    from greenroom import Client
    from greenroom.aio import AsyncClient
    from greenroom.lifecycle import (AppearanceChecker, RangeDrag, Violation, assert_calls, interactive_pop,
                                     range_drag_async, swipe_page)


    def sync(client: Client) -> list[str]:
        checker = AppearanceChecker()
        client.on("lifecycle", checker.feed)
        reply = swipe_page(client, "p-1", 0, 1, width=375.0)
        interactive_pop(client, "s-1", [0.2, 0.6], finish=True, duration=200.0)
        found: list[Violation] = checker.violations
        return assert_calls([e for e in client.events("lifecycle", timeout=0)], {"c-1": ["willAppear"]}) + [
            str(reply), str(found)]


    async def fling(client: AsyncClient) -> float | None:
        done: RangeDrag = await range_drag_async(client, "r-1", [0.0, 500.0], fling=3.0)
        return done.target
''')


def mypy(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    # --follow-imports=silent: the rest of the package is checked by its own standards, not --strict's.
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--cache-dir",
                           str(cache), *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "MYPYPATH": str(SRC)})


def test_the_modules_pass_mypy_strict(tmp_path):
    assert (SRC / "greenroom" / "py.typed").is_file()  # what makes users' mypy read these types at all
    done = mypy(*map(str, MODULES), cache=tmp_path / "cache")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_whole_package_passes_mypy_strict(tmp_path):
    # With the package on MYPYPATH, as a checkout puts it, mypy follows a user's imports into every module
    # (the client, the transport, the events): all of greenroom's source is held to --strict, not only the
    # modules above.
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), "-p",
                           "greenroom"], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "MYPYPATH": str(SRC)})
    assert done.returncode == 0 and "no issues found in" in done.stdout, done.stdout + done.stderr


def test_code_using_the_module_with_the_clients_passes_mypy_strict(tmp_path):
    user = tmp_path / "user_test.py"
    user.write_text(USER_CODE)
    done = mypy(str(user), cache=tmp_path / "cache")
    assert done.returncode == 0, done.stdout + done.stderr
    # The check bites: a wrong type in the same code is an error.
    user.write_text(USER_CODE.replace('"p-1", 0, 1, width=375.0', '"p-1", "0", 1, width=375.0'))
    wrong = mypy(str(user), cache=tmp_path / "cache")
    assert wrong.returncode == 1 and 'Argument 3 to "swipe_page" has incompatible type "str"' in wrong.stdout
