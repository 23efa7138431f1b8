"""A tab bar of three tabs: a switch, a reselection, and setContainers (docs/lifecycle.md, "Tab bars").

Only the selected tab (``c-1``) loads when the tab bar is made. Selecting the second tab loads ``c-2`` and runs
UIKit's tab-switch order: ``c-2``'s ``viewWillAppear`` (``viewIsAppearing``, layout) before ``c-1``'s
``viewWillDisappear``, then ``c-1``'s ``viewDidDisappear`` and ``c-2``'s ``viewDidAppear``. Selecting it again runs
nothing. Then the tabs are replaced without ``c-2``: index 1 is kept, so ``c-3`` shows, with the leaving and
joining containment calls around the switch.

Before it writes the transcript the script checks the calls against the documented orders, so a
re-recording cannot bake a wrong order into the golden file. Run it to record ``tab_switch.ndjson``.
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
    a, b, c = (client.container.create("Container").id for _ in range(3))
    seen.clear()

    recording.comment("a tab bar of c-1, c-2, c-3: only the selected tab loads")
    tabs = client.tabs.create(390, 844, [a, b, c])
    assert seen == [f"{x} {h}" for x in (a, b, c) for h in ("willMoveToParent", "didMoveToParent")] + [
        f"{a} {h}" for h in ("loadView", "viewDidLoad", "viewWillAppear", "viewIsAppearing", "viewWillLayoutSubviews",
                             "viewDidLayoutSubviews", "viewDidAppear")], seen
    seen.clear()

    recording.comment("select the second tab: its viewWillAppear comes before the first tab's viewWillDisappear")
    tabs.select(1)
    assert seen == [f"{b} loadView", f"{b} viewDidLoad", f"{b} viewWillAppear", f"{b} viewIsAppearing",
                    f"{b} viewWillLayoutSubviews", f"{b} viewDidLayoutSubviews", f"{a} viewWillDisappear",
                    f"{a} viewDidDisappear", f"{b} viewDidAppear"], seen
    seen.clear()

    recording.comment("select it again: nothing runs")
    tabs.select(1)
    assert seen == [], seen

    recording.comment("setContainers without c-2: index 1 is kept, so c-3 shows")
    tabs.set_containers([a, c])
    assert seen == [f"{b} willMoveToParent", f"{c} loadView", f"{c} viewDidLoad", f"{c} viewWillAppear",
                    f"{c} viewIsAppearing", f"{c} viewWillLayoutSubviews", f"{c} viewDidLayoutSubviews",
                    f"{b} viewWillDisappear", f"{b} viewDidDisappear", f"{c} viewDidAppear",
                    f"{b} didMoveToParent"], seen


if __name__ == "__main__":
    record(__file__, "a tab bar: a switch, a reselection, and setContainers", scenario)
