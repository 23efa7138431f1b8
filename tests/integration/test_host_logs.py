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
