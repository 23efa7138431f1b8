"""The host-process harness and the pytest plugin, driven with a fake `greenroom` binary."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from greenroom.testing import HostBinaryNotFound, HostDidNotExit, HostProcess, HostStartError, find_binary

FAKEHOST = Path(__file__).with_name("fakehost.py")


@pytest.fixture
def fake_binary(tmp_path, monkeypatch) -> str:
    """An executable that behaves like `greenroom serve` (see fakehost.main), set as GREENROOM_BIN."""
    path = tmp_path / "bin" / "greenroom"
    path.parent.mkdir()
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKEHOST}" "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("GREENROOM_BIN", str(path))
    monkeypatch.delenv("FAKE_GREENROOM", raising=False)
    return str(path)


def make_executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


# -- find_binary --------------------------------------------------------------


def test_find_binary_prefers_the_environment(tmp_path):
    binary = make_executable(tmp_path / "custom")
    assert find_binary(environ={"GREENROOM_BIN": str(binary)}) == str(binary)


def test_find_binary_rejects_a_bad_environment_value(tmp_path):
    with pytest.raises(HostBinaryNotFound, match="GREENROOM_BIN"):
        find_binary(environ={"GREENROOM_BIN": str(tmp_path / "missing")})


def test_find_binary_walks_up_to_the_build_folder(tmp_path):
    binary = make_executable(tmp_path / "repo" / ".build" / "debug" / "greenroom")
    start = tmp_path / "repo" / "clients" / "python"
    start.mkdir(parents=True)
    assert find_binary([start], environ={"PATH": ""}) == str(binary)


def test_find_binary_takes_the_release_build_when_there_is_no_debug_one(tmp_path):
    release = make_executable(tmp_path / "repo" / ".build" / "release" / "greenroom")
    start = tmp_path / "repo" / "examples"
    start.mkdir(parents=True)
    assert find_binary([start], environ={"PATH": ""}) == str(release)
    debug = make_executable(tmp_path / "repo" / ".build" / "debug" / "greenroom")
    assert find_binary([start], environ={"PATH": ""}) == str(debug), "the debug build (what swift build makes) first"


def test_find_binary_falls_back_to_path(tmp_path):
    binary = make_executable(tmp_path / "bin" / "greenroom")
    assert find_binary([tmp_path / "empty"], environ={"PATH": str(binary.parent)}) == str(binary)


def test_find_binary_says_what_it_tried(tmp_path):
    with pytest.raises(HostBinaryNotFound) as caught:
        find_binary([tmp_path], environ={"PATH": ""})
    message = str(caught.value)
    assert "GREENROOM_BIN" in message and ".build/debug/greenroom" in message and "swift build" in message


# -- HostProcess ---------------------------------------------------------------


def test_host_process_starts_serves_and_stops(fake_binary):
    host = HostProcess.start(["--max-batch", "4"])
    try:
        assert len(host.socket.encode()) < 100
        assert host.listen == [f"unix:{host.socket}"] and host.ready["pid"] == host.pid
        assert host.stdout_lines[0] == "starting"  # skipped while waiting for the ready line
        client = host.client()
        assert client.ping()
    finally:
        code = host.stop()
    assert code == 0
    assert client.closed
    assert not os.path.exists(host.directory)


def test_host_that_never_gets_ready(fake_binary, monkeypatch):
    monkeypatch.setenv("FAKE_GREENROOM", "never-ready")
    with pytest.raises(HostStartError, match="no ready line within 0.5 s"):
        HostProcess.start(ready_timeout=0.5)


def test_host_that_exits_while_starting(fake_binary, monkeypatch):
    monkeypatch.setenv("FAKE_GREENROOM", "exit-early")
    with pytest.raises(HostStartError, match="exit code 3"):
        HostProcess.start()


def test_host_options_for_tests_of_the_host_itself(fake_binary, monkeypatch, tmp_path):
    """clock=None passes no --clock, socket a path of the caller's, directory the caller's (the working
    directory, kept at stop), stderr to a file read back by stderr_text."""
    args_file = tmp_path / "args.json"
    monkeypatch.setenv("FAKE_GREENROOM_ARGS_FILE", str(args_file))
    folder = tmp_path / "h"
    folder.mkdir()
    sock = str(folder / "own.sock")
    host = HostProcess.start(["--max-batch", "4"], clock=None, socket=sock, directory=str(folder),
                             stderr=str(folder / "err.txt"))
    try:
        assert host.socket == sock and host.listen == [f"unix:{sock}"]
        assert json.loads(args_file.read_text()) == ["serve", "--socket", sock, "--max-batch", "4"]
        assert host.client().ping()
        assert host.stderr_text() == ""
    finally:
        assert host.stop() == 0
    assert folder.is_dir(), "a directory given by the caller is the caller's to remove"


def test_a_refused_start_carries_the_exit_code_and_stderr(fake_binary, monkeypatch, tmp_path):
    monkeypatch.setenv("FAKE_GREENROOM", "exit-early")
    with pytest.raises(HostStartError) as caught:
        HostProcess.start(directory=str(tmp_path), stderr=str(tmp_path / "err.txt"))
    error = caught.value
    assert error.returncode == 3 and error.stdout == ""
    assert "failing on purpose" in error.stderr and "failing on purpose" in str(error)


def test_host_that_ignores_sigterm_is_killed(fake_binary, monkeypatch):
    monkeypatch.setenv("FAKE_GREENROOM", "ignore-sigterm")
    host = HostProcess.start()
    with pytest.raises(HostDidNotExit, match="did not exit within 0.5 s"):
        host.stop(timeout=0.5)
    assert host.process.returncode is not None


def test_missing_binary_is_an_error_not_a_skip(monkeypatch, tmp_path):
    monkeypatch.setenv("GREENROOM_BIN", str(tmp_path / "nope"))
    with pytest.raises(HostBinaryNotFound):
        HostProcess.start()


# -- the pytest plugin, in a nested pytest run --------------------------------


def test_plugin_fixtures_and_marker(pytester, fake_binary, monkeypatch, tmp_path):
    args_file = tmp_path / "args.json"
    monkeypatch.setenv("FAKE_GREENROOM_ARGS_FILE", str(args_file))
    pytester.makepyfile(
        """
        import pytest

        pytestmark = pytest.mark.greenroom_args("--listen", "tcp:127.0.0.1:0")

        @pytest.mark.greenroom_args("--max-batch", "4")
        def test_client(greenroom_host, greenroom_client):
            assert greenroom_client.ping()
            assert greenroom_host.process.poll() is None
            with greenroom_host.client() as second:
                assert second.call("clock.now")["mode"] == "virtual"
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    args = json.loads(args_file.read_text())
    assert args[0] == "serve" and args[args.index("--clock") + 1] == "virtual"
    assert args[-4:] == ["--listen", "tcp:127.0.0.1:0", "--max-batch", "4"]


