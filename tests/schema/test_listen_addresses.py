"""Listener addresses against rpc-schema/openrpc.json: `host.info`'s `listen` and the ready line's.

The schema fuzz found `host.info` answering `ws:127.0.0.1:PORT` where the document allowed only `unix:` and `tcp:`
addresses. A host with every kind of listener is started here, and both places that print the addresses (the ready
line on stdout, `host.info`) are checked against HostInfo's `listen` schema, and against each other.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from greenroom import testing
from openrpcdoc import Conn, TIMEOUT, binary, check, pointer

LISTEN = pointer("components", "schemas", "HostInfo", "properties", "listen")


@pytest.fixture
def every_listener() -> testing.HostProcess:
    d = tempfile.mkdtemp(prefix="grl-", dir="/tmp")
    try:
        host = testing.HostProcess.start(
            ["--listen", "tcp:127.0.0.1:0", "--listen", "ws:127.0.0.1:0"], binary=str(binary()), clock="virtual",
            socket=os.path.join(d, "h.sock"), directory=d, stderr=os.path.join(d, "stderr"), ready_timeout=TIMEOUT)
    except testing.HostStartError as error:
        shutil.rmtree(d, ignore_errors=True)
        pytest.fail(f"the host did not start: {error}", pytrace=False)
    try:
        yield host
    finally:
        host.stop()
        shutil.rmtree(d, ignore_errors=True)


def test_ready_line_and_host_info_list_every_listener_on_the_schema(every_listener: testing.HostProcess) -> None:
    ready = every_listener.ready["listen"]
    assert sorted(a.split(":", 1)[0] for a in ready) == ["tcp", "unix", "ws"], ready
    check(LISTEN, ready, "the ready line's listen")
    c = Conn(every_listener.socket)
    try:
        info = c.call("host.info")
    finally:
        c.close()
    check(LISTEN, info["listen"], "host.info listen")
    assert info["listen"] == ready, "host.info lists the addresses the ready line printed"


def test_the_listen_schema_refuses_other_schemes() -> None:
    # The pattern is a real check, not a catch-all: an address of no scheme the host has is refused.
    for bad in (["http:127.0.0.1:80"], ["127.0.0.1:7000"], ["wss:127.0.0.1:1"]):
        with pytest.raises(pytest.fail.Exception):
            check(LISTEN, bad, "an address of another scheme")
