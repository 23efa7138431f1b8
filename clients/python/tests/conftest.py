"""Shared fixtures for the client's own tests (the fake host; pytester for the plugin)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest
from fakehost import FakeHost

pytest_plugins = ["pytester"]


@pytest.fixture
def fake_host() -> Iterator[FakeHost]:
    """The in-process fake host on a fresh Unix socket."""
    directory = tempfile.mkdtemp(prefix="grf-", dir="/tmp")
    try:
        with FakeHost(os.path.join(directory, "host.sock")) as host:
            yield host
    finally:
        shutil.rmtree(directory, ignore_errors=True)
