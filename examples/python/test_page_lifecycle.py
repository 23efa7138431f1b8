"""Page sessions, tested the way you would test your own pager: UIPageViewController's lifecycle tables over the socket.

The article on replacing UIPageViewController (GYPageViewController; docs/pages.md) wrote down, for each kind of page
change, the order in
which UIPageViewController calls its children's appearance methods. Greenroom's page sessions promise
exactly those orders (docs/pages.md). This file checks every table through the JSON-RPC socket, with the
fixtures of the Greenroom pytest plugin:

- ``greenroom_client``: a :class:`greenroom.Client` on a fresh ``greenroom serve --clock virtual``;
  the virtual clock only moves on ``clock.advance``, so a 300 ms page animation ends exactly when the
  test says so and every run is identical.

Each test makes its own page session of five pages of the built-in class ``Container``, 375 x 667 points,
starting on page 1::

    client.call("page.create", {"class": "Container", "count": 5, "width": 375, "height": 667,
                                "initialIndex": 1})

An interactive page change is a stream of scroll-view callbacks named after ``UIScrollViewDelegate``
(``page.willBeginDragging``, ``page.didScroll``, ``page.willEndDragging``, ``page.didEndDragging``,
``page.didEndDecelerating``), each carrying the horizontal content offset. Page ``i`` sits at offset
``i * 375``: the session starts at offset 375 (page 1); offset 0 is page 0, 750 page 2.

The words for lifecycles come with the client, in ``greenroom.lifecycle``: the article's short names
(``page_calls`` writes a child's hooks as ``"willAppear 0"``), the scroll stream of a whole swipe
(``swipe_pages``, ``swipe_page``), the appearance table's checker and the rule at rest
(``assert_page_at_rest``).

Run it from the repository root (the host binary is ``.build/debug/greenroom``, or ``$GREENROOM_BIN``)::

    python -m pytest -q examples/python/test_page_lifecycle.py
"""

from __future__ import annotations

import greenroom
import pytest
from greenroom.lifecycle import (AppearanceChecker, assert_calls, assert_page_at_rest, only_appearance, page_calls,
                                 swipe_page, swipe_pages)

W = 375.0  # page width: page i is at offset i * W
PAGE_SESSION = {"class": "Container", "count": 5, "width": W, "height": 667, "initialIndex": 1}

# Greenroom's hooks carry UIKit's names; the article writes them short ("Will Appear 0"), and so does
# greenroom.lifecycle.page_calls: "willAppear 0" is viewWillAppear on the child of page 0.

# ---------------------------------------------------------------------------------------------------
# The article's tables, in its own words (its "Did Disppear" typos fixed).

# 非交互切换 (a page change by a method call, e.g. tapping a segment): fixed ~0.3 s animation.
NON_INTERACTIVE_1_TO_0 = ["willAppear 0", "willDisappear 1",  # (about 0.3 s of animation)
                          "didAppear 0", "didDisappear 1"]
# 交互切换 1: a swipe to the adjacent page.
INTERACTIVE_1_TO_0 = ["willAppear 0", "willDisappear 1",  # (the finger moves, then the view decelerates)
                      "didAppear 0", "didDisappear 1"]
# 交互切换 2: from 1 toward 2, then straight back toward 0 (one cancel).
TOWARD_2_THEN_0 = ["willAppear 2", "willDisappear 1",                    # toward 2
                   "willAppear 0", "willDisappear 2", "didDisappear 2",  # changed its mind: toward 0
                   "didAppear 0", "didDisappear 1"]                      # let go; deceleration ends on 0
# 交互切换 3: 1 -> 2 -> 0 -> 2 (two cancels).
ONE_TWO_ZERO_TWO = ["willAppear 2", "willDisappear 1",                    # toward 2
                    "willAppear 0", "willDisappear 2", "didDisappear 2",  # back, toward 0
                    "willAppear 2", "willDisappear 0", "didDisappear 0",  # and toward 2 again
                    "didAppear 2", "didDisappear 1"]                      # let go; ends on 2


# ---------------------------------------------------------------------------------------------------
# A few helpers: a session, its events in the article's words, and a scroll stream.


@pytest.fixture
def client(greenroom_client: greenroom.Client) -> greenroom.Client:
    """The plugin's client, subscribed to child lifecycles and page transitions."""
    greenroom_client.subscribe(["lifecycle", "page"])
    return greenroom_client


