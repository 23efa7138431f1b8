"""A full-screen presentation over a stack, and its dismissal (docs/lifecycle.md, "Presentations").

A stack shows ``c-1``; ``c-2`` is presented over it ``fullScreen``, animated. The presented container loads
before the presenter's ``viewWillDisappear``, and at the end its ``viewDidAppear`` comes before the
presenter's ``viewDidDisappear`` (the reverse of a push). While it is up, the stack is covered: a push onto
it runs only the containment calls. The dismissal then brings the stack's new top, ``c-3``, on screen, and
``c-2`` leaves: ``viewWillDisappear``, the new top's appearance, ``viewDidDisappear`` last.

Before it writes the transcript the script checks the calls against the documented orders, so a
re-recording cannot bake a wrong order into the golden file. Run it to record ``full_screen.ndjson``.
"""

from __future__ import annotations

from goldenrun import record

from greenroom import Client
from greenroom.api import LifecycleEvent
from greenroom.transcript import Recording


def scenario(client: Client, recording: Recording) -> None:
    seen: list[str] = []

    @client.on("lifecycle")
    def keep(event: LifecycleEvent) -> None:
        seen.append(f"{event['container']} {event['event']}")

    client.subscribe(["lifecycle"])
    recording.comment("a stack showing c-1")
    stack = client.stack.create(390, 844)
    home = client.container.create("Container")
    stack.push(home.id)
    cover = client.container.create("Container")
    seen.clear()

    recording.comment("present c-2 full screen, animated: c-1 leaves the window")
    client.presentation.present(stack.id, cover.id, style="fullScreen", animated=True)
    client.clock.advance(300)
    c1, c2 = home.id, cover.id
    assert seen == [f"{c2} loadView", f"{c2} viewDidLoad", f"{c1} viewWillDisappear", f"{c2} viewWillAppear",
                    f"{c2} viewIsAppearing", f"{c2} viewWillLayoutSubviews", f"{c2} viewDidLayoutSubviews",
                    f"{c2} viewDidAppear", f"{c1} viewDidDisappear"], seen
    seen.clear()

    recording.comment("a push onto the covered stack: containment calls only")
    pushed = client.container.create("Container")
    seen.clear()
    stack.push(pushed.id)
    c3 = pushed.id
    assert seen == [f"{c3} willMoveToParent", f"{c3} didMoveToParent"], seen
    seen.clear()

    recording.comment("dismiss c-2, animated: the stack's top, now c-3, comes on screen")
    client.presentation.dismiss(c2, animated=True)
    client.clock.advance(300)
    assert seen == [f"{c2} viewWillDisappear", f"{c3} loadView", f"{c3} viewDidLoad", f"{c3} viewWillAppear",
                    f"{c3} viewIsAppearing", f"{c3} viewWillLayoutSubviews", f"{c3} viewDidLayoutSubviews",
                    f"{c3} viewDidAppear", f"{c2} viewDidDisappear"], seen


if __name__ == "__main__":
    record(__file__, "a full-screen presentation over a stack, a push under it, and its dismissal", scenario)
