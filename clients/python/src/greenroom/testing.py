"""Start and stop a real Greenroom host for tests and scripts.

:class:`HostProcess` runs ``greenroom serve --socket PATH --clock virtual`` on
a fresh socket, waits for the ready line it prints on stdout, and stops it
with SIGTERM. The pytest fixtures in :mod:`greenroom.pytest_plugin` are thin
wrappers around it; scripts can use it directly::

    with HostProcess.start() as host:
        with host.client() as client:
            client.ping()
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .client import Client
from .errors import GreenroomError

__all__ = ["HostBinaryNotFound", "HostDidNotExit", "HostProcess", "HostStartError", "find_binary"]

BINARY_ENV = "GREENROOM_BIN"
_BUILD_PRODUCT = Path(".build") / "debug" / "greenroom"
_RELEASE_PRODUCT = Path(".build") / "release" / "greenroom"


class HostBinaryNotFound(GreenroomError, FileNotFoundError):
    """No ``greenroom`` executable was found (see :func:`find_binary`)."""


class HostStartError(GreenroomError):
    """The host exited, or printed no ready line in time, while starting.

    ``returncode`` is its exit code (None if it had to be killed), ``stdout``
    what it printed on stdout, ``stderr`` what it wrote on stderr when that
    went to a file (``HostProcess.start(stderr=PATH)``), else ``""``.
    """

    def __init__(self, message: str, returncode: int | None = None, stdout: str = "", stderr: str = "") -> None:
        super().__init__(message)
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr


class HostDidNotExit(GreenroomError):
    """The host was still running after SIGTERM and its grace period (it was then killed)."""


def find_binary(start: Iterable[os.PathLike[str] | str] | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The ``greenroom`` executable to run.

    In order: ``$GREENROOM_BIN``; ``.build/debug/greenroom`` (else
    ``.build/release/greenroom``) in the nearest folder, walking up from the current directory and then from this file,
    that has one; ``greenroom`` on ``PATH``. Raises :class:`HostBinaryNotFound`
    saying what was tried; there is no silent fallback.
    """
    env = os.environ if environ is None else environ
    explicit = env.get(BINARY_ENV)
    if explicit:
        if os.path.isfile(explicit) and os.access(explicit, os.X_OK):
            return os.path.abspath(explicit)
        raise HostBinaryNotFound(f"{BINARY_ENV}={explicit!r} is not an executable file")
    starts = [Path.cwd(), Path(__file__).resolve().parent] if start is None else [Path(p) for p in start]
    looked: list[str] = []
    for origin in starts:
        for folder in [origin.resolve(), *origin.resolve().parents]:
            # The debug build first (what `swift build` makes), else the release one (`make run`).
            for product in (_BUILD_PRODUCT, _RELEASE_PRODUCT):
                candidate = folder / product
                if candidate.is_file() and os.access(candidate, os.X_OK):
                    return str(candidate)
        looked.append(f"{_BUILD_PRODUCT} or {_RELEASE_PRODUCT} in {origin} and its parents")
    on_path = shutil.which("greenroom", path=env.get("PATH"))
    if on_path:
        return on_path
    looked.append("greenroom on PATH")
    raise HostBinaryNotFound(
        "cannot find the greenroom host binary; looked for: "
        + "; ".join([f"${BINARY_ENV}"] + looked)
        + ". Build it with `swift build` at the repository root, or set "
        + f"{BINARY_ENV}=/path/to/greenroom."
    )


def find_binary_or_exit(explicit: str | None, program: str) -> str:
    """For scripts with a ``--bin`` option: ``explicit`` when it is an executable file, else :func:`find_binary`.
    When neither gives one, prints ``PROGRAM: no greenroom binary: WHY`` on stderr and exits with status 2."""
    try:
        if explicit is None:
            return find_binary()
        if os.path.isfile(explicit) and os.access(explicit, os.X_OK):
            return os.path.abspath(explicit)
        raise HostBinaryNotFound(f"{explicit!r} is not an executable file")
    except HostBinaryNotFound as error:
        print(f"{program}: no greenroom binary: {error}", file=sys.stderr)
        raise SystemExit(2) from None


