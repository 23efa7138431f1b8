"""pytest plugin: fixtures that run a real Greenroom host for each test.

Registered through the ``pytest11`` entry point, so installing the package is
enough. Fixtures:

``greenroom_host``
    A :class:`greenroom.testing.HostProcess` started with a virtual clock on a
    fresh socket (``.socket``, ``.process``, ``.client()``). At teardown it is
    stopped with SIGTERM; the test fails if the host does not exit within 10 s,
    exits with a non-zero code, or died during the test.

``greenroom_client``
    A connected :class:`greenroom.Client` on ``greenroom_host``.

``greenroom_golden``
    A connected :class:`greenroom.Client` on ``greenroom_host`` that records a transcript
    (docs/transcripts.md) of everything the test does with it. When the test passes, the transcript is
    compared with the golden file ``golden/<test file's name>/<test's name>.ndjson`` beside the test
    file by ``greenroom transcript diff``: a difference fails the test with the diff, which names the
    first reply or event that changed and the request it comes under. A golden file that does not exist
    is written (the test passes, with a :class:`GoldenFileWritten` warning); ``pytest
    --greenroom-update`` rewrites those that differ.

Marker ``greenroom_args(*args, clock="virtual")`` adds arguments to
``greenroom serve`` (or picks the clock) for the marked tests, e.g.
``@pytest.mark.greenroom_args("--max-batch", "4")``.

Marker ``greenroom_plugin(*scripts)`` runs each plugin script (written with :mod:`greenroom.plugin`, or a
``.js``/``.mjs`` one with the node kit) under ``greenroom_host`` (``serve --plugin-command``, see
:func:`greenroom.plugin.command`): a relative path is taken from the test file's folder. The test then
drives the plugin's classes through ``greenroom_client``::

    @pytest.mark.greenroom_plugin("banner.py")
    def test_banner(greenroom_client):
        shown = greenroom_client.call("showRendered", {"class": "Banner", "data": {"text": "hi"}})
        assert shown["output"] == {"length": 2}

The binary is found by :func:`greenroom.testing.find_binary`; when there is
none, the fixture errors with what it looked for: it never skips.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .client import Client
from .plugin import command as plugin_command
from .testing import HostDidNotExit, HostProcess
from .transcript import Recording

__all__ = ["GoldenFileWritten", "golden_path", "greenroom_client", "greenroom_golden", "greenroom_host"]

#: How long `greenroom transcript diff` may take (it reads two files): a bound, never a wait.
DIFF_TIMEOUT = 60.0


class GoldenFileWritten(UserWarning):
    """``greenroom_golden`` wrote a golden transcript: there was none, or ``--greenroom-update`` rewrote it."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("greenroom").addoption(
        "--greenroom-update", action="store_true", default=False,
        help="greenroom_golden: rewrite the golden transcripts that differ from what the tests do now")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        'greenroom_args(*args, clock="virtual"): extra `greenroom serve` arguments for the greenroom_host fixture',
    )
    config.addinivalue_line(
        "markers",
        "greenroom_plugin(*scripts): plugin scripts (greenroom.plugin, or the node kit) the greenroom_host fixture runs",
    )


def _serve_options(request: pytest.FixtureRequest) -> tuple[list[str], str]:
    # Outermost marker first (module, class, function), so that closer ones
    # come later on the command line and win for flags given twice.
    markers = list(request.node.iter_markers("greenroom_args"))
    args: list[str] = []
    clock = "virtual"
    for marker in reversed(markers):
        args.extend(str(arg) for arg in marker.args)
        clock = marker.kwargs.get("clock", clock)
    folder = request.node.path.parent
    for marker in reversed(list(request.node.iter_markers("greenroom_plugin"))):
        for script in marker.args:
            path = Path(script)
            args += ["--plugin-command", plugin_command(path if path.is_absolute() else folder / path)]
    return args, clock


@pytest.fixture
def greenroom_host(request: pytest.FixtureRequest) -> Iterator[HostProcess]:
    """A Greenroom host on a temporary socket with a virtual clock, stopped at teardown."""
    args, clock = _serve_options(request)
    host = HostProcess.start(args, clock=clock)
    yield host
    died_early = host.process.poll()
    try:
        code = host.stop()
    except HostDidNotExit as error:
        pytest.fail(str(error), pytrace=False)
    if died_early is not None and died_early != 0:
        pytest.fail(f"the greenroom host exited with code {died_early} during the test", pytrace=False)
    if code != 0:
        pytest.fail(
            f"the greenroom host exited with code {code} after SIGTERM (expected a clean exit, 0)", pytrace=False
        )


