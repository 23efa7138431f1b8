"""The client installs as a user installs it, without the tools its own tests use.

The READMEs' install line is `pip install clients/python`: not editable (nothing written into the checkout
at run time) and without requirements-dev.txt (pytest, mypy, Hypothesis, Playwright, ...). Doing it puts
greenroom, and nothing else, into a fresh virtual environment, where it works with the standard library alone.

Offline, as the rest of the suite: what `pip install DIR` does is done in its two steps. The wheel is built with
this environment's setuptools (--no-build-isolation; requirements-dev.txt asks for one that builds wheels by
itself) from a copy of the package, then installed into a fresh virtual environment with --no-index, so that a
dependency the package declared fails the install, naming it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]  # clients/python
REPO = PACKAGE.parents[1]
USER_INSTALL = "pip install clients/python"


def run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=600, cwd=cwd,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{args}:\n{done.stdout}\n{done.stderr}"
    return done


def test_the_readmes_install_line_installs_the_client_alone():
    readme = (PACKAGE / "README.md").read_text(encoding="utf-8")
    first = re.search(r"```sh\n(.*?)```", readme, flags=re.S)
    assert first is not None
    [line] = [text for text in first.group(1).splitlines() if "pip install" in text]
    assert line.split("#")[0].strip() == USER_INSTALL, line
    # The top-level README sends Python users to the same line.
    top = (REPO / "README.md").read_text(encoding="utf-8")
    [mention] = [text for text in top.splitlines() if text.startswith("From Python, with [the client]")]
    assert f"`{USER_INSTALL}`" in mention and "-e" not in mention, mention


def test_pip_install_puts_the_client_and_nothing_else_into_a_fresh_environment(tmp_path):
    source = tmp_path / "source"  # a copy: building writes build/ and *.egg-info beside the sources
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__"))
    run(sys.executable, "-m", "pip", "wheel", "--no-index", "--no-build-isolation", "--no-deps", "--wheel-dir",
        tmp_path / "dist", source)
    [wheel] = (tmp_path / "dist").glob("greenroom-*.whl")

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    before = {p["name"].lower() for p in json.loads(run(python, "-m", "pip", "list", "--format=json").stdout)}
    run(python, "-m", "pip", "install", "--no-index", wheel)
    after = {p["name"].lower() for p in json.loads(run(python, "-m", "pip", "list", "--format=json").stdout)}
    assert after - before == {"greenroom"}

    # Installed, not linked to the checkout; it imports and works with what the interpreter has.
    check = textwrap.dedent("""
        import importlib.metadata, importlib.util, json, sys
        import greenroom, greenroom.aio, greenroom.api, greenroom.lifecycle, greenroom.plugin, greenroom.testing
        import greenroom.transcript, greenroom.wsbridge
        from greenroom.errors import InvalidParams
        print(json.dumps({
            "file": greenroom.__file__,
            "requires": importlib.metadata.requires("greenroom"),
            "absent": [name for name in ("pytest", "mypy", "hypothesis", "playwright", "jsonschema", "websockets")
                       if importlib.util.find_spec(name) is None],
            "plugin": [e.value for e in importlib.metadata.entry_points(group="pytest11")],
        }))
    """)
    seen = json.loads(run(python, "-c", check, cwd=tmp_path).stdout)
    assert Path(seen["file"]).is_relative_to(venv), seen
    assert not seen["requires"], seen
    assert seen["absent"] == ["pytest", "mypy", "hypothesis", "playwright", "jsonschema", "websockets"], seen
    assert seen["plugin"] == ["greenroom.pytest_plugin"], seen  # there for whoever installs pytest
    assert (Path(seen["file"]).parent / "py.typed").is_file()
