"""The Counter example plugin in Python (the C one is examples/plugins/Counter/counter.c): each instance counts
the hooks it ran; ``configure`` returns ``{"calls", "lastHook", "workPending", "workDone", "sum"}`` (this port
has no background work: the last three are always 0, 0 and null); ``data.failOn: "<hook>"`` makes that hook
fail from then on (null clears it). The class is ``CounterPy``, so that it can sit beside the C ``Counter``
on one host: the lifecycle tests run the same script against all three languages.

    greenroom serve --plugin-command "python3 examples/plugins/python/counter.py"
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

# From a checkout, the client package beside the examples (installed, `pip install clients/python` does).
_SRC = Path(__file__).resolve().parents[3] / "clients" / "python" / "src"
if _SRC.is_dir():
    sys.path.insert(0, str(_SRC))

from greenroom.plugin import Container, HookCall, PluginError, serve  # noqa: E402


class Counter(Container):
    name = "CounterPy"

    def __init__(self, container_id: str) -> None:
        super().__init__(container_id)
        self.calls = 0
        self.last_hook: str | None = None
        self.fail_on: str | None = None

    def hook(self, call: HookCall) -> Any:
        # Every hook is counted, so this class takes them all here rather than one method each.
        previous, self.last_hook = self.last_hook, call.hook
        self.calls += 1
        data = call.data
        if isinstance(data, dict) and "failOn" in data:
            fail_on = data["failOn"]
            if isinstance(fail_on, str):
                self.fail_on = fail_on
            elif fail_on is None:
                self.fail_on = None
        if self.fail_on == call.hook:
            raise PluginError(f"Counter: {call.hook} failed because data.failOn names it (call {self.calls})")
        if call.hook == "configure":
            return {"calls": self.calls, "lastHook": previous, "workPending": 0, "workDone": 0, "sum": None}
        return None

    @property
    def memory_bytes(self) -> int:
        return 64


if __name__ == "__main__":
    serve("counter-py", [Counter], version="1.0.0")
