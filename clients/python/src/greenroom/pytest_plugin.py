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

Marker ``greenroom_args(*args, clock="virtual")`` adds arguments to
``greenroom serve`` (or picks the clock) for the marked tests, e.g.
``@pytest.mark.greenroom_args("--max-batch", "4")``.

The binary is found by :func:`greenroom.testing.find_binary`; when there is
none, the fixture errors with what it looked for: it never skips.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .client import Client
from .testing import HostDidNotExit, HostProcess

__all__ = ["greenroom_client", "greenroom_host"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        'greenroom_args(*args, clock="virtual"): extra `greenroom serve` arguments for the greenroom_host fixture',
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