def test_plugin_marker_can_pick_the_clock(pytester, fake_binary, monkeypatch, tmp_path):
    args_file = tmp_path / "args.json"
    monkeypatch.setenv("FAKE_GREENROOM_ARGS_FILE", str(args_file))
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.greenroom_args(clock="real")
        def test_real(greenroom_client):
            assert greenroom_client.ping()
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)
    args = json.loads(args_file.read_text())
    assert args[args.index("--clock") + 1] == "real"


def test_plugin_errors_when_the_binary_is_missing(pytester, monkeypatch, tmp_path):
    monkeypatch.setenv("GREENROOM_BIN", str(tmp_path / "nope"))
    pytester.makepyfile("def test_needs_host(greenroom_client):\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*HostBinaryNotFound*GREENROOM_BIN*"])


def test_plugin_fails_a_test_whose_host_hangs_on_sigterm(pytester, fake_binary, monkeypatch):
    monkeypatch.setenv("FAKE_GREENROOM", "ignore-sigterm")
    monkeypatch.setattr(HostProcess, "STOP_TIMEOUT", 0.5)
    pytester.makepyfile("def test_uses_host(greenroom_host):\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*did not exit within 0.5 s of SIGTERM*"])


def test_plugin_fails_a_test_whose_host_exits_badly(pytester, fake_binary, monkeypatch):
    monkeypatch.setenv("FAKE_GREENROOM", "crash-on-sigterm")
    pytester.makepyfile("def test_uses_host(greenroom_host):\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*exited with code 7 after SIGTERM*"])
