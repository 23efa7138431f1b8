"""The greenroom_golden fixture and --greenroom-update, in nested pytest runs with a fake `greenroom` binary
(tests/fakehost.py: `serve` is the fake host, `transcript diff` compares what two transcripts received)."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

FAKEHOST = Path(__file__).with_name("fakehost.py")

WORDS = """
    import os

    def test_echo(greenroom_golden):
        greenroom_golden.subscribe("page")
        greenroom_golden.call("test.emit", {"topic": "page", "count": 1})
        assert greenroom_golden.call("test.echo", {"word": os.environ.get("WORD", "one")})
"""


@pytest.fixture
def fake_binary(tmp_path, monkeypatch) -> str:
    """An executable that behaves like `greenroom` (fakehost.main), set as GREENROOM_BIN."""
    path = tmp_path / "bin" / "greenroom"
    path.parent.mkdir()
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKEHOST}" "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("GREENROOM_BIN", str(path))
    monkeypatch.delenv("FAKE_GREENROOM", raising=False)
    monkeypatch.delenv("WORD", raising=False)
    return str(path)


def golden_of(pytester, test_file: str, name: str) -> Path:
    return pytester.path / "golden" / test_file / f"{name}.ndjson"


def entries(path: Path) -> list[dict]:
    return [json.loads(text) for text in path.read_text().splitlines()]


def test_the_first_run_writes_the_golden_file_and_the_next_compares(pytester, fake_binary):
    pytester.makepyfile(test_words=WORDS)
    first = pytester.runpytest("-p", "no:cacheprovider")
    first.assert_outcomes(passed=1, warnings=1)
    first.stdout.fnmatch_lines(["*GoldenFileWritten: wrote the golden transcript golden/test_words/test_echo.ndjson*"])
    golden = golden_of(pytester, "test_words", "test_echo")
    lines = entries(golden)
    assert lines[0]["transcript"] == "greenroom" and lines[0]["clock"] == "virtual"
    assert lines[1] == {"comment": "recorded by test_words.py::test_echo"}
    # The test's client from its first request: the fixture's host.info is not in it.
    assert [e["send"]["method"] for e in lines if "send" in e] == ["events.subscribe", "test.emit", "test.echo"]
    assert sum("recv" in e for e in lines) == 4  # subscribe's reply, the event, emit's reply, echo's reply
    written = golden.read_bytes()

    again = pytester.runpytest("-p", "no:cacheprovider")
    again.assert_outcomes(passed=1)
    assert "GoldenFileWritten" not in again.stdout.str()
    assert golden.read_bytes() == written, "a run that matches leaves the golden file alone"


def test_a_difference_fails_the_test_with_the_diff_and_no_traceback(pytester, fake_binary, monkeypatch):
    pytester.makepyfile(test_words=WORDS)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1, warnings=1)
    golden = golden_of(pytester, "test_words", "test_echo")
    before = golden.read_bytes()

    monkeypatch.setenv("WORD", "two")
    failed = pytester.runpytest("-p", "no:cacheprovider")
    failed.assert_outcomes(failed=1)  # the test failed: not "passed" with an error at teardown
    out = failed.stdout.str()
    failed.stdout.fnmatch_lines([
        "*transcripts differ at message 4, under request 4 (test.echo):*",
        '*recorded: {"jsonrpc": "2.0", "id": 4, "result": {"word": "one"}}*',
        '*replayed: {"jsonrpc": "2.0", "id": 4, "result": {"word": "two"}}*',
        "*test_echo no longer does what golden/test_words/test_echo.ndjson recorded (what it did now is in *"
        "recorded.ndjson). If the change is meant: pytest --greenroom-update",
    ])
    assert "Traceback" not in out and "def test_echo" not in out and "pytest_plugin.py" not in out, out
    assert golden.read_bytes() == before, "a failing comparison never rewrites the golden file"


def test_greenroom_update_rewrites_what_differs(pytester, fake_binary, monkeypatch):
    pytester.makepyfile(test_words=WORDS)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1, warnings=1)
    golden = golden_of(pytester, "test_words", "test_echo")

    monkeypatch.setenv("WORD", "two")
    updated = pytester.runpytest("-p", "no:cacheprovider", "--greenroom-update")
    updated.assert_outcomes(passed=1, warnings=1)
    updated.stdout.fnmatch_lines(["*rewrote the golden transcript golden/test_words/test_echo.ndjson*"])
    assert entries(golden)[-1]["recv"]["result"] == {"word": "two"}
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)

    same = golden.read_bytes()
    pytester.runpytest("-p", "no:cacheprovider", "--greenroom-update").assert_outcomes(passed=1)
    assert golden.read_bytes() == same, "--greenroom-update leaves a golden file that still matches alone"


def test_a_failing_test_is_neither_compared_nor_written(pytester, fake_binary):
    pytester.makepyfile(test_broken="""
        def test_broken(greenroom_golden):
            greenroom_golden.call("test.echo", {"word": "x"})
            assert 1 == 2, "the test's own failure"
    """)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the test's own failure*"])
    assert "GoldenFileWritten" not in result.stdout.str() and "transcripts differ" not in result.stdout.str()
    assert not (pytester.path / "golden").exists()


@pytest.mark.parametrize("content, sentence", [
    ('{"transcript":"greenroom","version":1,"protocol":1,"clock":"virtual"}\n{"send":{"jsonrpc"', "is not a transcript"),
    ('{"hello":"world"}\n', "has no transcript header"),
])
def test_a_golden_file_that_cannot_be_read_is_one_sentence(pytester, fake_binary, content, sentence):
    pytester.makepyfile(test_words=WORDS)
    golden = golden_of(pytester, "test_words", "test_echo")
    golden.parent.mkdir(parents=True)
    golden.write_text(content)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*the golden transcript golden/test_words/test_echo.ndjson cannot be read: *{sentence}*",
                                 "*(pytest --greenroom-update writes it again)*"])
    assert "Traceback" not in result.stdout.str()
    # --greenroom-update writes it again, and then it is a transcript that matches.
    pytester.runpytest("-p", "no:cacheprovider", "--greenroom-update").assert_outcomes(passed=1, warnings=1)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_golden_files_are_named_after_the_file_the_class_and_the_parameters(pytester, fake_binary):
    body = """
        import pytest

        def test_same(greenroom_golden):
            greenroom_golden.call("test.echo", {"file": __name__})

        class TestGroup:
            @pytest.mark.parametrize("n", [1, "a/b"])
            def test_param(self, greenroom_golden, n):
                greenroom_golden.call("test.echo", {"n": n})
    """
    pytester.makepyfile(test_one=body, test_two=body)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=6, warnings=6)
    found = sorted(p.relative_to(pytester.path).as_posix() for p in (pytester.path / "golden").rglob("*.ndjson"))
    assert found == [f"golden/{f}/{n}.ndjson" for f in ("test_one", "test_two")
                     for n in ("TestGroup.test_param[1]", "TestGroup.test_param[a_b]", "test_same")]
    # Two files' tests of the same name keep their own golden files.
    sends = {f: entries(golden_of(pytester, f, "test_same"))[-2]["send"] for f in ("test_one", "test_two")}
    assert sends["test_one"]["params"] == {"file": "test_one"} and sends["test_two"]["params"] == {"file": "test_two"}
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=6)


def test_the_fixture_honours_the_marker_and_the_binary(pytester, fake_binary, monkeypatch, tmp_path):
    """greenroom_golden is built on greenroom_host: the greenroom_args marker reaches `serve`, and the same
    binary runs `transcript diff`."""
    args_file = tmp_path / "args.json"
    monkeypatch.setenv("FAKE_GREENROOM_ARGS_FILE", str(args_file))
    pytester.makepyfile(test_marked="""
        import pytest

        @pytest.mark.greenroom_args("--max-batch", "4")
        def test_marked(greenroom_golden):
            assert greenroom_golden.ping()
    """)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1, warnings=1)
    assert json.loads(args_file.read_text())[-2:] == ["--max-batch", "4"]
    monkeypatch.setenv("GREENROOM_BIN", str(tmp_path / "missing"))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*HostBinaryNotFound*GREENROOM_BIN*"])
