"""The documentation's transcripts are true: each `console` block that follows a comment naming this file
is run, command by command, against a real host, and every output line must match (JSON lines compared as
JSON). Today: the plugin session in docs/plugins.md. And README.md's "A golden test in three commands" is
run as written, from an empty folder, and its failure output is what a changed order prints; so is its
"A plugin class in Python"."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from grhost import base_env

REPO = Path(__file__).resolve().parents[2]
THIS = Path(__file__).name  # a console block follows an HTML comment naming this file


def transcripts(page: Path) -> list[list[tuple[str, list[str]]]]:
    """Each marked console block as [(command, expected output lines)]."""
    blocks, lines, i = [], page.read_text().splitlines(), 0
    while i < len(lines):
        if THIS in lines[i] and lines[i].lstrip().startswith("<!--"):
            while not lines[i].startswith("```console"):
                i += 1
            i += 1
            steps: list[tuple[str, list[str]]] = []
            while not lines[i].startswith("```"):
                if lines[i].startswith("$ "):
                    steps.append((lines[i][2:], []))
                else:
                    steps[-1][1].append(lines[i])
                i += 1
            blocks.append(steps)
        i += 1
    return blocks


def same(got: str, want: str) -> bool:
    try:
        return json.loads(got) == json.loads(want)
    except ValueError:
        return got == want


def test_the_plugins_page_transcript_is_marked():
    assert transcripts(REPO / "docs" / "plugins.md"), f"docs/plugins.md has no console block marked with {THIS}"


def test_the_plugin_session_in_docs_plugins_md(start_host):
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed (scripts/install-deps.sh test installs it)")
    libs = Path(start_host.bin).resolve().parent
    host = start_host("--plugin", str(libs / "libArticlePlugin.so"), "--plugin", str(libs / "libCounterPlugin.so"))
    env = base_env(host.tmpdir)
    env["GREENROOM_SOCKET"] = host.socket_path
    env["PATH"] = f"{Path(start_host.bin).resolve().parent}{os.pathsep}{env['PATH']}"
    for steps in transcripts(REPO / "docs" / "plugins.md"):
        for command, expected in steps:
            r = subprocess.run(["sh", "-c", command], capture_output=True, text=True, env=env, timeout=30,
                               stdin=subprocess.DEVNULL)
            got = r.stdout.splitlines()
            assert len(got) == len(expected) and all(same(g, w) for g, w in zip(got, expected)), (
                f"$ {command}\nexpected:\n" + "\n".join(expected) + "\ngot:\n" + r.stdout + r.stderr)


# -- README.md: a golden test in three commands ------------------------------------------------------


def marked_block(page: Path, label: str) -> list[str]:
    """The lines of the fenced block after the comment `<!-- test_doc_examples.py: LABEL -->`."""
    lines = page.read_text().splitlines()
    start = lines.index(f"<!-- {THIS}: {label} -->")
    assert lines[start + 1].startswith("```"), f"a fenced block follows the comment {label!r}"
    end = next(i for i in range(start + 2, len(lines)) if lines[i].startswith("```"))
    return lines[start + 2:end]


def pytest_env(greenroom_bin: str, tmp: Path) -> dict[str, str]:
    """What a user's shell has after `pip install -e clients/python`: pytest on PATH, this client, the binary."""
    env = base_env(str(tmp))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "clients" / "python" / "src"), env.get("PYTHONPATH", "")])
    env["GREENROOM_BIN"] = greenroom_bin
    installed = any(e.value == "greenroom.pytest_plugin" for e in metadata.entry_points(group="pytest11"))
    # Without the installed entry point (a checkout whose client is on PYTHONPATH only), name the plugin.
    env["PYTEST_ADDOPTS"] = "-p no:cacheprovider" + ("" if installed else " -p greenroom.pytest_plugin")
    return env


def test_the_readmes_golden_test_in_three_commands(greenroom_bin, tmp_path):
    block = marked_block(REPO / "README.md", "the golden test")
    end = block.index("EOF")
    steps = ["\n".join(block[: end + 1])] + block[end + 1:]
    assert len(steps) == 3, f"three commands: {steps}"
    env = pytest_env(greenroom_bin, tmp_path)

    def sh(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["sh", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL)

    made = sh(steps[0])
    assert made.returncode == 0, made.stderr
    command, _, said = steps[1].partition("#")
    first = sh(command)
    assert first.returncode == 0, first.stdout + first.stderr
    outcome, _, wrote = said.strip().partition(": wrote ")
    assert outcome in first.stdout, first.stdout  # "1 passed, 1 warning"
    golden = tmp_path / wrote
    assert golden.is_file(), f"the comment says it wrote {wrote}:\n{first.stdout}"
    assert "wrote the golden transcript" in first.stdout

    command, _, said = steps[2].partition("#")
    second = sh(command)
    assert second.returncode == 0, second.stdout + second.stderr
    assert said.strip().split(":")[0] in second.stdout and "warning" not in second.stdout, second.stdout

    # The order changed, as the README tells the reader to make it: page 1's viewDidDisappear before page
    # 0's viewDidAppear at rest. The test fails, and prints the README's lines.
    lines = golden.read_text().splitlines()
    rest = next(i for i, line in enumerate(lines) if '"event":"viewDidAppear"' in line and '"index":0' in line)
    assert '"event":"viewDidDisappear"' in lines[rest + 1] and '"index":1' in lines[rest + 1]
    lines[rest], lines[rest + 1] = lines[rest + 1], lines[rest]
    golden.write_text("\n".join(lines) + "\n")
    failed = sh(command)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    printed = [line.rstrip() for line in failed.stdout.splitlines()]
    for want in marked_block(REPO / "README.md", "the golden test fails"):
        assert want.rstrip() in printed, f"README.md says {want!r}; pytest printed:\n{failed.stdout}"
    assert "Traceback" not in failed.stdout + failed.stderr


def test_the_readmes_python_plugin_class(greenroom_bin, tmp_path):
    block = marked_block(REPO / "README.md", "a Python plugin")
    ends = [i for i, line in enumerate(block) if line == "EOF"]
    assert len(ends) == 2, block
    steps = ["\n".join(block[: ends[0] + 1]), "\n".join(block[ends[0] + 1: ends[1] + 1])] + block[ends[1] + 1:]
    assert len(steps) == 3, steps
    env = pytest_env(greenroom_bin, tmp_path)

    def sh(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["sh", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL)

    for step in steps[:2]:
        made = sh(step)
        assert made.returncode == 0, made.stderr
    command, _, said = steps[2].partition("#")
    ran = sh(command)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert said.strip() in ran.stdout, ran.stdout
