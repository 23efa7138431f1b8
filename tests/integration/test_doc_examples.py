"""The documentation's transcripts are true: each `console` block that follows a comment naming this file
is run, command by command, against a real host, and every output line must match (JSON lines compared as
JSON). Today: the plugin session in docs/plugins.md."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
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
