"""docs/transcripts.md: `greenroom serve --record DIR` writes each connection's transcript; `greenroom replay FILE`
replays one against a fresh host (or a running one after host.reset) and exits 0 when every reply and event
comes back the same, 1 with the first difference (named by the request that caused it), 2 with one sentence
for a file that is not a transcript it can replay; `--update` rewrites it; `greenroom transcript diff` compares
two. Each test starts its own hosts; every expectation comes from docs/transcripts.md.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from grhost import REPO, LineConn

FIXTURES = REPO / "rpc-schema" / "fixtures"
PLUGINS = Path(os.environ.get("GREENROOM_BIN") or REPO / ".build" / "debug" / "greenroom").parent
REF = re.compile(r"^\$setup\[(\d+)\]((?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*)$")


def run(greenroom_bin: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([greenroom_bin, *args], capture_output=True, text=True, timeout=timeout)


def substitute(value: Any, results: list[Any]) -> Any:
    """A fixture's `$setup[N].member` references (rpc-schema/fixtures/README.md) replaced by the values."""
    if isinstance(value, str) and (m := REF.match(value)):
        node = results[int(m.group(1))]
        for name, index in re.findall(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]", m.group(2)):
            node = node[name] if name else node[int(index)]
        return node
    if isinstance(value, str) and value.startswith("$$"):
        return value[1:]
    if isinstance(value, dict):
        return {k: substitute(v, results) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, results) for v in value]
    return value


def recorded(directory: Path) -> Path:
    files = sorted(directory.glob("conn-*.ndjson"))
    assert files, f"nothing recorded in {directory}"
    return files[-1]


def record_session(start_host, tmp_path: Path, script, *host_args: str) -> Path:
    """Runs `script(conn)` on a host with --clock virtual --record DIR; returns its transcript."""
    rec = tmp_path / "rec"
    h = start_host("--clock", "virtual", "--record", str(rec), *host_args)
    c = h.connect()
    LineConn._next_id = 0  # the same requests get the same ids, whichever test recorded before
    script(c)
    c.close()
    h.stop()
    return recorded(rec)


def a_page_swipe(c: LineConn) -> None:
    c.result("events.subscribe", {"topics": ["lifecycle", "page", "pool", "host"]})
    s = c.result("page.create", {"class": "Container", "count": 3, "width": 100, "height": 100, "initialIndex": 1})["session"]
    for method, params in [("page.willBeginDragging", {"offset": 100}), ("page.didScroll", {"offset": 140}),
                           ("page.didScroll", {"offset": 90}), ("page.willEndDragging", {"offset": 90, "velocity": 0}),
                           ("page.didEndDragging", {"offset": 90, "willDecelerate": True}),
                           ("page.didEndDecelerating", {"offset": 100})]:
        c.result(method, {"session": s, **params})
    c.result("host.info")
    c.result("clock.settle")