def new_session(client: greenroom.Client) -> str:
    """A fresh page session on page 1. It has no stack, so it is on screen at once: page 1 loads and
    appears during page.create. Those start-up events are dropped, so every test starts from a quiet
    session at rest on page 1."""
    info = client.call("page.create", PAGE_SESSION)
    assert info["index"] == 1 and info["phase"] == "idle"
    assert info["children"] == [{"index": 1, "container": info["children"][0]["container"], "state": "appeared"}]
    appearance(client, info["session"])  # drop page 1's start-up events
    return info["session"]


def events(client: greenroom.Client, session: str) -> list[greenroom.Event]:
    """The lifecycle and page events of ``session`` that arrived so far (consumed).

    Every event caused by a request is written before that request's reply, so when ``call`` returns
    the events it caused are already queued: ``timeout=0`` takes just those."""
    mine = []
    for event in client.events(["lifecycle", "page"], timeout=0):
        page = event.get("page") or {}
        if event.get("session") == session or page.get("session") == session:
            mine.append(event)
    return mine


def transitions_of(evts: list[greenroom.Event]) -> list[tuple]:
    """The `page` events among ``evts`` as ``(kind, from, to, completed)``."""
    return [(e["kind"], e["from"], e["to"], e.get("completed")) for e in evts if e.topic == "page"]


def appearance(client: greenroom.Client, session: str) -> list[str]:
    """The appearance hooks of ``session``'s children since the last look."""
    return page_calls(events(client, session))


def page_events(client: greenroom.Client, session: str) -> list[tuple]:
    """The page transitions of ``session`` since the last look."""
    return transitions_of(events(client, session))


def scroll(client: greenroom.Client, session: str, method: str, offset: float, **extra) -> dict:
    """One scroll-view callback, e.g. ``scroll(c, s, "didScroll", 340)``."""
    return client.call(f"page.{method}", {"session": session, "offset": offset, **extra})


def assert_at_rest_on(client: greenroom.Client, session: str, index: int) -> None:
    """docs/pages.md at rest (``assert_page_at_rest``): the current page is `appeared`, every other attached
    child `disappeared`."""
    assert_page_at_rest(client, session, index)
    # The host counts unbalanced begin/end appearance calls; a page session must never make one.
    assert client.call("host.stats")["unbalancedTransitions"] == 0


# ---------------------------------------------------------------------------------------------------
# Non-interactive: page.show


@pytest.mark.parametrize("to", [0, 3], ids=["adjacent", "not-adjacent"])
def test_non_interactive_show_from_1(client: greenroom.Client, to: int) -> None:
    """page.show, animated: willAppear <new>, willDisappear <old> at once; didAppear <new>,
    didDisappear <old> when the 300 ms animation ends. Adjacent or not, the order is the same."""
    session = new_session(client)

    client.call("page.show", {"session": session, "index": to, "animated": True})
    assert appearance(client, session) == [f"willAppear {to}", "willDisappear 1"]

    client.call("clock.advance", {"ms": 299})  # the animation is still running
    assert appearance(client, session) == []

    client.call("clock.advance", {"ms": 1})  # 300 ms: the animation ends
    assert appearance(client, session) == [f"didAppear {to}", "didDisappear 1"]
    assert_at_rest_on(client, session, to)


def test_non_interactive_1_to_0_is_the_articles_table(client: greenroom.Client) -> None:
    """The whole table at once, with the host clock stamped on each event (`t`, in ms)."""
    session = new_session(client)
    start = client.call("clock.now")["ms"]  # the virtual clock, in ms

    client.call("page.show", {"session": session, "index": 0})  # animated is the default
    client.call("clock.advance", {"ms": 300})

    hooks = only_appearance(events(client, session))  # the events' params, appearance hooks only
    assert page_calls(hooks) == NON_INTERACTIVE_1_TO_0
    # The will* calls come when page.show is handled, the did* calls 300 ms later (the animation).
    assert [e["t"] for e in hooks] == [start, start, start + 300, start + 300]
    assert_at_rest_on(client, session, 0)


def test_show_without_animation_ends_at_once(client: greenroom.Client) -> None:
    """animated: false: the same four calls, with no time between them."""
    session = new_session(client)
    client.call("page.show", {"session": session, "index": 0, "animated": False})
    assert appearance(client, session) == NON_INTERACTIVE_1_TO_0
    assert_at_rest_on(client, session, 0)


# ---------------------------------------------------------------------------------------------------
# Interactive: the scroll stream


