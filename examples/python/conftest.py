"""pytest setup for the Python examples.

The examples use the fixtures of the Greenroom pytest plugin (``greenroom_host``, ``greenroom_client``:
a fresh ``greenroom serve --clock virtual`` per test). Installing the client registers the plugin
(``pip install -e clients/python``); when the client is not installed, this file takes it straight from
the repository instead, so ``python -m pytest examples`` works from a plain checkout too.

The host binary is ``$GREENROOM_BIN``, else this repository's ``.build/debug/greenroom`` (build it with
``swift build`` at the repository root), whatever the current directory.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

try:
    import greenroom.pytest_plugin  # noqa: F401  (installed: the plugin is already registered)
except ImportError:  # a plain checkout: use the client in clients/python and its fixtures
    sys.path.insert(0, str(REPO / "clients" / "python" / "src"))
    from greenroom.pytest_plugin import greenroom_client, greenroom_host  # noqa: F401


@pytest.fixture(autouse=True)
def _greenroom_bin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without $GREENROOM_BIN, the plugin looks for .build/debug/greenroom above the current directory and
    then above the installed client; point it at this repository's build, wherever pytest runs from."""
    built = REPO / ".build" / "debug" / "greenroom"
    if not os.environ.get("GREENROOM_BIN") and os.access(built, os.X_OK):
        monkeypatch.setenv("GREENROOM_BIN", str(built))
