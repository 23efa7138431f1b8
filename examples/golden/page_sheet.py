"""A page sheet over a stack, swiped down twice: once cancelled, once finished (docs/lifecycle.md,
"Presentations").

A stack shows ``c-1``; ``c-2`` is presented over it as a ``pageSheet`` (iOS 13's default style), animated.
The presenter gets no call: a sheet leaves its views in the window. Then the sheet's swipe-down, as a finger
makes it: begun (``shouldDismiss``, ``willDismiss``, the sheet's ``viewWillDisappear``), moved to 40%, and
cancelled: after the way back the sheet gets ``viewWillAppear``, ``viewIsAppearing`` and ``viewDidAppear``, its
``viewWillDisappear`` left without a ``viewDidDisappear``. Then a second swipe to 70%, finished: after the rest
of the transition, ``viewDidDisappear`` and ``didDismiss``.

Before it writes the transcript the script checks the calls against the documented orders, so a
re-recording cannot bake a wrong order into the golden file. Run it to record ``page_sheet.ndjson``.
"""

from __future__ import annotations

from goldenrun import record

from greenroom import Client
from greenroom.api import LifecycleEvent, PresentationEvent
from greenroom.transcript import Recording


def scenario(client: Client, recording: Recording) -> None:
    seen: list[str] = []

    @client.on("lifecycle")
    def keep(event: LifecycleEvent) -> None:
        seen.append(f"{event['container']} {event['event']}")

    @client.on("presentation")
    def delegate(event: PresentationEvent) -> None:
        seen.append(f"{event['container']} {event['kind']}")

    client.subscribe(["lifecycle", "presentation"])
    recording.comment("a stack showing c-1")
    stack = client.stack.create(390, 844)
    home = client.container.create("Container")
    stack.push(home.id)
    sheet = client.container.create("Container")
    seen.clear()

    recording.comment("present c-2 as a page sheet, animated: the presenter gets nothing")
    client.presentation.present(stack.id, sheet.id, style="pageSheet", animated=True)
    client.clock.advance(300)
    assert seen == [f"{sheet.id} {h}" for h in ("loadView", "viewDidLoad", "viewWillAppear", "viewIsAppearing",
                                                "viewWillLayoutSubviews", "viewDidLayoutSubviews", "viewDidAppear")], seen
    seen.clear()

    recording.comment("a swipe-down to 40%, cancelled: the sheet comes back after 40% of 300 ms")
    client.presentation.begin_interactive_dismiss(sheet.id)
    client.presentation.update_interactive_dismiss(sheet.id, 0.4)
    client.presentation.cancel_interactive_dismiss(sheet.id)
    client.clock.advance(120)
    assert seen == [f"{sheet.id} {h}" for h in ("shouldDismiss", "willDismiss", "viewWillDisappear", "viewWillAppear",
                                                "viewIsAppearing", "viewDidAppear")], seen
    seen.clear()

    recording.comment("a swipe-down to 70%, finished: the sheet goes after the remaining 30% of 300 ms")
    client.presentation.begin_interactive_dismiss(sheet.id)
    client.presentation.update_interactive_dismiss(sheet.id, 0.7)
    client.presentation.finish_interactive_dismiss(sheet.id)
    client.clock.advance(90)
    assert seen == [f"{sheet.id} {h}" for h in ("shouldDismiss", "willDismiss", "viewWillDisappear", "viewDidDisappear",
                                                "didDismiss")], seen
    assert client.container.info(sheet.id)["parent"] is None


if __name__ == "__main__":
    record(__file__, "a page sheet over a stack: a swipe-down cancelled, then one finished", scenario)
