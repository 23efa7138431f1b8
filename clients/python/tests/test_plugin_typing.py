"""greenroom.plugin is typed for plugin authors: the kit passes `mypy --strict`, and so do the Python example
plugins (examples/plugins/python) and a plugin written the way its docstring shows.

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
EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "plugins" / "python"

USER_CODE = textwrap.dedent('''
    from __future__ import annotations

    import logging

    from greenroom.plugin import Container, HookCall, PluginError, Size, serve

    log = logging.getLogger(__name__)


    class Banner(Container):
        optional_hooks = frozenset({"viewLayoutMarginsDidChange"})

        def configure(self, call: HookCall) -> dict[str, int]:
            text = (call.data or {}).get("text")
            if not isinstance(text, str):
                raise PluginError("data.text is required", {"got": repr(text)})
            size: Size | None = self.size
            log.info("banner %s at %s", self.id, size)
            return {"length": len(text)}

        async def viewDidLoad(self) -> None:
            return None

        @property
        def memory_bytes(self) -> int:
            return 64


    if __name__ == "__main__":
        serve("banner", [Banner], version="1.0.0")
''')


def mypy(*args: str, cache: Path, path: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--cache-dir",
                           str(cache), *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "MYPYPATH": path})


def test_the_kit_and_the_examples_pass_mypy_strict(tmp_path):
    kit = mypy(str(SRC / "greenroom" / "plugin.py"), cache=tmp_path / "cache", path=str(SRC))
    assert kit.returncode == 0, kit.stdout + kit.stderr
    examples = [str(EXAMPLES / name) for name in ("counter.py", "article.py", "mustache.py")]
    done = mypy(*examples, cache=tmp_path / "cache", path=os.pathsep.join([str(SRC), str(EXAMPLES)]))
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_plugin_written_as_documented_passes_mypy_strict(tmp_path):
    user = tmp_path / "banner.py"
    user.write_text(USER_CODE)
    done = mypy(str(user), cache=tmp_path / "cache", path=str(SRC))
    assert done.returncode == 0, done.stdout + done.stderr