@pytest.fixture
def greenroom_client(greenroom_host: HostProcess) -> Iterator[Client]:
    """A :class:`greenroom.Client` connected to ``greenroom_host``, closed at teardown."""
    client = greenroom_host.client()
    try:
        yield client
    finally:
        client.close()


# -- golden tests ----------------------------------------------------------------------------------


def golden_path(item: pytest.Item) -> Path:
    """Where ``greenroom_golden`` keeps a test's golden transcript.

    ``golden/<test file's name>/<test's name>.ndjson`` in the test file's folder: the file's name keeps two
    files' tests of the same name apart; a class and parameters are in the test's name
    (``TestSwipe.test_back[2]``), a character a file name should not have replaced by ``_``.
    """
    name = item.nodeid.split("::", 1)[1] if "::" in item.nodeid else item.name
    name = re.sub(r"[^\w.\-\[\]]", "_", name.replace("::", "."))
    return item.path.parent / "golden" / item.path.stem / f"{name}.ndjson"


@dataclass
class _Golden:
    """One test's recording and what to compare it with."""

    item: pytest.Item
    recording: Recording
    golden: Path
    binary: str
    update: bool

    def check(self) -> None:
        """Stop recording and compare with the golden file, or write it; fail the test on a difference."""
        self.recording.stop()
        recorded = self.recording.path
        shown = _shown(self.golden, self.item.config.rootpath)
        if not self.golden.exists():
            self._write(f"wrote the golden transcript {shown}: there was none. Check it in; from now on this "
                        "test fails when what it receives changes")
            return
        try:
            diff = subprocess.run([self.binary, "transcript", "diff", str(self.golden), str(recorded)],
                                  capture_output=True, text=True, timeout=DIFF_TIMEOUT, check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            pytest.fail(f"cannot compare with the golden transcript {shown}: {self.binary} transcript diff: "
                        f"{error}", pytrace=False)
        if diff.returncode == 0:
            return
        if self.update:
            self._write(f"rewrote the golden transcript {shown} with what the test does now (--greenroom-update)")
            return
        if diff.returncode == 1:
            pytest.fail(f"{diff.stdout.rstrip()}\n\n{self.item.name} no longer does what {shown} recorded (what it "
                        f"did now is in {recorded}). If the change is meant: pytest --greenroom-update",
                        pytrace=False)
        said = (diff.stderr.strip() or diff.stdout.strip()).replace("greenroom transcript diff: ", "", 1)
        if diff.returncode == 2:
            pytest.fail(f"the golden transcript {shown} cannot be read: {said}\n"
                        "(pytest --greenroom-update writes it again)", pytrace=False)
        pytest.fail(f"{self.binary} transcript diff exited with {diff.returncode}: {said}", pytrace=False)

    def _write(self, message: str) -> None:
        self.golden.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.recording.path, self.golden)
        self.item.warn(GoldenFileWritten(message))


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


_GOLDEN = pytest.StashKey[_Golden]()


@pytest.fixture
def greenroom_golden(request: pytest.FixtureRequest, greenroom_host: HostProcess,
                     tmp_path: Path) -> Iterator[Client]:
    """A :class:`greenroom.Client` on ``greenroom_host``, recording; compared with the golden transcript
    (:func:`golden_path`) when the test has passed."""
    client = greenroom_host.client()
    recording = client.record(tmp_path / "recorded.ndjson", comment=f"recorded by {request.node.nodeid}")
    update = bool(request.config.getoption("greenroom_update", default=False))
    item = request.node
    item.stash[_GOLDEN] = _Golden(item, recording, golden_path(item), greenroom_host.command[0], update)
    try:
        yield client
    finally:
        del item.stash[_GOLDEN]
        recording.stop()
        client.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    # The comparison belongs to the test's own outcome, not to its teardown: a difference fails the test
    # (not "passed, 1 error"), and a test that already failed is neither compared nor written down.
    result = yield
    golden = item.stash.get(_GOLDEN, None)
    if golden is not None:
        golden.check()
    return result
