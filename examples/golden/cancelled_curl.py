"""A pageCurl session: a page turn cancelled, then one finished (docs/pages.md, "Page curl").

Three pages in a curl session, on page 1. The curl toward page 2 begins (page 2 loads and gets
``viewWillAppear``, ``viewIsAppearing``; page 1 ``viewWillDisappear``), goes to 30% and is cancelled: after the way
back (30% of 300 ms) page 2 gets ``viewWillDisappear``, page 1 ``viewWillAppear`` (``viewIsAppearing``), page 2
``viewDidDisappear`` and page 1 ``viewDidAppear``, UIKit's cancelled curl, unlike a cancelled scroll. Then a curl
to page 0 is finished: page 1's ``viewDidDisappear`` comes before page 0's ``viewDidAppear``, the reverse of a
scroll's order.

Before it writes the transcript the script checks the calls against the documented orders, so a
re-recording cannot bake a wrong order into the golden file. Run it to record ``cancelled_curl.ndjson``.
"""

from __future__ import annotations

from goldenrun import record

from greenroom import Client
from greenroom.api import LifecycleEvent
from greenroom.transcript import Recording

APPEARANCE = {"viewWillAppear", "viewIsAppearing", "viewDidAppear", "viewWillDisappear", "viewDidDisappear"}


def scenario(client: Client, recording: Recording) -> None:
    seen: list[str] = []

    @client.on("lifecycle")
    def keep(event: LifecycleEvent) -> None:
        page = event.get("page")
        if page is not None and event["event"] in APPEARANCE:
            seen.append(f"{event['event']} {page['index']}")

    client.subscribe(["lifecycle", "page"])
    recording.comment("a curl session of three pages, on page 1")
    session = client.page.create(390, 844, class_="Container", count=3, initial_index=1, transition_style="pageCurl")
    seen.clear()

    recording.comment("a curl toward page 2, to 30%, cancelled")
    client.page.begin_interactive_curl(session.id, 2)
    client.page.update_interactive_curl(session.id, 0.3)
    client.page.cancel_interactive_curl(session.id)
    client.clock.advance(90)
    assert seen == ["viewWillAppear 2", "viewIsAppearing 2", "viewWillDisappear 1", "viewWillDisappear 2",
                    "viewWillAppear 1", "viewIsAppearing 1", "viewDidDisappear 2", "viewDidAppear 1"], seen
    seen.clear()

    recording.comment("a curl to page 0, finished: page 1 disappears before page 0 appears")
    client.page.begin_interactive_curl(session.id, 0)
    client.page.finish_interactive_curl(session.id)
    client.clock.advance(300)
    assert seen == ["viewWillAppear 0", "viewIsAppearing 0", "viewWillDisappear 1", "viewDidDisappear 1",
                    "viewDidAppear 0"], seen


if __name__ == "__main__":
    record(__file__, "a pageCurl session: a turn cancelled, then one finished", scenario)