def test_interactive_1_to_0(client: greenroom.Client) -> None:
    """A swipe from page 1 to page 0, callback by callback."""
    session = new_session(client)

    # The finger goes down on page 1 (offset 375) and moves right: the content moves toward page 0.
    scroll(client, session, "willBeginDragging", 375)
    assert appearance(client, session) == []  # touching is not moving

    scroll(client, session, "didScroll", 340)  # below 375: heading for page floor(340/375) = 0
    assert appearance(client, session) == ["willAppear 0", "willDisappear 1"]

    scroll(client, session, "didScroll", 150)  # still heading for 0: nothing new
    assert appearance(client, session) == []

    # The finger lifts with a velocity toward page 0; the scroll view will decelerate there.
    scroll(client, session, "willEndDragging", 150, velocity=-1.2, targetOffset=0)
    scroll(client, session, "didEndDragging", 150, willDecelerate=True)
    scroll(client, session, "didScroll", 40)  # decelerating: offsets are recorded, nothing happens
    assert appearance(client, session) == []

    scroll(client, session, "didEndDecelerating", 0)  # at rest on page 0
    assert appearance(client, session) == ["didAppear 0", "didDisappear 1"]
    assert_at_rest_on(client, session, 0)


def swipe(client: greenroom.Client, session: str, offsets: list[float], rest: float,
          velocity: float) -> list[greenroom.Event]:
    """A whole swipe (``swipe_pages``): the finger goes down at offsets[0], moves through the other offsets
    and lifts; the scroll view then decelerates to ``rest``. Returns the session's events it caused."""
    swipe_pages(client, session, offsets, rest, velocity=velocity, target=rest)
    return events(client, session)


def test_interactive_1_to_0_as_one_swipe(client: greenroom.Client) -> None:
    session = new_session(client)
    assert page_calls(swipe(client, session, [375, 340, 150], rest=0, velocity=-1.2)) == INTERACTIVE_1_TO_0
    assert_at_rest_on(client, session, 0)


def test_toward_2_then_back_to_0(client: greenroom.Client) -> None:
    """From page 1 toward page 2, then straight back past the start toward page 0.

    The page being headed for is guessed from where the drag began (375): right of it, the page
    ceil(offset / 375); left of it, floor(offset / 375)."""
    session = new_session(client)

    scroll(client, session, "willBeginDragging", 375)
    scroll(client, session, "didScroll", 450)  # right of 375: toward page ceil(1.2) = 2
    assert appearance(client, session) == ["willAppear 2", "willDisappear 1"]
    scroll(client, session, "didScroll", 560)
    assert appearance(client, session) == []

    scroll(client, session, "didScroll", 370)  # left of 375: toward page floor(0.99) = 0; 2 goes away
    assert appearance(client, session) == ["willAppear 0", "willDisappear 2", "didDisappear 2"]
    scroll(client, session, "didScroll", 200)

    scroll(client, session, "willEndDragging", 200, velocity=-0.8, targetOffset=0)
    scroll(client, session, "didEndDragging", 200, willDecelerate=True)
    assert appearance(client, session) == []
    scroll(client, session, "didEndDecelerating", 0)
    assert appearance(client, session) == ["didAppear 0", "didDisappear 1"]
    assert_at_rest_on(client, session, 0)


def test_toward_2_then_back_to_0_is_the_articles_table(client: greenroom.Client) -> None:
    session = new_session(client)
    assert page_calls(swipe(client, session, [375, 450, 560, 370, 200], rest=0, velocity=-0.8)) == TOWARD_2_THEN_0
    assert_at_rest_on(client, session, 0)


def test_1_2_0_2_cancelled_twice(client: greenroom.Client) -> None:
    """1 -> toward 2 -> back toward 0 -> toward 2 again, then let go: it ends on page 2."""
    session = new_session(client)
    assert page_calls(swipe(client, session, [375, 450, 300, 450, 600], rest=750, velocity=1.1)) == ONE_TWO_ZERO_TWO
    assert_at_rest_on(client, session, 2)


def test_release_exactly_on_a_page_boundary(client: greenroom.Client) -> None:
    """The finger drags page 2 fully into place and lifts with no velocity: the scroll view does not
    decelerate (didEndDragging with willDecelerate false), so the session comes to rest right there
    and there is no didEndDecelerating."""
    session = new_session(client)
    scroll(client, session, "willBeginDragging", 375)
    scroll(client, session, "didScroll", 560)
    assert appearance(client, session) == ["willAppear 2", "willDisappear 1"]
    scroll(client, session, "didScroll", 750)  # exactly on page 2
    scroll(client, session, "willEndDragging", 750, velocity=0.0, targetOffset=750)

    reply = scroll(client, session, "didEndDragging", 750, willDecelerate=False)
    assert reply["phase"] == "idle" and reply["index"] == 2
    assert appearance(client, session) == ["didAppear 2", "didDisappear 1"]
    assert_at_rest_on(client, session, 2)

    # The scroll stream is over: a didEndDecelerating now does not fit (-32003, invalidState).
    with pytest.raises(greenroom.InvalidState) as error:
        scroll(client, session, "didEndDecelerating", 750)
    assert error.value.data["phase"] == "idle"


