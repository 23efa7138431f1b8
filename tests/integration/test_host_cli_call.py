"""`greenroom call METHOD [JSON]`: 0 + result on stdout, 2 + error JSON on stderr, 1 when unreachable."""

from __future__ import annotations

import json
import os
import subprocess

from grhost import base_env, write_token


def call(bin_path: str, *args, env=None, timeout=15) -> subprocess.CompletedProcess:
    return subprocess.run([bin_path, "call", *args], capture_output=True, text=True, env=env,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def test_call_ping(start_host, host):
    r = call(start_host.bin, "host.ping", "--socket", host.socket_path, env=base_env(host.tmpdir))
    assert r.returncode == 0, r
    assert json.loads(r.stdout) == {"pong": True}, r


def test_call_with_params(start_host, host):
    r = call(start_host.bin, "host.memoryWarning", '{"level":"critical"}', "--socket", host.socket_path,
             env=base_env(host.tmpdir))
    assert r.returncode == 0, r
    assert json.loads(r.stdout)["level"] == "critical"


def test_call_unknown_method_exits_2_with_error_on_stderr(start_host, host):
    r = call(start_host.bin, "no.such.method", "--socket", host.socket_path, env=base_env(host.tmpdir))
    assert r.returncode == 2, r
    assert r.stdout == "", r
    err = json.loads(r.stderr.strip().splitlines()[-1])
    assert err["code"] == -32601, err


def test_call_invalid_params_exits_2(start_host, host):
    r = call(start_host.bin, "host.memoryWarning", '{"level":"apocalyptic"}', "--socket", host.socket_path,
             env=base_env(host.tmpdir))
    assert r.returncode == 2, r
    assert json.loads(r.stderr.strip().splitlines()[-1])["code"] == -32602


def test_call_without_a_host_exits_1(start_host, tmp_short):
    r = call(start_host.bin, "host.ping", "--socket", os.path.join(tmp_short, "nobody-here.sock"),
             env=base_env(tmp_short))
    assert r.returncode == 1, r
    assert r.stdout == "" and r.stderr.strip(), r


def test_call_honours_greenroom_socket(start_host, host, tmp_short):
    env = base_env(tmp_short)  # XDG default points at an empty dir: only GREENROOM_SOCKET can work
    env["GREENROOM_SOCKET"] = host.socket_path
    r = call(start_host.bin, "host.info", env=env)
    assert r.returncode == 0, r
    assert json.loads(r.stdout)["listen"] == host.listen
    env["GREENROOM_SOCKET"] = os.path.join(tmp_short, "nope.sock")
    r = call(start_host.bin, "host.ping", env=env)
    assert r.returncode == 1, r


def test_call_uses_the_default_socket(start_host, tmp_short):
    env = base_env(tmp_short)
    host = start_host(env=env, auto_socket=False)
    r = call(start_host.bin, "host.ping", env=env)
    assert r.returncode == 0, (r, host.listen)
    assert json.loads(r.stdout) == {"pong": True}


def test_call_over_tcp_with_token(start_host, tmp_short):
    token = write_token(tmp_short, "t0k-0123456789abcdef")
    host = start_host("--listen", "tcp:127.0.0.1:0", "--token-file", token)
    h, port = host.tcp_address
    r = call(start_host.bin, "host.ping", "--tcp", f"{h}:{port}", env=base_env(tmp_short))
    assert r.returncode == 2 and json.loads(r.stderr.strip().splitlines()[-1])["code"] == -32006, r
    r = call(start_host.bin, "host.ping", "--tcp", f"{h}:{port}", "--token-file", token, env=base_env(tmp_short))
    assert r.returncode == 0 and json.loads(r.stdout) == {"pong": True}, r


def test_call_with_params_that_are_not_json_says_where_in_plain_words(start_host, tmp_short):
    r = call(start_host.bin, "host.ping", "{bad", "--socket", os.path.join(tmp_short, "unused.sock"),
             env=base_env(tmp_short))
    assert r.returncode == 64, r
    message = r.stderr.strip()
    assert message.startswith("greenroom call: params are not JSON: "), message
    assert "line 1, column" in message, message
    # Not a Swift enum dump such as `syntax(message: "...", line: 1, ...)`.
    assert "syntax(" not in message and "message:" not in message, message


def test_serve_honours_greenroom_socket_as_every_client_does(start_host, tmp_short):
    path = os.path.join(tmp_short, "from-env.sock")
    env = base_env(tmp_short)
    env["GREENROOM_SOCKET"] = path
    h = start_host(env=env, auto_socket=False)
    assert h.listen == [f"unix:{path}"], h.listen
    r = call(start_host.bin, "host.ping", env=env)
    assert r.returncode == 0 and json.loads(r.stdout) == {"pong": True}, r
    # --socket still wins over the environment.
    other = os.path.join(tmp_short, "from-flag.sock")
    h2 = start_host("--socket", other, env=env, auto_socket=False)
    assert h2.listen == [f"unix:{other}"], h2.listen


def test_version_names_the_release_and_protocol(start_host, host):
    r = subprocess.run([start_host.bin, "--version"], capture_output=True, text=True, timeout=15)
    assert r.returncode == 0, r
    info = host.call("host.info")["result"]
    assert r.stdout.strip() == f"greenroom {info['version']} (protocol {info['protocol']['version']})", r


def test_greenroom_call_exit_codes(start_host):
    host = start_host("--clock", "virtual")
    env = base_env(host.tmpdir)

    def call(*args):
        return subprocess.run([start_host.bin, "call", *args, "--socket", host.socket_path], capture_output=True,
                              text=True, env=env, timeout=15, stdin=subprocess.DEVNULL)

    r = call("clock.advance", '{"ms": 5}')
    assert r.returncode == 0 and json.loads(r.stdout) == {"now": 5.0, "ms": 5.0, "fired": 0}, r
    r = call("clock.advance", "[2.5]")
    assert r.returncode == 0 and json.loads(r.stdout)["ms"] == 7.5, r
    r = call("host.ping", "5")  # params that are not structured: the host answers -32600
    assert r.returncode == 2 and r.stdout == "", r
    assert json.loads(r.stderr.strip().splitlines()[-1])["code"] == -32600, r
    r = call("container.info", '{"container": "c-1"}')
    assert r.returncode == 2 and json.loads(r.stderr.strip().splitlines()[-1])["code"] == -32002, r
