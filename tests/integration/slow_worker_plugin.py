"""A Python plugin worker whose appearance can be held on a gate, for tests/integration/test_calls_that_wait.py.

    slow_worker_plugin.py TAG GATE

Plugin `slow-<tag>` (TAG lower-cased) declares three classes:

- `Gated<TAG>`: `viewWillAppear` waits while the FIFO at GATE exists: it opens it (which blocks until the
  test opens it for writing, so the test knows the hook is running) and reads it to its end (until the test
  closes it). Without a FIFO at GATE the hook returns at once, so a test makes the FIFO only after its
  set-up and removes it before it lets the hook go: exactly one call waits, and nothing is left to time.
- `Fail<TAG>`: `init` fails (PluginError), so a page of it cannot be made.
- `Flaky<TAG>`: fails the hook its data's `failOn` names (data given at `init` or `configure`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# From a checkout, the client package of the repository (installed, `pip install clients/python` does).
_SRC = Path(__file__).resolve().parents[2] / "clients" / "python" / "src"
if _SRC.is_dir():
    sys.path.insert(0, str(_SRC))

from greenroom.plugin import Container, HookCall, PluginError, serve  # noqa: E402

TAG = sys.argv[1]
GATE = sys.argv[2]


class Gated(Container):
    name = f"Gated{TAG}"

    def viewWillAppear(self) -> None:
        if os.path.exists(GATE):
            with open(GATE, "rb") as gate:
                gate.read()


class Fail(Container):
    name = f"Fail{TAG}"

    def init(self) -> None:
        raise PluginError(f"Fail{TAG}.init refused on purpose")


class Flaky(Container):
    name = f"Flaky{TAG}"

    def hook(self, call: HookCall):
        data = self.data if isinstance(self.data, dict) else {}
        if data.get("failOn") == call.hook:
            raise PluginError(f"Flaky{TAG}.{call.hook} failed on purpose")
        return super().hook(call)


if __name__ == "__main__":
    serve(f"slow-{TAG.lower()}", [Gated, Fail, Flaky], version="1.0.0")
