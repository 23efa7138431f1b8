"""Fixtures of the greenroomctl tests; the harness they use is ctlharness.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ctlharness import FakeHost, FakeWSHost, RealHost, default_behaviour, greenroom_bin  # noqa: E402


@pytest.fixture
def fake():
    hosts: list[FakeHost] = []

    def make(behaviour=default_behaviour, tcp: bool = False) -> FakeHost:
        h = FakeHost(behaviour, tcp=tcp)
        hosts.append(h)
        return h

    yield make
    for h in hosts:
        h.stop()


@pytest.fixture
def real_host():
    host = RealHost(greenroom_bin())
    yield host
    host.stop()


@pytest.fixture
def fake_ws():
    hosts: list[FakeWSHost] = []

    def make(behaviour=default_behaviour, **options) -> FakeWSHost:
        h = FakeWSHost(behaviour, **options)
        hosts.append(h)
        return h

    yield make
    for h in hosts:
        h.stop()
