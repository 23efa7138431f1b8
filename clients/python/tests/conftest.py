"""Shared fixtures for the client's own tests (the fake host)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest
from fakehost import FakeHost

# pytester (for the plugin tests) is enabled with `-p pytester` in pytest.ini at the
# repository root and in pyproject.toml: `pytest_plugins` here would be refused by
# pytest when this folder is collected from above (`pytest clients/`).


@pytest.fixture
def fake_host() -> Iterator[FakeHost]:
    """The in-process fake host on a fresh Unix socket."""
    directory = tempfile.mkdtemp(prefix="grf-", dir="/tmp")
    try:
        with FakeHost(os.path.join(directory, "host.sock")) as host:
            yield host
    finally:
        shutil.rmtree(directory, ignore_errors=True)
