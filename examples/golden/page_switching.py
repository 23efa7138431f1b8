"""The page-switching article's three interactive tables (docs/pages.md, docs/lifecycle.md).

Each table on a page session of three pages, starting on page 1 (page ``i`` at offset ``i * 375``), as a
finger makes it (``greenroom.lifecycle.swipe_pages``: the drag, the lift, the deceleration):

1. a swipe to the neighbour, page 0;
2. toward page 2, then back to page 0 (the swipe toward 2 is cancelled by the turn-back);
3. toward page 2, back toward page 0, toward page 2 again.

Before it writes the transcript the script checks each table's calls against the article's, so a
re-recording cannot bake a wrong order into the golden file. Run it to record ``page_switching.ndjson``.
"""

from __future__ import annotations

from goldenrun import record

from greenroom import Client
from greenroom.api import LifecycleEvent
from greenroom.lifecycle import assert_calls, assert_page_at_rest, swipe_pages
from greenroom.transcript import Recording

W = 375.0
#: (the table, the finger's offsets, where the view comes to rest, the velocity at the lift, the article's calls)
TABLES = [
    ("a swipe to the neighbour: page 1 to page 0", [375, 340, 150], 0.0, -1.2,
     ["willAppear 0", "willDisappear 1", "didAppear 0", "didDisappear 1"]),
    ("toward page 2, then back to page 0", [375, 450, 560, 370, 200], 0.0, -0.8,
     ["willAppear 2", "willDisappear 1", "willAppear 0", "willDisappear 2", "didDisappear 2",
      "didAppear 0", "didDisappear 1"]),
    ("toward page 2, back toward page 0, toward page 2 again", [375, 450, 300, 450, 600], 750.0, 1.1,
     ["willAppear 2", "willDisappear 1", "willAppear 0", "willDisappear 2", "didDisappear 2",
      "willAppear 2", "willDisappear 0", "didDisappear 0", "didAppear 2", "didDisappear 1"]),
]


def scenario(client: Client, recording: Recording) -> None:
    seen: list[LifecycleEvent] = []

    @client.on("lifecycle")
    def keep(event: LifecycleEvent) -> None:
        seen.append(event)

    client.subscribe(["lifecycle", "page"])
    for table, offsets, rest, velocity, calls in TABLES:
        recording.comment(table)
        session = client.page.create(W, 667, class_="Container", count=3, initial_index=1)
        seen.clear()
        swipe_pages(client, session.id, offsets, rest, velocity=velocity, target=rest)
        assert_calls(seen, calls, session=session.id)
        assert_page_at_rest(client, session.id, round(rest / W))
        session.destroy()


if __name__ == "__main__":
    record(__file__, "the three interactive tables of the page-switching article, starting on page 1", scenario)
