"""docs/security.md: where the socket lives, who may touch it, and that a live one is never stolen."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import stat

import pytest
from grhost import LineConn, base_env


def mode(path: str) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def long_path(base: str, total: int) -> str:
    """A path of exactly `total` bytes: BASE/ddd.../host.sock (one directory, created)."""
    name = "host.sock"
    seg = total - len(base) - 2 - len(name)
    assert 1 <= seg <= 255, seg
    d = os.path.join(base, "d" * seg)
    os.makedirs(d, 0o700, exist_ok=True)
    p = os.path.join(d, name)
    assert len(p.encode()) == total, (len(p), total, p)
    return p


def test_default_socket_under_xdg_runtime_dir(start_host, tmp_short):
    env = base_env(tmp_short)
    host = start_host(env=env, auto_socket=False)
    expected = os.path.join(tmp_short, "greenroom", "host.sock")
    assert host.listen == [f"unix:{expected}"], host.listen
    assert stat.S_ISDIR(os.lstat(os.path.dirname(expected)).st_mode)
    assert mode(os.path.dirname(expected)) == 0o700
    assert stat.S_ISSOCK(os.lstat(expected).st_mode)
    assert mode(expected) == 0o600
    c = host.connect()
    assert c.result("host.info")["listen"] == [f"unix:{expected}"]
    c.ping()


def test_default_socket_dir_with_mode_0755_is_refused(start_host, tmp_short):
    d = os.path.join(tmp_short, "greenroom")
    os.mkdir(d)
    os.chmod(d, 0o755)
    err = start_host.fail(env=base_env(tmp_short), auto_socket=False)
    assert err.returncode == 2, err
    assert d in err.stderr and ("0700" in err.stderr or "accessible" in err.stderr), err.stderr
    assert mode(d) == 0o755, "the host must refuse, not silently fix or reuse the directory"
    assert os.listdir(d) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to create a directory owned by another uid")
def test_default_socket_dir_owned_by_someone_else_is_refused(start_host, tmp_short):
    d = os.path.join(tmp_short, "greenroom")
    os.mkdir(d, 0o700)
    os.chown(d, 65534, 65534)
    err = start_host.fail(env=base_env(tmp_short), auto_socket=False)
    assert err.returncode == 2, err
    assert "belongs to uid 65534" in err.stderr or "not to us" in err.stderr, err.stderr


def test_default_socket_dir_that_is_a_symlink_is_refused(start_host, tmp_short):
    real = os.path.join(tmp_short, "elsewhere")
    os.mkdir(real, 0o700)
    os.symlink(real, os.path.join(tmp_short, "greenroom"))
    err = start_host.fail(env=base_env(tmp_short), auto_socket=False)
    assert err.returncode == 2, err
    assert os.listdir(real) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="runs the host as uid 65534 so as never to touch this user's "
                    "real /tmp/greenroom-$UID; that needs root")
def test_default_socket_without_xdg_is_tmp_greenroom_uid(start_host):
    """With XDG_RUNTIME_DIR unset: /tmp/greenroom-$UID/host.sock. Run as uid 65534 (nobody), whose
    default path no live host of ours uses; skipped if that directory already exists."""
    uid = 65534
    d = f"/tmp/greenroom-{uid}"
    if os.path.lexists(d):
        pytest.skip(f"{d} already exists (another host may own it); not touching it")
    env = base_env()
    env.pop("XDG_RUNTIME_DIR", None)
    try:
        host = start_host(env=env, auto_socket=False, user=uid)
        assert host.listen == [f"unix:{d}/host.sock"], host.listen
        st = os.lstat(d)
        assert st.st_uid == uid and stat.S_IMODE(st.st_mode) == 0o700
        sock = os.lstat(f"{d}/host.sock")
        assert sock.st_uid == uid and stat.S_IMODE(sock.st_mode) == 0o600
        assert host.stop() == 0
        assert not os.path.exists(f"{d}/host.sock")
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_live_socket_is_never_stolen(start_host, tmp_short):
    path = os.path.join(tmp_short, "h.sock")
    first = start_host("--socket", path)
    assert mode(path) == 0o600, "the socket is 0600 wherever it is"
    c = first.connect()
    err = start_host.fail("--socket", path)
    assert err.returncode == 2, err
    assert "another greenroom host" in err.stderr, err.stderr
    assert str(first.pid) in err.stderr, "the refusal names the live host's pid"
    c.ping()
    first.call("host.ping")
    assert stat.S_ISSOCK(os.lstat(path).st_mode)
    assert os.path.exists(path + ".lock")


def test_live_socket_never_stolen_even_without_its_lock_file(start_host, tmp_short):
    """docs/security.md "a live socket is never stolen". Lock files under /tmp get removed by tmp cleaners
    (and by hand); a live host still answers on the socket, so a second host must not unlink it."""
    path = os.path.join(tmp_short, "h.sock")
    first = start_host("--socket", path)
    os.unlink(path + ".lock")
    try:
        second = start_host("--socket", path)
    except Exception as e:  # noqa: BLE001 - a refusal is the right outcome
        assert getattr(e, "returncode", None) == 2, e
    else:
        second.stop()
        pytest.fail("a second host took over the socket of a live host (whose .lock file was removed)")
    fresh = LineConn.unix(path)
    try:
        assert fresh.result("host.info")["pid"] == first.pid
    finally:
        fresh.close()


def test_stale_socket_after_kill_9_is_replaced(start_host, tmp_short):
    path = os.path.join(tmp_short, "h.sock")
    first = start_host("--socket", path)
    first.proc.send_signal(signal.SIGKILL)
    first.wait(10)
    assert stat.S_ISSOCK(os.lstat(path).st_mode), "kill -9 leaves the socket behind"
    second = start_host("--socket", path)
    assert second.pid != first.pid
    c = second.connect()
    c.ping()
    assert c.result("host.info")["pid"] == second.pid


def test_stale_socket_without_lock_file_is_replaced(start_host, tmp_short):
    path = os.path.join(tmp_short, "h.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.close()
    assert stat.S_ISSOCK(os.lstat(path).st_mode)
    host = start_host("--socket", path)
    host.connect().ping()


def test_regular_file_at_socket_path_is_not_removed(start_host, tmp_short):
    path = os.path.join(tmp_short, "h.sock")
    with open(path, "w") as f:
        f.write("precious\n")
    err = start_host.fail("--socket", path)
    assert err.returncode == 2, err
    assert "not a socket" in err.stderr, err.stderr
    with open(path) as f:
        assert f.read() == "precious\n"


def test_directory_at_socket_path_is_not_removed(start_host, tmp_short):
    path = os.path.join(tmp_short, "h.sock")
    os.mkdir(path)
    err = start_host.fail("--socket", path)
    assert err.returncode == 2, err
    assert os.path.isdir(path)


def test_socket_path_too_long_for_sun_path_is_an_error(start_host, tmp_short):
    for total in (108, 150):
        path = long_path(tmp_short, total)
        err = start_host.fail("--socket", path)
        assert err.returncode == 2, err
        assert "sun_path" in err.stderr, err.stderr
        d = os.path.dirname(path)
        assert [f for f in os.listdir(d) if f.endswith(".sock")] == [], "nothing was bound"
        # Nothing was bound at a truncated path either.
        truncated = path.encode()[:107].decode()
        assert not os.path.exists(truncated)


def test_socket_path_of_107_bytes_fits(start_host, tmp_short):
    path = long_path(tmp_short, 107)
    host = start_host("--socket", path)
    assert host.listen == [f"unix:{path}"]
    host.connect().ping()


def test_lock_file_with_a_second_hard_link_is_refused(start_host, tmp_short):
    """A hard link is another name for a file elsewhere: the host would truncate and rewrite it."""
    path = os.path.join(tmp_short, "h.sock")
    elsewhere = os.path.join(tmp_short, "precious")
    with open(elsewhere, "w") as f:
        f.write("precious\n")
    os.link(elsewhere, path + ".lock")
    err = start_host.fail("--socket", path)
    assert err.returncode == 2, err
    assert "hard link" in err.stderr, err.stderr
    with open(elsewhere) as f:
        assert f.read() == "precious\n"
    assert not os.path.exists(path)


@pytest.mark.parametrize("occupant", ["file", "directory"])
def test_refused_start_leaves_no_lock_file(start_host, tmp_short, occupant):
    path = os.path.join(tmp_short, "h.sock")
    if occupant == "file":
        with open(path, "w") as f:
            f.write("precious\n")
    else:
        os.mkdir(path)
    err = start_host.fail("--socket", path)
    assert err.returncode == 2, err
    assert not os.path.exists(path + ".lock"), "a refused start-up left its lock file behind"


def test_refused_tcp_listener_leaves_no_socket_or_lock_file(start_host, tmp_short):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    try:
        path = os.path.join(tmp_short, "h.sock")
        err = start_host.fail("--socket", path, "--listen", f"tcp:127.0.0.1:{busy.getsockname()[1]}")
        assert err.returncode == 2, err
        assert not os.path.exists(path) and not os.path.exists(path + ".lock"), os.listdir(tmp_short)
    finally:
        busy.close()


def test_default_socket_is_0600_in_a_0700_dir_even_with_umask_0(start_host, tmp_short):
    old = os.umask(0)
    try:
        host = start_host(env=base_env(tmp_short), auto_socket=False)
    finally:
        os.umask(old)
    d = os.path.join(tmp_short, "greenroom")
    assert stat.S_IMODE(os.lstat(d).st_mode) == 0o700
    assert stat.S_IMODE(os.lstat(os.path.join(d, "host.sock")).st_mode) == 0o600
    host.connect().ping()


def test_explicit_socket_is_0600_even_with_umask_0(start_host, tmp_short):
    path = os.path.join(tmp_short, "x.sock")
    old = os.umask(0)
    try:
        host = start_host("--socket", path)
    finally:
        os.umask(old)
    assert stat.S_ISSOCK(os.lstat(path).st_mode)
    assert stat.S_IMODE(os.lstat(path).st_mode) == 0o600
    host.connect().ping()


def test_a_lock_file_that_is_a_symlink_is_refused_and_its_target_untouched(start_host, tmp_short):
    """README "Sockets and security": the host truncates and rewrites its lock file (`host.sock.lock`). In a
    shared directory a lock file planted as a symlink must not make it overwrite the file it points to."""
    precious = os.path.join(tmp_short, "precious.txt")
    with open(precious, "w") as f:
        f.write("keep me\n")
    path = os.path.join(tmp_short, "h.sock")
    os.symlink(precious, path + ".lock")
    err = start_host.fail("--socket", path)
    assert err.returncode == 2 and "lock file" in err.stderr, err
    with open(precious) as f:
        assert f.read() == "keep me\n"
    assert not os.path.lexists(path)


def test_a_lock_file_that_is_a_directory_is_refused(start_host, tmp_short):
    path = os.path.join(tmp_short, "h.sock")
    os.mkdir(path + ".lock")
    err = start_host.fail("--socket", path)
    assert err.returncode == 2 and "lock file" in err.stderr, err
    assert os.path.isdir(path + ".lock")