def test_a_recorded_session_replays_the_same(start_host, greenroom_bin, tmp_path):
    path = record_session(start_host, tmp_path, a_page_swipe)
    header = json.loads(path.read_text().splitlines()[0])
    assert header["transcript"] == "greenroom" and header["version"] == 1 and header["clock"] == "virtual", header
    r = run(greenroom_bin, "replay", str(path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "the same" in r.stdout


def test_a_changed_order_fails_naming_the_container_the_call_and_the_request(start_host, greenroom_bin, tmp_path):
    path = record_session(start_host, tmp_path, a_page_swipe)
    lines = path.read_text().splitlines()
    # Swap the first two lifecycle events of the swipe's first scroll: the order a regression would change.
    events = [i for i, line in enumerate(lines) if '"method":"lifecycle"' in line and '"cause":' in line
              and json.loads(line)["recv"]["params"]["event"] in ("viewWillAppear", "viewWillDisappear")]
    i, j = events[-4], events[-3]
    lines[i], lines[j] = lines[j], lines[i]
    path.write_text("\n".join(lines) + "\n")
    r = run(greenroom_bin, "replay", str(path))
    assert r.returncode == 1, r.stdout + r.stderr
    first = json.loads(lines[i])["recv"]["params"]
    cause = first["cause"]
    request = next(json.loads(line)["send"] for line in lines if line.startswith('{"send"')
                   and json.loads(line)["send"].get("id") == cause)
    assert f"under request {cause} ({request['method']}" in r.stdout, r.stdout
    assert f"{first['container']} {first['event']} (cause {cause})" in r.stdout, r.stdout
    assert "Traceback" not in r.stdout + r.stderr


def test_update_rewrites_what_was_received(start_host, greenroom_bin, tmp_path):
    path = record_session(start_host, tmp_path, a_page_swipe)
    text = path.read_text()
    path.write_text(text.replace('"event":"viewDidAppear"', '"event":"viewDidExplode"', 1))
    assert run(greenroom_bin, "replay", str(path)).returncode == 1
    r = run(greenroom_bin, "replay", str(path), "--update")
    assert r.returncode == 0, r.stderr
    assert run(greenroom_bin, "replay", str(path)).returncode == 0
    sends = [line for line in path.read_text().splitlines() if line.startswith('{"send"')]
    assert sends == [line for line in text.splitlines() if line.startswith('{"send"')], "the requests are kept"


def test_a_replay_against_a_running_host(start_host, greenroom_bin, tmp_path):
    path = record_session(start_host, tmp_path, a_page_swipe)
    h = start_host("--clock", "virtual")
    other = h.connect()
    other.result("container.create", {"class": "Container"})  # something host.reset must clear first
    r = run(greenroom_bin, "replay", str(path), "--socket", h.socket_path)
    assert r.returncode == 0, r.stdout + r.stderr
    real = start_host()
    r = run(greenroom_bin, "replay", str(path), "--socket", real.socket_path)
    assert r.returncode == 2 and "host.reset" in r.stderr and "--allow-reset" in r.stderr, r.stderr


@pytest.mark.parametrize("content,says", [
    ("", "is empty"),
    ('{"transcript":"greenroom","version":1,"protocol":1,"clock":"virtual"}\n{"send":{"jsonrpc"', "cut off"),
    ('{"transcript":"greenroom","version":1,"protocol":1,"clock":"virtual"}\nnot json at all\n', "line 2, is not JSON"),
    ('{"send":{"jsonrpc":"2.0","id":1,"method":"host.ping"}}\n', "no transcript header"),
    ('{"transcript":"greenroom","version":9,"protocol":1,"clock":"virtual"}\n', "format 9, written by a newer"),
    ('{"transcript":"greenroom","version":1,"protocol":99,"clock":"virtual"}\n', "protocol 99, newer"),
    ('{"transcript":"greenroom","version":1,"protocol":1,"clock":"virtual"}\n{"sent":1}\n', "line 2, is neither"),
])
def test_a_file_that_is_not_a_transcript_gets_one_sentence_and_exit_2(greenroom_bin, tmp_path, content, says):
    path = tmp_path / "bad.ndjson"
    path.write_text(content)
    for args in (("replay", str(path)), ("transcript", "diff", str(path), str(path))):
        r = run(greenroom_bin, *args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert says in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "Traceback" not in r.stderr and r.stdout == ""


def test_a_file_that_cannot_be_read_says_why(greenroom_bin, tmp_path):
    """Not "cannot read" alone: the system's reason, in the one line, for replay and transcript diff."""
    for missing, reason in ((tmp_path / "missing.ndjson", "No such file or directory"), (tmp_path, "Is a directory")):
        for args in (("replay", str(missing)), ("transcript", "diff", str(missing), str(missing))):
            r = run(greenroom_bin, *args)
            assert r.returncode == 2, (args, r.stderr)
            assert f"cannot read {missing}: {reason}" in r.stderr, r.stderr
            assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_transcript_diff_compares_two_recordings(start_host, greenroom_bin, tmp_path):
    a = record_session(start_host, tmp_path / "a", a_page_swipe)
    b = record_session(start_host, tmp_path / "b", a_page_swipe)
    r = run(greenroom_bin, "transcript", "diff", str(a), str(b))
    assert r.returncode == 0, r.stdout + r.stderr
    c = record_session(start_host, tmp_path / "c", lambda conn: (a_page_swipe(conn), conn.result("container.create", {"class": "Container"})))
    r = run(greenroom_bin, "transcript", "diff", str(a), str(c))
    assert r.returncode == 1 and "(nothing)" in r.stdout, r.stdout


def test_every_documented_method_and_event_replays_identically(start_host, greenroom_bin, tmp_path):
    """docs/transcripts.md: a transcript recorded on one host replays identically on a fresh one. One connection
    runs every method's fixture (rpc-schema/fixtures, its setup calls included) subscribed to every topic, so the
    transcript holds every method's reply and events of every topic; the replay must match all of it."""
    crashy = str(PLUGINS / "libCrashyPlugin.so")
    fixtures = {p.stem: json.loads(p.read_text()) for p in sorted(FIXTURES.glob("*.json"))}
    doc = json.loads((REPO / "rpc-schema" / "openrpc.json").read_text())
    topics = [n["name"] for n in doc["x-notifications"]]
    seen: set[str] = set()

    def script(c: LineConn) -> None:
        c.result("events.subscribe", {"topics": topics})
        for name, fixture in fixtures.items():
            if fixture.get("skipCall"):
                continue
            results: list[Any] = []
            for step in fixture.get("setup", []):
                results.append(c.result(step["method"], substitute(step.get("params", {}), results)))
            reply = c.call(name, substitute(fixture["params"], results))
            assert "result" in reply, (name, reply)
            seen.add(name)
            c.result("clock.settle")
        # Events of the topics no fixture reaches on its own: a range session's batch and prefetch.
        s = c.result("range.create", {"count": 50, "itemLength": 50, "viewport": {"width": 100, "height": 100}})["session"]
        c.result("range.willBeginDragging", {"session": s})
        for offset in (100, 400, 900):
            c.result("range.didScroll", {"session": s, "offset": offset})

    path = record_session(start_host, tmp_path, script, "--plugin", crashy)
    assert seen == {m["name"] for m in doc["methods"]} - {n for n, f in fixtures.items() if f.get("skipCall")}
    received = {json.loads(line)["recv"].get("method") for line in path.read_text().splitlines()
                if line.startswith('{"recv"')}
    assert set(topics) <= received, f"topics never recorded: {set(topics) - received}"
    r = run(greenroom_bin, "replay", str(path), "--plugin", crashy)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr
