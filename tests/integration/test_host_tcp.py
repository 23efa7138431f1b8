"""docs/security.md: optional TCP, loopback unless --bind-any (which needs --token-file); host.auth for TCP clients."""

from __future__ import annotations

import json
import os

import pytest
from grhost import assert_error_reply, note, padded_ping, req, write_token


UNAUTHORIZED = -32006


TOKEN = "s3cret-token-0123456789"


def token_host(start_host, tmp_short, *args):
    return start_host("--listen", "tcp:127.0.0.1:0", "--token-file", write_token(tmp_short, TOKEN), *args)


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
    token = write_token(tmp_short, "s3cret-token-0123456789", 0o644)
    err = start_host.fail("--listen", "tcp:127.0.0.1:0", "--token-file", token)
    assert err.returncode != 0, err
    assert token in err.stderr and ("600" in err.stderr or "readable" in err.stderr), err.stderr


def test_tcp_clients_must_authenticate_with_the_token(start_host, tmp_short):
    token = write_token(tmp_short, "s3cret-token-0123456789", 0o600)
    host = start_host("--listen", "tcp:127.0.0.1:0", "--token-file", token)
    c = host.connect_tcp()

    r = c.call("host.ping")
    assert "result" not in r and r["error"]["code"] == UNAUTHORIZED, r
    assert r["error"]["data"]["kind"] == "unauthorized", r
    r = c.call("host.stats")
    assert r["error"]["code"] == UNAUTHORIZED, r

    r = c.call("host.auth", {"token": "wrong"})
    assert r["error"]["code"] == UNAUTHORIZED, r
    r = c.call("host.auth", {"token": "s3cret-token-0123456789-but-longer"})
    assert r["error"]["code"] == UNAUTHORIZED, r
    r = c.call("host.ping")
    assert r["error"]["code"] == UNAUTHORIZED, "a wrong token must not authenticate"

    assert c.result("host.auth", {"token": "s3cret-token-0123456789"}) == {"authenticated": True}
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
    token = write_token(tmp_short, "tok-0123456789abcdef", 0o600)
    host = start_host("--listen", "tcp:127.0.0.1:0", "--bind-any", "--token-file", token)
    c = host.connect_tcp()
    assert c.call("host.ping")["error"]["code"] == UNAUTHORIZED
    c.result("host.auth", {"token": "tok-0123456789abcdef"})
    c.ping()


@pytest.mark.parametrize("spec", ["tcp:nonsense", "tcp:127.0.0.1:99999", "udp:127.0.0.1:1"])
def test_bad_listen_spec_is_refused(start_host, spec):
    err = start_host.fail("--listen", spec)
    assert err.returncode != 0, err
    assert err.stderr.strip(), "a refusal says why"


def test_unauthenticated_messages_are_limited_to_4_kib(start_host, tmp_short):
    host = token_host(start_host, tmp_short)
    assert host.call("host.info")["result"]["limits"]["maxUnauthenticatedMessageBytes"] == 4096
    c = host.connect_tcp()
    c.send_raw(padded_ping(5000, "big") + b"\n")
    err = c.read_json()
    assert err["id"] is None and err["error"]["code"] == -32600, err
    assert err["error"]["data"]["kind"] == "messageTooLarge" and err["error"]["data"]["max"] == 4096, err
    assert c.result("host.auth", {"token": TOKEN}) == {"authenticated": True}
    # Authenticated, the connection gets the host's message limit.
    c.send_raw(padded_ping(5000, "big") + b"\n")
    reply = c.read_json()
    assert reply["id"] == "big" and reply["error"]["data"]["kind"] == "invalidParams", reply  # read and run


def test_unauthenticated_connection_is_refused_after_the_deadline(start_host, tmp_short):
    host = token_host(start_host, tmp_short, "--auth-timeout-ms", "200")
    c = host.connect_tcp()
    lines = c.read_until_closed(timeout=10)
    assert len(lines) == 1, lines
    err = json.loads(lines[0])
    assert err["id"] is None and err["error"]["code"] == UNAUTHORIZED, err
    assert err["error"]["data"]["kind"] == "authTimeout", err
    s = host.stats()
    assert s["connections"]["closedAuthTimeout"] == 1 and s["connections"]["unauthenticated"] == 0, s
    # Authenticating in time is what the deadline asks for.
    ok = host.connect_tcp()
    ok.result("host.auth", {"token": TOKEN})
    ok.ping()


