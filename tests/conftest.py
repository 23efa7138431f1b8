"""Fixtures shared by tests/schema and tests/integration.

`schema_host` (one per test module): a `greenroom serve --clock virtual` with the Crashy example plugin, for the
tests that check the host against rpc-schema/openrpc.json (their helpers are in tests/integration/openrpcdoc.py);
at teardown it must exit 0 on SIGTERM and leave no socket behind. `conn`: a raw connection to it
(openrpcdoc.Conn) that keeps the notifications it reads.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "integration"))

from openrpcdoc import Conn, Host  # noqa: E402


@pytest.fixture(scope="module")
def schema_host() -> Iterator[Host]:
    host = Host()
    try:
        yield host
        # Teardown: SIGTERM is a graceful shutdown that exits 0 and removes the socket.
        host.proc.send_signal(signal.SIGTERM)
        code = host.wait_exit()
        assert code == 0, f"host exited {code} on SIGTERM; stderr: {host.stderr_text()}"
        assert not os.path.exists(host.socket), "the host left its socket behind"
    finally:
        host.cleanup()


@pytest.fixture
def conn(schema_host: Host) -> Iterator[Conn]:
    c = schema_host.connect()
    yield c
    c.close()