def test_a_cancelled_swipe_returns_to_the_old_page(client: greenroom.Client) -> None:
    """Toward page 2, but let go too early: the view springs back to page 1. Page 1 comes back, page 2
    goes (its willAppear gets no didAppear), and page 1 is the only appeared page again."""
    session = new_session(client)
    hooks = page_calls(swipe(client, session, [375, 420, 500], rest=375, velocity=-0.3))
    assert hooks[:2] == ["willAppear 2", "willDisappear 1"]
    assert "didAppear 2" not in hooks  # only the page the interaction ends on gets a didAppear
    assert hooks.count("didAppear 1") == 1
    assert hooks[-2:] == ["willDisappear 2", "didDisappear 2"]
    assert_at_rest_on(client, session, 1)


# ---------------------------------------------------------------------------------------------------
# The `page` topic: willTransition / didTransition


def test_page_events_for_a_show(client: greenroom.Client) -> None:
    """willTransition {from, to} when the change starts; didTransition {from, to, completed} when it ends."""
    session = new_session(client)
    client.call("page.show", {"session": session, "index": 0})
    assert page_events(client, session) == [("willTransition", 1, 0, None)]
    client.call("clock.advance", {"ms": 300})
    assert page_events(client, session) == [("didTransition", 1, 0, True)]


def test_page_events_for_a_swipe(client: greenroom.Client) -> None:
    session = new_session(client)
    scroll(client, session, "willBeginDragging", 375)
    scroll(client, session, "didScroll", 450)  # the interaction heads for page 2
    assert page_events(client, session) == [("willTransition", 1, 2, None)]
    scroll(client, session, "willEndDragging", 450, velocity=1.5, targetOffset=750)
    scroll(client, session, "didEndDragging", 450, willDecelerate=True)
    scroll(client, session, "didEndDecelerating", 750)
    assert page_events(client, session) == [("didTransition", 1, 2, True)]


def test_page_events_for_a_cancelled_swipe(client: greenroom.Client) -> None:
    """A swipe that springs back ends with didTransition completed: false; the session stays on page 1."""
    session = new_session(client)
    transitions = transitions_of(swipe(client, session, [375, 420, 500], rest=375, velocity=-0.3))
    assert transitions[0] == ("willTransition", 1, 2, None)
    kind, origin, _, completed = transitions[-1]
    assert (kind, origin, completed) == ("didTransition", 1, False)
    assert client.call("page.info", {"session": session})["index"] == 1
    assert [t[0] for t in transitions].count("didTransition") == 1


def test_page_events_for_toward_2_then_back_to_0(client: greenroom.Client) -> None:
    """A change of mind mid-swipe announces the new destination; the swipe still ends once."""
    session = new_session(client)
    transitions = transitions_of(swipe(client, session, [375, 450, 560, 370, 200], rest=0, velocity=-0.8))
    assert transitions[0] == ("willTransition", 1, 2, None)
    assert [t[2] for t in transitions if t[0] == "willTransition"] == [2, 0]
    assert transitions[-1] == ("didTransition", 1, 0, True)
    assert [t[0] for t in transitions].count("didTransition") == 1


# ---------------------------------------------------------------------------------------------------
# The same, in fewer words: swipe_page, the checker and assert_calls


def test_page_to_page_with_the_lifecycle_model(client: greenroom.Client) -> None:
    """``swipe_page`` makes the scroll stream from page numbers (page i at i * 375); every lifecycle event
    goes through the appearance table's checker, and ``assert_calls`` compares the children's calls in the
    article's words, failing with the first difference and both lists if they differ."""
    checker = AppearanceChecker()
    session = new_session(client)

    swipe_page(client, session, 1, 0, width=W)                  # interactive 1 -> 0
    seen = events(client, session)
    checker.feed_all(seen)
    assert_calls(seen, INTERACTIVE_1_TO_0, session=session)

    swipe_page(client, session, 0, 1, width=W, cancelled=True)  # toward 1, let go too early: back on 0
    seen = events(client, session)
    checker.feed_all(seen)
    assert_calls(seen, ["willAppear 1", "willDisappear 0",
                        "willAppear 0", "didAppear 0", "willDisappear 1", "didDisappear 1"], session=session)

    checker.check(at_rest=True)  # every call fitted docs/lifecycle.md's table, and nothing is left halfway
    assert_at_rest_on(client, session, 0)
