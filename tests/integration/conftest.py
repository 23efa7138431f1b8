"""Fixtures for the host's integration tests (the real `greenroom serve` over its sockets).

- `greenroom_bin`: GREENROOM_BIN, else the repo's .build/debug/greenroom; a clear failure if missing.
- `start_host(*args, env=None, auto_socket=True, user=None)`: runs `BIN serve ARGS`, waits (bounded)
  for the ready line and returns a `grhost.Host`; raises `grhost.HostStartError` (exit code, stderr)
  if the host exits instead. `start_host.fail(*args, ...)` expects a refusal and returns that error.
  Every host is stopped at teardown (SIGTERM, wait, SIGKILL if needed).
- `tmp_short`: a short private directory under /tmp (sun_path is 108 bytes), removed afterwards.
- `host`: a default host on a temp socket; `vhost`: one with a virtual clock.
- `rc`: a range connection (`rangemodel.RC`, subscribed to range, prefetch and batch events) on `vhost`.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import grhost  # noqa: E402
from rangemodel import RC  # noqa: E402


@pytest.fixture(scope="session")
def greenroom_bin() -> str:
    try:
        return grhost.find_bin()
    except FileNotFoundError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture
def start_host(greenroom_bin):
    factory = grhost.HostFactory(greenroom_bin)

    def start(*args, env=None, auto_socket=True, user=None, timeout=grhost.START_TIMEOUT):
        return factory.start(*args, env=env, auto_socket=auto_socket, user=user, timeout=timeout)

    def fail(*args, env=None, auto_socket=True, user=None, timeout=grhost.START_TIMEOUT):
        return factory.fail(*args, env=env, auto_socket=auto_socket, user=user, timeout=timeout)

    start.fail = fail
    start.factory = factory
    start.bin = greenroom_bin
    try:
        yield start
    finally:
        factory.teardown()


@pytest.fixture
def tmp_short():
    d = grhost.short_tmpdir("grt-")
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def host(start_host) -> grhost.Host:
    return start_host()


@pytest.fixture
def vhost(start_host) -> grhost.Host:
    """A host with a virtual clock: time moves only on clock.advance, idle tasks run only on tasks.drain."""
    return start_host("--clock", "virtual")


@pytest.fixture
def rc(vhost) -> RC:
    """A range connection on `vhost`: `call` returns (result, the events the call caused)."""
    return RC(vhost.connect())
