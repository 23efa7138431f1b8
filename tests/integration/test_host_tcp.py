"""docs/security.md: optional TCP, loopback unless --bind-any (which needs --token-file); host.auth for TCP clients."""

from __future__ import annotations

import pytest
from grhost import write_token

UNAUTHORIZED = -32006




def test_tcp_listener_reports_its_port_and_answers(start_host):
    host = start_host("--listen", "tcp:127.0.0.1:0")
    tcp = [a for a in host.listen if a.startswith("tcp:")]
    assert len(tcp) == 1 and host.listen[0].startswith("unix:"), host.listen
    h, port = host.tcp_address
    assert h == "127.0.0.1" and 0 < port < 65536, host.listen
    c = host.connect_tcp()
    c.ping()  # no token: loopback TCP needs no auth
    assert c.result("host.info")["listen"] == host.listen
    host.connect().ping()


def test_non_loopback_without_bind_any_is_refused(start_host):
    err = start_host.fail("--listen", "tcp:0.0.0.0:0")
    assert err.returncode == 2, err
    assert "--bind-any" in err.stderr, err.stderr


def test_bind_any_without_token_file_is_refused(start_host):
    err = start_host.fail("--listen", "tcp:0.0.0.0:0", "--bind-any")
    assert err.returncode == 2, err
    assert "--token-file" in err.stderr, err.stderr


def test_token_file_readable_by_others_is_refused(start_host, tmp_short):
    token = write_token(tmp_short, "s3cret-token", 0o644)
    err = start_host.fail("--listen", "tcp:127.0.0.1:0", "--token-file", token)
    assert err.returncode != 0, err
    assert token in err.stderr and ("600" in err.stderr or "readable" in err.stderr), err.stderr


def test_tcp_clients_must_authenticate_with_the_token(start_host, tmp_short):
    token = write_token(tmp_short, "s3cret-token", 0o600)
    host = start_host("--listen", "tcp:127.0.0.1:0", "--token-file", token)
    c = host.connect_tcp()

    r = c.call("host.ping")
    assert "result" not in r and r["error"]["code"] == UNAUTHORIZED, r
    assert r["error"]["data"]["kind"] == "unauthorized", r
    r = c.call("host.stats")
    assert r["error"]["code"] == UNAUTHORIZED, r

    r = c.call("host.auth", {"token": "wrong"})
    assert r["error"]["code"] == UNAUTHORIZED, r
    r = c.call("host.auth", {"token": "s3cret-token-but-longer"})
    assert r["error"]["code"] == UNAUTHORIZED, r
    r = c.call("host.ping")
    assert r["error"]["code"] == UNAUTHORIZED, "a wrong token must not authenticate"

    assert c.result("host.auth", {"token": "s3cret-token"}) == {"authenticated": True}
    c.ping()
    c.result("host.info")

    # Each TCP connection authenticates on its own.
    other = host.connect_tcp()
    assert other.call("host.ping")["error"]["code"] == UNAUTHORIZED
    # Batches are gated per entry too.
    other.send([{"jsonrpc": "2.0", "id": 1, "method": "host.ping"}])
    replies = other.read_json()
    assert replies[0]["error"]["code"] == UNAUTHORIZED, replies

    # Unix clients of the same host need no auth.
    u = host.connect()
    u.ping()


def test_bind_any_with_token_accepts_authenticated_loopback_clients(start_host, tmp_short):
    token = write_token(tmp_short, "tok", 0o600)
    host = start_host("--listen", "tcp:127.0.0.1:0", "--bind-any", "--token-file", token)
    c = host.connect_tcp()
    assert c.call("host.ping")["error"]["code"] == UNAUTHORIZED
    c.result("host.auth", {"token": "tok"})
    c.ping()


@pytest.mark.parametrize("spec", ["tcp:nonsense", "tcp:127.0.0.1:99999", "udp:127.0.0.1:1"])
def test_bad_listen_spec_is_refused(start_host, spec):
    err = start_host.fail("--listen", spec)
    assert err.returncode != 0, err
    assert err.stderr.strip(), "a refusal says why"
