"""Structured logs on stderr (swift-log): quiet by default beyond warnings, `--log-level` to see more, and
never a token or a message body."""

from __future__ import annotations


def test_default_level_logs_nothing_on_a_normal_run(start_host):
    h = start_host()
    assert h.call("host.ping")["result"] == {"pong": True}
    h.stop()
    assert h.stderr_text() == "", h.stderr_text()


def test_info_level_logs_the_listeners(start_host):
    h = start_host("--log-level", "info")
    h.call("host.ping")
    text = h.stderr_text()
    line = next((ln for ln in text.splitlines() if "listening" in ln), None)
    assert line is not None, text
    assert " info " in line and "greenroom" in line and h.socket_path in line, line


def test_a_bad_log_level_is_a_usage_error(start_host):
    err = start_host.fail("--log-level", "chatty")
    assert err.returncode == 64 and "--log-level must be one of" in err.stderr, err


def _wait_for_log(h, needle: str, timeout: float = 5.0) -> str:
    import time
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = h.stderr_text()
        if needle in text:
            return text
        time.sleep(0.02)  # polling a file the host writes, bounded by the deadline
    raise AssertionError(f"{needle!r} not logged:\n{h.stderr_text()}")


def test_info_logs_each_connection_opened_and_closed_with_its_peer(start_host):
    import os
    h = start_host("--log-level", "info")
    c = h.connect()
    assert c.result("host.ping") == {"pong": True}
    c.close()
    text = _wait_for_log(h, "connection closed")
    opened = [ln for ln in text.splitlines() if "connection opened" in ln]
    assert len(opened) == 1, text
    assert f"uid={os.getuid()}" in opened[0] and "transport=unix" in opened[0], opened[0]
    closed = [ln for ln in text.splitlines() if "connection closed" in ln]
    assert "reason=" in closed[0] and "connection=conn-" in closed[0], closed[0]


def test_refusals_are_warnings_with_a_reason_and_never_show_the_token(start_host, tmp_short):
    from grhost import write_token
    secret = "s3cret-token-0123456789abcdef"
    h = start_host("--listen", "tcp:127.0.0.1:0", "--token-file", write_token(tmp_short, secret))
    c = h.connect_tcp()
    reply = c.call("host.auth", {"token": "wrong-token-0123456789"})
    assert reply["error"]["code"] == -32006, reply
    reply = c.call("host.auth", {"token": secret})
    assert reply["result"] == {"authenticated": True}, reply
    text = _wait_for_log(h, "wrong token")
    line = next(ln for ln in text.splitlines() if "wrong token" in ln)
    assert " warning " in line and "triesLeft=2" in line and "connection=conn-" in line, line
    # Default level (warning): connection lines are not there, and no token ever is.
    assert "connection opened" not in text, text
    assert secret not in text and "wrong-token-0123456789" not in text, text


def test_a_refused_connection_is_logged_with_its_reason_and_peer(start_host):
    h = start_host("--max-connections", "1", "--log-level", "warning")
    first = h.connect()
    assert first.result("host.ping") == {"pong": True}
    _refused = h.connect()  # noqa: F841 (held open while the host logs the refusal)
    text = _wait_for_log(h, "refused a connection")
    line = next(ln for ln in text.splitlines() if "refused a connection" in ln)
    assert "connection limit (1) reached" in line and "peer=uid=" in line, line


def test_a_failing_hook_is_logged_as_a_warning_with_its_container(start_host):
    h = start_host("--clock", "virtual")
    c = h.connect()
    c.result("classes.define", {"name": "Fails", "hooks": {"configure": {"fail": True}}})
    cid = c.result("container.create", {"class": "Fails"})["container"]
    assert c.call("container.configure", {"container": cid, "data": {}})["error"]["code"] == -32004
    text = _wait_for_log(h, "hook failed")
    line = next(ln for ln in text.splitlines() if "hook failed" in ln)
    assert " warning " in line and f"container={cid}" in line and "hook=configure" in line, line