class HostProcess:
    """A running ``greenroom serve`` on its own socket in a fresh temporary folder.

    Attributes: ``socket`` (the Unix socket path, None when the host was
    started without ``--socket``), ``process`` (the :class:`subprocess.Popen`),
    ``ready`` (the parsed ready line), ``listen`` (its addresses),
    ``directory`` (the temporary folder, removed at stop unless the caller
    gave it), ``stderr_path`` (where stderr goes, when given).
    """

    READY_TIMEOUT = 30.0
    STOP_TIMEOUT = 10.0

    def __init__(self, process: subprocess.Popen[bytes], socket: str | None, directory: str, command: list[str],
                 *, owns_directory: bool = True, stderr_path: str | None = None) -> None:
        self.process = process
        self.socket = socket
        self.directory = directory
        self.command = command
        self.owns_directory = owns_directory
        self.stderr_path = stderr_path
        self.ready: dict[str, Any] = {}
        self.stdout_lines: list[str] = []  # what the host printed on stdout, ready line included
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read_stdout, name="greenroom-host-stdout", daemon=True)
        self._clients: list[Client] = []
        self._reader.start()

    @classmethod
    def start(
        cls,
        args: Iterable[str] = (),
        *,
        binary: str | None = None,
        clock: str | None = "virtual",
        ready_timeout: float | None = None,
        env: Mapping[str, str] | None = None,
        socket: str | bool = True,
        directory: str | None = None,
        stderr: str | None = None,
        user: int | str | None = None,
        new_session: bool = False,
    ) -> HostProcess:
        """Start the host and return once it printed ``{"event":"ready",...}``.

        ``args`` are added to ``serve --socket PATH --clock CLOCK``. Raises
        :class:`HostBinaryNotFound` or :class:`HostStartError`.

        The rest is for tests of the host itself: ``clock=None`` passes no
        ``--clock``; ``socket`` is ``True`` (``host.sock`` in the folder),
        a path, or ``False`` for no ``--socket`` (the host's default one);
        ``directory`` is a folder of the caller's to use (also the working
        directory; it is then not removed at stop); ``stderr`` a file to
        write the host's stderr to (else it is inherited); ``user`` runs the
        host as that user (root only); ``new_session`` starts it in a new
        session, so that signals to the test's process group miss it.
        """
        binary = binary or find_binary(environ=env)
        # sun_path holds 108 bytes: keep the folder short, in /tmp.
        owns_directory = directory is None
        if directory is None:
            directory = tempfile.mkdtemp(prefix="gr-", dir="/tmp")
        socket_path = os.path.join(directory, "host.sock") if socket is True else socket or None
        command = [binary, "serve"]
        if socket_path is not None:
            command += ["--socket", socket_path]
        if clock is not None:
            command += ["--clock", clock]
        command += [str(arg) for arg in args]
        extra: dict[str, Any] = {}
        if user is not None:
            extra = {"user": user, "group": user, "extra_groups": []}
        err_file = open(stderr, "wb") if stderr is not None else None
        try:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=err_file,
                env=None if env is None else dict(env),
                cwd=None if owns_directory else directory,
                start_new_session=new_session,
                **extra,
            )
        except OSError as error:
            if owns_directory:
                shutil.rmtree(directory, ignore_errors=True)
            raise HostStartError(f"cannot run {command}: {error}") from error
        finally:
            if err_file is not None:
                err_file.close()
        host = cls(process, socket_path, directory, command, owns_directory=owns_directory, stderr_path=stderr)
        try:
            host._wait_ready(cls.READY_TIMEOUT if ready_timeout is None else ready_timeout)
        except HostStartError as error:
            host._kill()
            error.returncode = process.returncode
            error.stdout = "\n".join(host.stdout_lines)
            error.stderr = host.stderr_text()
            raise
        except BaseException:
            host._kill()
            raise
        return host

    def stderr_text(self) -> str:
        """What the host wrote on stderr so far, when it goes to a file (``stderr=PATH``); else ``""``."""
        if self.stderr_path is None:
            return ""
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    @property
    def pid(self) -> int:
        """The host's process id."""
        return self.process.pid

    @property
    def listen(self) -> list[str]:
        """The addresses from the ready line, e.g. ``["unix:/tmp/gr-x/host.sock"]``."""
        return list(self.ready.get("listen", []))

    def client(self, **options: Any) -> Client:
        """A connected :class:`greenroom.Client` on this host, closed at :meth:`stop`."""
        if self.socket is None:
            raise GreenroomError("this host was started without --socket: connect to one of its `listen` addresses")
        client = Client(self.socket, **options)
        self._clients.append(client)
        return client

    def stop(self, timeout: float | None = None) -> int:
        """Close the clients, SIGTERM the host, wait, and return its exit code.

        Raises :class:`HostDidNotExit` (after killing it) if it is still
        running ``timeout`` (default 10) seconds after SIGTERM.
        """
        timeout = self.STOP_TIMEOUT if timeout is None else timeout
        for client in self._clients:
            client.close()
        self._clients.clear()
        try:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
                try:
                    self.process.wait(timeout)
                except subprocess.TimeoutExpired:
                    self._kill()
                    raise HostDidNotExit(
                        f"the greenroom host (pid {self.pid}) did not exit within {timeout:g} s of SIGTERM; killed it"
                    ) from None
            return self.process.returncode
        finally:
            self._cleanup()

    def __enter__(self) -> HostProcess:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<HostProcess pid={self.pid} socket={self.socket!r}>"

    # -- internals -----------------------------------------------------------

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        try:
            for raw in self.process.stdout:
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                self.stdout_lines.append(line)
                self._lines.put(line)
        except (OSError, ValueError):
            pass  # stdout was closed under us at cleanup
        finally:
            self._lines.put(None)

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise HostStartError(
                    f"the greenroom host printed no ready line within {timeout:g} s: {' '.join(self.command)}"
                    + self._stdout_note()
                )
            try:
                line = self._lines.get(timeout=min(remaining, 0.5))
            except queue.Empty:
                continue
            if line is None:
                try:
                    code = self.process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    code = None
                raise HostStartError(
                    f"the greenroom host closed its stdout before it was ready (exit code {code}):"
                    f" {' '.join(self.command)}" + self._stdout_note()
                )
            ready = _parse_ready(line)
            if ready is not None:
                self.ready = ready
                return

    def _stdout_note(self) -> str:
        if self.stderr_path is None:
            stderr = "its stderr is in the captured output"
        else:
            stderr = f"stderr: {self.stderr_text()[-2000:]!r}"
        if not self.stdout_lines:
            return f" ({stderr})"
        return " (stdout: " + " | ".join(self.stdout_lines[-5:]) + f"; {stderr})"

    def _kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            pass
        self._cleanup()

    def _cleanup(self) -> None:
        if self.process.stdout is not None and self.process.poll() is not None:
            self._reader.join(timeout=2)
            self.process.stdout.close()
        if self.owns_directory:
            shutil.rmtree(self.directory, ignore_errors=True)


def _parse_ready(line: str) -> dict[str, Any] | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if isinstance(message, dict) and message.get("event") == "ready":
        return message
    return None
