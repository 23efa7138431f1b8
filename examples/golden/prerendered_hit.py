"""A prerendered hit, as the prerendering article's pool does it (docs/pools.md).

An eager pool of depth 1 warms a container in the green room, off screen (every hook ``offscreen: true``);
the tap is ``showRendered`` onto a stack: a hit (``warm: true``) that leaves the green room and is pushed,
appearing with no second ``loadView`` or ``viewDidLoad``; then the push animation ends and the pool warms
the replacement. Run it to record ``prerendered_hit.ndjson``.
"""

from __future__ import annotations

from goldenrun import record

from greenroom import Client
from greenroom.transcript import Recording


def scenario(client: Client, recording: Recording) -> None:
    client.subscribe(["lifecycle", "pool"])
    client.pool.configure("Container", depth=1, policy="eager")
    recording.comment("the warm-up runs as an idle task: under a virtual clock, when the script lets it")
    client.clock.settle()
    stack = client.stack.create(375, 667)
    recording.comment("the tap: a hit, pushed onto the stack (a 300 ms animation)")
    shown = client.show_rendered("Container", stack=stack, animated=True)
    assert shown["warm"], f"the pool was warm, so this is a hit: {shown}"
    recording.comment("the pool warms the next one, and the push ends: viewDidAppear at 300 ms")
    client.clock.settle()
    status = client.pool.status(class_="Container")
    assert status["pools"][0]["hits"] == 1 and status["pools"][0]["idle"] == 1, status


if __name__ == "__main__":
    record(__file__, "an eager pool warms a container off screen; showRendered takes it onto a stack",
           scenario)
