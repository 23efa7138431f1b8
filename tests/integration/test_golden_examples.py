"""The golden transcripts in examples/golden are golden tests (docs/transcripts.md): each replays the same
on a fresh host, each script records its transcript again, and a changed lifecycle order fails with the
container, the call and the request named; a file that is not a transcript is one sentence and exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from grhost import REPO

GOLDEN = REPO / "examples" / "golden"
TRANSCRIPTS = sorted(GOLDEN.glob("*.ndjson"))
SCRIPTS = sorted(p for p in GOLDEN.glob("*.py") if p.name != "goldenrun.py")


def greenroom(binary: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([binary, *map(str, args)], capture_output=True, text=True, timeout=120, check=False)


def test_each_scenario_has_its_transcript_and_its_script():
    assert [p.stem for p in TRANSCRIPTS] == [p.stem for p in SCRIPTS] == [
        "cancelled_curl", "full_screen", "page_sheet", "page_switching", "prerendered_hit", "reuse_mode", "tab_switch", "working_ranges_fling"]
    readme = (GOLDEN / "README.md").read_text()
    assert all(f"`{p.name}`" in readme for p in TRANSCRIPTS), "examples/golden/README.md names every transcript"


@pytest.mark.parametrize("transcript", TRANSCRIPTS, ids=lambda p: p.stem)
def test_every_transcript_replays_the_same(greenroom_bin, transcript):
    header = json.loads(transcript.read_text().splitlines()[0])
    assert header["clock"] == "virtual", "a golden transcript is recorded under a virtual clock"
    done = greenroom(greenroom_bin, "replay", transcript)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ": the same (" in done.stdout


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_every_script_records_its_transcript_again(greenroom_bin, script, tmp_path):
    out = tmp_path / f"{script.stem}.ndjson"
    env = {**{k: v for k, v in os.environ.items() if k != "GREENROOM_SOCKET"}, "GREENROOM_BIN": greenroom_bin}
    made = subprocess.run([sys.executable, str(script), "--out", str(out)], capture_output=True, text=True,
                          timeout=120, env=env, cwd=str(tmp_path), check=False)
    assert made.returncode == 0, made.stdout + made.stderr
    assert f"wrote {out}" in made.stdout
    done = greenroom(greenroom_bin, "transcript", "diff", GOLDEN / f"{script.stem}.ndjson", out)
    assert done.returncode == 0, f"{script.name} no longer records what is checked in:\n{done.stdout}{done.stderr}"


def swapped_at_rest(path, tmp_path):
    """A copy of page_switching.ndjson with the first table's two calls at rest swapped: didDisappear 1
    before didAppear 0, as a host with a changed order would send them."""
    lines = path.read_text().splitlines()
    rest = next(json.loads(line)["send"]["id"] for line in lines if '"method":"page.didEndDecelerating"' in line)
    at = next(i for i, line in enumerate(lines) if '"event":"viewDidAppear"' in line and f'"cause":{rest},' in line)
    assert '"event":"viewDidDisappear"' in lines[at + 1], lines[at + 1]
    lines[at], lines[at + 1] = lines[at + 1], lines[at]
    copy = tmp_path / path.name
    copy.write_text("\n".join(lines) + "\n")
    return copy, json.loads(lines[at])["recv"]["params"], json.loads(lines[at + 1])["recv"]["params"]


def test_a_changed_order_fails_naming_the_container_the_call_and_the_request(greenroom_bin, tmp_path):
    copy, recorded, replayed = swapped_at_rest(GOLDEN / "page_switching.ndjson", tmp_path)
    done = greenroom(greenroom_bin, "replay", copy)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    cause = recorded["cause"]
    # The first line names the request the difference comes under, with its method and params.
    assert lines[0].startswith("transcripts differ at message "), done.stdout
    assert f'under request {cause} (page.didEndDecelerating {{"session":"p-1","offset":0.0}})' in lines[0], lines[0]
    # The marked line: the container and the call on each side, and the request that caused them.
    marked = next(line for line in lines if line.startswith(">"))
    assert f"{recorded['container']} viewDidDisappear (cause {cause})" in marked, marked
    assert f"{replayed['container']} viewDidAppear (cause {cause})" in marked, marked
    assert "Traceback" not in done.stdout + done.stderr

    # --update takes what is received now: then it replays the same again.
    updated = greenroom(greenroom_bin, "replay", copy, "--update")
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert greenroom(greenroom_bin, "replay", copy).returncode == 0


@pytest.mark.parametrize("damage, says", [
    (lambda text: text[: len(text) // 2], "is cut off"),
    (lambda text: text.replace('{"send"', '{send', 1), "is not JSON"),
    (lambda text: text.replace('"version":1', '"version":2', 1), "written by a newer Greenroom"),
    (lambda text: text.replace('"protocol":1', '"protocol":99', 1), "newer than this host's"),
    (lambda text: text.split("\n", 1)[1], "has no transcript header"),
])
def test_a_file_that_is_not_a_transcript_is_one_sentence_and_exit_2(greenroom_bin, tmp_path, damage, says):
    copy = tmp_path / "damaged.ndjson"
    copy.write_text(damage((GOLDEN / "reuse_mode.ndjson").read_text()))
    for args in (["replay", copy], ["transcript", "diff", GOLDEN / "reuse_mode.ndjson", copy]):
        done = greenroom(greenroom_bin, *args)
        assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
        assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
