"""Reuse mode (docs/pages.md): only the current page and its neighbours keep a child.

A page session of six pages with ``cache: {mode: "reuse"}`` and data per page. Three swipes (0 to 1, 1 to 2,
2 to 3) park the container of the page that leaves the window in the reuse queue and re-bind a parked one
for the page that enters it (``configure`` with that page's data) instead of creating one; then a tap
jumps to page 5 (``page.show``, animated). Run it to record ``reuse_mode.ndjson``.
"""

from __future__ import annotations

from goldenrun import record

from greenroom import Client
from greenroom.api import LifecycleEvent
from greenroom.lifecycle import assert_page_at_rest, swipe_page
from greenroom.transcript import Recording

W = 375.0


def scenario(client: Client, recording: Recording) -> None:
    hooks: list[str] = []

    @client.on("lifecycle")
    def keep(event: LifecycleEvent) -> None:
        hooks.append(event["event"])

    client.subscribe(["lifecycle", "page"])
    pages = [{"title": f"page {i}"} for i in range(6)]
    session = client.page.create(W, 667, class_="Container", data=pages, cache={"mode": "reuse"})
    for page in range(3):
        recording.comment(f"a swipe from page {page} to page {page + 1}")
        swipe_page(client, session.id, page, page + 1, width=W)
    recording.comment("a tap jumps to page 5: 300 ms of animation")
    session.show(5)
    client.clock.settle()
    info = assert_page_at_rest(client, session.id, 5)
    # Five pages shown with three containers: the others were parked and re-bound, not made.
    assert hooks.count("init") == 3 and hooks.count("configure") == 2, hooks
    assert info["reuseQueue"] == {"Container": 2}, info


if __name__ == "__main__":
    record(__file__, "a page session in reuse mode: three swipes and a tap that jumps", scenario)