def test_too_many_wrong_tokens_close_the_connection(start_host, tmp_short):
    host = token_host(start_host, tmp_short)
    c = host.connect_tcp()
    left = []
    for _ in range(3):
        err = c.call("host.auth", {"token": "wrong-token-0123456789"})["error"]
        assert err["code"] == UNAUTHORIZED, err
        left.append(err["data"]["triesLeft"])
    assert left == [2, 1, 0]
    c.send(req("host.auth", {"token": TOKEN}))  # too late: the host runs nothing more
    assert c.read_until_closed(timeout=10) == []
    assert host.stats()["connections"]["closedAuthFailures"] == 1


def test_unauthenticated_connections_have_their_own_share(start_host, tmp_short):
    """With --max-connections 4 the unauthenticated share is 2: idle TCP peers can never take the slots
    of Unix or authenticated clients."""
    host = token_host(start_host, tmp_short, "--max-connections", "4")
    idle = [host.connect_tcp(), host.connect_tcp()]
    for c in idle:
        assert c.call("host.ping")["error"]["code"] == UNAUTHORIZED  # admitted, not authenticated
    third = host.connect_tcp()
    lines = third.read_until_closed(timeout=10)
    assert len(lines) == 1 and json.loads(lines[0])["error"]["data"]["limit"] == "unauthenticatedConnections", lines
    unix = host.connect()
    unix.ping()
    # Authenticating moves a connection out of the share: a new TCP peer fits again.
    idle[0].result("host.auth", {"token": TOKEN})
    fourth = host.connect_tcp()
    fourth.result("host.auth", {"token": TOKEN})
    fourth.ping()
    s = host.stats(unix)["connections"]
    assert s["rejectedUnauthenticated"] == 1 and s["unauthenticated"] == 1, s


def test_input_budget_refuses_the_connection_holding_the_most(start_host):
    host = start_host("--max-buffered-input-bytes", "100000")
    big, mid, small = host.connect(), host.connect(), host.connect()
    big.send_raw(padded_ping(60_000, "big"))
    mid_line = padded_ping(30_000, "mid")
    mid.send_raw(mid_line[:20_000])
    host.wait_stats(lambda s: s["connections"]["bufferedInputBytes"] == 80_000)
    small.send_raw(padded_ping(25_000, "small"))  # 105,000 bytes held: past the budget
    lines = big.read_until_closed(timeout=10)
    assert len(lines) == 1, lines
    err = json.loads(lines[0])["error"]
    assert err["code"] == -32005 and err["data"]["limit"] == "bufferedInputBytes", err
    mid.send_raw(mid_line[20_000:] + b"\n")
    assert mid.read_json()["id"] == "mid"
    small.send_raw(b"\n")
    assert small.read_json()["id"] == "small"
    s = host.stats(small)["connections"]
    assert s["refusedInputBudget"] == 1 and s["bufferedInputBytes"] == 0, s


def test_token_file_that_is_a_symlink_is_refused(start_host, tmp_short):
    real = write_token(tmp_short, TOKEN)
    link = os.path.join(tmp_short, "link")
    os.symlink(real, link)
    err = start_host.fail("--listen", "tcp:127.0.0.1:0", "--token-file", link)
    assert err.returncode == 2 and "symbolic link" in err.stderr, err


def test_token_shorter_than_16_bytes_is_refused(start_host, tmp_short):
    err = start_host.fail("--listen", "tcp:127.0.0.1:0", "--token-file", write_token(tmp_short, "x" * 15))
    assert err.returncode == 2 and "shorter than the 16" in err.stderr, err


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_token_file_owned_by_another_user_is_refused(start_host, tmp_short):
    path = write_token(tmp_short, TOKEN)
    os.chown(path, 65534, 65534)
    err = start_host.fail("--listen", "tcp:127.0.0.1:0", "--token-file", path)
    assert err.returncode == 2 and "belongs to uid 65534" in err.stderr, err


def test_tcp_notification_before_auth_gets_no_reply_and_a_batch_can_authenticate_first(start_host, tmp_short):
    token = write_token(tmp_short, "tok-0123456789abcdef")
    host = start_host("--listen", "tcp:127.0.0.1:0", "--token-file", token)
    c = host.connect_tcp()
    c.send(note("host.ping"))
    c.send(note("classes.define", {"name": "Sneaky"}))
    r = c.call("host.ping")
    assert_error_reply(r, -32006, kind="unauthorized")
    c.send([req("host.auth", {"token": "tok-0123456789abcdef"}, id=1), req("host.ping", id=2)])
    r = c.read_json()
    assert r == [{"jsonrpc": "2.0", "id": 1, "result": {"authenticated": True}},
                 {"jsonrpc": "2.0", "id": 2, "result": {"pong": True}}], r
    names = [k["name"] for k in c.result("classes.list")["classes"]]
    assert "Sneaky" not in names, "an unauthenticated notification took effect"
