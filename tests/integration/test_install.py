"""`make install` (PREFIX, DESTDIR) puts the host, greenroomctl, the example plugins, the plugin header,
shell completions and man pages where a user expects them, and what it installed works."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import grhost
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(greenroom_bin, tmp_path_factory):
    # The tests run on a build `make test` made (release, or debug with TEST_CONFIG=debug): CONFIG installs
    # that one instead of building another first.
    config = Path(greenroom_bin).parent.name
    if Path(greenroom_bin).parent != ROOT / ".build" / config or config not in ("debug", "release"):
        pytest.skip("GREENROOM_BIN is not this checkout's debug or release build")
    dest = tmp_path_factory.mktemp("destdir")
    done = subprocess.run(["make", "-s", "install-files", f"CONFIG={config}", f"DESTDIR={dest}", "PREFIX=/usr"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    return dest / "usr"


def test_install_puts_each_file_where_a_user_expects_it(installed):
    expected = [
        "bin/greenroom", "bin/greenroom-host", "bin/greenroomctl",
        "lib/greenroom/plugins/libArticlePlugin.so", "lib/greenroom/plugins/libCounterPlugin.so",
        "lib/greenroom/plugins/libCrashyPlugin.so", "lib/greenroom/wsbridge.py",
        "include/greenroom_plugin.h",
        "share/man/man1/greenroom.1", "share/man/man1/greenroom.serve.1", "share/man/man1/greenroom.call.1",
        "share/bash-completion/completions/greenroom", "share/zsh/site-functions/_greenroom",
        "share/fish/vendor_completions.d/greenroom.fish",
    ]
    missing = [p for p in expected if not (installed / p).is_file()]
    assert not missing, missing
    for exe in ("bin/greenroom", "bin/greenroom-host", "bin/greenroomctl"):
        assert os.access(installed / exe, os.X_OK), exe
    # Test fixtures and bench internals are not installed.
    assert not list(installed.glob("lib/greenroom/plugins/*BadABI*"))
    assert not (installed / "share/man/man1/greenroom.echo-server.1").exists()


def test_installed_man_pages_and_completions_describe_the_commands(installed):
    page = (installed / "share/man/man1/greenroom.serve.1").read_text()
    assert ".Dt GREENROOM.SERVE 1" in page and "plugin" in page  # mdoc(7)
    bash = (installed / "share/bash-completion/completions/greenroom").read_text()
    assert "serve" in bash and "call" in bash and "complete" in bash
    assert "#compdef greenroom" in (installed / "share/zsh/site-functions/_greenroom").read_text()


def test_installed_host_runs_and_loads_an_installed_plugin(installed):
    version = subprocess.run([installed / "bin/greenroom", "--version"], capture_output=True, text=True, timeout=15)
    assert version.returncode == 0 and version.stdout.startswith("greenroom "), version
    plugin = installed / "lib/greenroom/plugins/libCounterPlugin.so"
    factory = grhost.HostFactory(str(installed / "bin/greenroom"))
    try:
        host = factory.start("--clock", "virtual", "--plugin", str(plugin))
        classes = {c["name"]: c for c in host.call("classes.list")["result"]["classes"]}
        assert classes["Counter"]["plugin"] == "counter", classes
        # The installed serve runs the host in the installed greenroom-host.
        assert os.readlink(f"/proc/{host.process.pid}/exe") == str(installed / "bin/greenroom-host")
    finally:
        factory.teardown()


def test_installed_greenroomctl_reaches_the_host(installed, host):
    if shutil.which("socat") is None:
        pytest.fail("socat is not installed (scripts/install-deps.sh installs it)")
    done = subprocess.run([installed / "bin/greenroomctl", "--socket", host.socket_path, "ping"],
                          capture_output=True, text=True, timeout=15, stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and done.stdout.strip() == '{"pong":true}', done


def test_installed_greenroomctl_reaches_a_websocket_listener(installed, start_host):
    """--ws runs the bridge `make install` put in lib/greenroom/, with python3's standard library only."""
    host = start_host("--listen", "ws:127.0.0.1:0")
    done = subprocess.run([installed / "bin/greenroomctl", "--ws", host.ws_url(), "ping"],
                          capture_output=True, text=True, timeout=15, stdin=subprocess.DEVNULL,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert done.returncode == 0 and done.stdout.strip() == '{"pong":true}', done
