"""greenroom.lifecycle against events and replies made here: the appearance table and its checker, the
short names, the call assertions and their failure messages, the filters, and the exact calls each gesture
sends (the gestures against the real host are in integration/test_lifecycle_model.py)."""

from __future__ import annotations

import asyncio
import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from fakes import ScriptedTransport, reply

from greenroom import Client, Event
from greenroom.lifecycle import (
    APPEARANCE,
    CALLS,
    SHORT,
    STATES,
    TABLE,
    AppearanceChecker,
    LifecycleAssertionError,
    assert_calls,
    assert_page_at_rest,
    calls,
    drag_pages,
    drag_pages_async,
    interactive_pop,
    interactive_pop_async,
    lifecycle_events,
    long_name,
    of_page_session,
    only_appearance,
    only_containers,
    page_calls,
    range_drag,
    range_drag_async,
    release_pages,
    short_name,
    swipe_page,
    swipe_page_async,
    swipe_pages,
    without_offscreen,
)

REPO = Path(__file__).resolve().parents[3]

_seq = itertools.count(1)


def hook(container: str, event: str, **extra: Any) -> dict[str, Any]:
    """A lifecycle event's params, as a handler receives them."""
    return {"seq": next(_seq), "t": 0.0, "container": container, "class": "Container", "event": event,
            "offscreen": False, **extra}


def child(container: str, event: str, index: int, session: str = "p-1") -> dict[str, Any]:
    """A page-session child's lifecycle event."""
    return hook(container, event, page={"session": session, "index": index})


class Recorder:
    """A sync client that records every call and answers from `answers` (method -> result or function)."""

    def __init__(self, answers: dict[str, Any] | None = None) -> None:
        self.sent: list[tuple[str, Any]] = []
        self.answers = answers or {}

    def call(self, method: str, params: Any = None) -> Any:
        self.sent.append((method, params))
        answer = self.answers.get(method, {"ok": len(self.sent)})
        return answer(params) if callable(answer) else answer


class AsyncRecorder(Recorder):
    """The same, awaited: what an asyncio client looks like to the *_async helpers."""

    async def call(self, method: str, params: Any = None) -> Any:  # type: ignore[override]
        await asyncio.sleep(0)
        return Recorder.call(self, method, params)


# ---------------------------------------------------------------------------------------------------
# The table and the names


def test_the_table_is_docs_lifecycle_md_table():
    """docs/lifecycle.md's table, read from the page itself: each row a state, each column a call; a cell
    is '-> next, `hook`' or 'unbalanced'."""
    text = (REPO / "docs" / "lifecycle.md").read_text()
    rows = re.findall(r"^\| (disappeared|appearing|appeared|disappearing) \|(.*)\|$", text, re.M)
    assert [state for state, _ in rows] == list(STATES)
    from_doc = {}
    for state, cells in rows:
        for call, cell in zip(CALLS, cells.split("|")):
            found = re.fullmatch(r"\s*-> (\w+), `(\w+)`\s*", cell)
            if found:
                from_doc[(state, call)] = (found[1], found[2])
            else:
                assert cell.strip() == "unbalanced", cell
    assert from_doc == TABLE
    assert sorted({h for _, h in TABLE.values()}) == sorted(APPEARANCE)


def test_short_names_go_both_ways_and_leave_other_hooks_alone():
    assert [short_name(h) for h in APPEARANCE] == ["willAppear", "didAppear", "willDisappear", "didDisappear"]
    assert all(long_name(short_name(h)) == h for h in APPEARANCE)
    assert short_name("viewDidLoad") == "viewDidLoad" and long_name("viewDidLoad") == "viewDidLoad"
    assert long_name("willAppear") == "viewWillAppear" and SHORT["viewDidDisappear"] == "didDisappear"


# ---------------------------------------------------------------------------------------------------
# The checker


def push_events() -> list[dict[str, Any]]:
    """docs/lifecycle.md's animated push of c-2 onto a stack holding c-1 (c-1 already appeared)."""
    return [hook("c-1", "init"), hook("c-1", "viewWillAppear"), hook("c-1", "viewDidAppear"),
            hook("c-2", "init"), hook("c-2", "willMoveToParent"), hook("c-2", "loadView"),
            hook("c-2", "viewWillAppear"), hook("c-1", "viewWillDisappear"),
            hook("c-2", "viewDidAppear"), hook("c-2", "didMoveToParent"), hook("c-1", "viewDidDisappear")]


def test_a_balanced_flow_has_no_violation_and_ends_at_rest():
    checker = AppearanceChecker()
    assert checker.feed_all(push_events()) == []
    assert checker.ok and checker.states == {"c-1": "disappeared", "c-2": "appeared"}
    checker.check(at_rest=True)


def test_view_is_appearing_belongs_right_after_its_will_appear_once():
    """UIKit 17's viewIsAppearing: once per appearance, right after viewWillAppear (docs/lifecycle.md)."""
    checker = AppearanceChecker()
    good = [hook("c-1", "init"), hook("c-1", "viewWillAppear", animated=False), hook("c-1", "viewIsAppearing", animated=False),
            hook("c-1", "viewDidAppear", animated=False)]
    assert checker.feed_all(good) == []
    # Again, with no viewWillAppear before it: a violation naming the hook.
    [v] = checker.feed_all([hook("c-1", "viewIsAppearing", animated=False)])
    assert v.event == "viewIsAppearing" and "right after its viewWillAppear" in v.message
    twice = AppearanceChecker()
    found = twice.feed_all([hook("c-2", "init"), hook("c-2", "viewWillAppear", animated=True),
                            hook("c-2", "viewIsAppearing", animated=True), hook("c-2", "viewIsAppearing", animated=True)])
    assert [v.event for v in found] == ["viewIsAppearing"]


def test_every_cell_outside_the_table_is_a_violation():
    """From each state, each hook the table does not run from it is reported; the others are not."""
    for state, hook_name in itertools.product(STATES, APPEARANCE):
        checker = AppearanceChecker()
        checker.feed(hook("c-9", "init"))
        checker.states["c-9"] = state
        legal = any(s == state and h == hook_name for (s, _), (_, h) in TABLE.items())
        found = checker.feed(hook("c-9", hook_name))
        assert (found is None) == legal, (state, hook_name)


def test_a_violation_says_who_what_when_and_why():
    checker = AppearanceChecker()
    checker.feed(hook("c-3", "init"))
    event = child("c-3", "viewDidAppear", 2)
    found = checker.feed(event)
    assert found is not None and checker.violations == [found] and checker.illegal == [found]
    assert (found.container, found.event, found.state, found.seq) == ("c-3", "viewDidAppear", "disappeared",
                                                                       event["seq"])
    assert str(found) == (f"c-3 (seq {event['seq']}, page 2 of p-1) viewDidAppear while disappeared: "
                          "docs/lifecycle.md's table runs viewDidAppear only from appearing")
    with pytest.raises(LifecycleAssertionError, match=r"1 appearance problem\(s\):\n  c-3 .* viewDidAppear"):
        checker.check()


def test_the_hosts_unbalanced_reports_are_violations_too():
    checker = AppearanceChecker()
    report = hook("c-4", "unbalancedAppearanceTransition", call="endAppearance", state="disappeared")
    checker.feed(report)
    assert checker.unbalanced == [report] and checker.illegal == []
    with pytest.raises(AssertionError, match="the host refused endAppearance in state disappeared"):
        checker.check()


def test_at_rest_a_container_left_halfway_is_a_problem():
    checker = AppearanceChecker()
    checker.feed_all([hook("c-5", "init"), hook("c-5", "viewWillAppear")])
    checker.check()  # while moving, appearing is fine
    assert checker.in_transition() == {"c-5": "appearing"}
    with pytest.raises(LifecycleAssertionError, match="c-5 is still appearing at rest: its viewWillAppear has "
                                                      "no viewDidAppear"):
        checker.check(at_rest=True)


def test_a_container_seen_mid_life_is_taken_as_it_comes_and_deinit_forgets_it():
    checker = AppearanceChecker()
    checker.feed(hook("c-6", "viewDidDisappear"))  # its earlier events went elsewhere
    assert checker.ok and checker.state("c-6") == "disappeared"
    checker.feed(hook("c-6", "deinit"))
    assert checker.state("c-6") is None
    checker.feed(hook("c-6", "viewWillAppear"))  # a new life: nothing to check it against
    assert checker.ok


def test_the_checker_takes_events_in_every_shape_and_ignores_other_topics():
    params = [hook("c-7", "init"), hook("c-7", "viewDidAppear")]
    shapes = {"params": lambda topic, p: p, "Event": Event,
              "notification": lambda topic, p: {"jsonrpc": "2.0", "method": topic, "params": p}}
    for name, shape in shapes.items():
        checker = AppearanceChecker()
        checker.feed(shape("pool", {"seq": 1, "kind": "warmed", "container": "c-7"}))
        if name != "params":  # params alone do not say their topic: only a container and a hook do
            checker.feed(shape("page", {"kind": "willTransition", "event": "viewDidAppear", "container": "c-7"}))
        assert checker.states == {} and checker.ok, name
        assert len(checker.feed_all(shape("lifecycle", p) for p in params)) == 1, name
        assert checker.states == {"c-7": "appeared"}, name


# ---------------------------------------------------------------------------------------------------
# Filters and lines


def mixed_events() -> list[Any]:
    return [Event("pool", {"kind": "warmed", "container": "c-1"}),
            {"jsonrpc": "2.0", "method": "lifecycle", "params": hook("c-1", "viewDidLoad", offscreen=True)},
            Event("lifecycle", hook("c-1", "viewWillAppear", offscreen=True)),
            child("c-2", "viewWillAppear", 0),
            child("c-3", "viewWillDisappear", 1, session="p-2"),
            hook("c-2", "viewDidAppear", page={"session": "p-1", "index": 0})]


def test_filters_pick_lifecycle_appearance_containers_screens_and_sessions():
    events = mixed_events()
    assert [p["event"] for p in lifecycle_events(events)] == ["viewDidLoad", "viewWillAppear", "viewWillAppear",
                                                              "viewWillDisappear", "viewDidAppear"]
    assert len(only_appearance(events)) == 4
    assert [p["event"] for p in only_containers(events, "c-1")] == ["viewDidLoad", "viewWillAppear"]
    assert {p["container"] for p in without_offscreen(events)} == {"c-2", "c-3"}
    assert [p["container"] for p in of_page_session(events, "p-1")] == ["c-2", "c-2"]
    # Filters return params, which every function here takes again.
    assert calls(without_offscreen(events), short=True) == ["c-2 willAppear", "c-3 willDisappear", "c-2 didAppear"]


def test_calls_and_page_calls_write_lines():
    events = mixed_events()
    assert calls(events) == ["c-1 viewWillAppear", "c-2 viewWillAppear", "c-3 viewWillDisappear",
                             "c-2 viewDidAppear"]
    assert calls(events, appearance_only=False, containers=["c-1"]) == ["c-1 viewDidLoad", "c-1 viewWillAppear"]
    assert page_calls(events) == ["willAppear 0", "willDisappear 1", "didAppear 0"]
    assert page_calls(events, "p-1", short=False) == ["viewWillAppear 0", "viewDidAppear 0"]


# ---------------------------------------------------------------------------------------------------
# assert_calls


def test_assert_calls_passes_on_the_exact_calls_in_either_naming():
    events = push_events()
    got = assert_calls(events, ["c-1 willAppear", "c-1 didAppear", "c-2 willAppear", "c-1 willDisappear",
                                "c-2 didAppear", "c-1 didDisappear"])
    assert got[:2] == ["c-1 willAppear", "c-1 didAppear"]
    assert_calls(events, ["c-2 viewWillAppear", "c-1 viewWillDisappear", "c-2 viewDidAppear",
                          "c-1 viewDidDisappear"][:1] + ["c-2 viewDidAppear"], containers=["c-2"])
    assert_calls(events, {"c-2": ["willAppear", "didAppear"], "c-1": ["willAppear", "didAppear", "willDisappear",
                                                                      "didDisappear"]})
    assert_calls([], [])


def test_a_difference_shows_the_first_one_and_both_lists_side_by_side():
    events = push_events()[6:]  # c-2 willAppear, c-1 willDisappear, c-2 didAppear, c-1 didDisappear
    seqs = [e["seq"] for e in events if e["event"] in SHORT]
    with pytest.raises(LifecycleAssertionError) as failed:
        assert_calls(events, ["c-2 willAppear", "c-1 willDisappear", "c-1 didDisappear", "c-2 didAppear"])
    assert str(failed.value) == "\n".join([
        "lifecycle calls differ at call 3 (expected 4, got 4):",
        "  expected: c-1 didDisappear",
        "  got:      c-2 didAppear",
        "     expected            got",
        f"   1 c-2 willAppear      c-2 willAppear  (seq {seqs[0]})",
        f"   2 c-1 willDisappear   c-1 willDisappear  (seq {seqs[1]})",
        f">  3 c-1 didDisappear    c-2 didAppear  (seq {seqs[2]})",
        f"   4 c-2 didAppear       c-1 didDisappear  (seq {seqs[3]})",
    ])
    assert failed.value.index == 2 and failed.value.expected[2] == "c-1 didDisappear"
    assert failed.value.got == ["c-2 willAppear", "c-1 willDisappear", "c-2 didAppear", "c-1 didDisappear"]


def test_missing_and_extra_calls_are_named():
    events = push_events()[6:]
    with pytest.raises(LifecycleAssertionError, match=r"expected 5, got only 4; the first missing is call 5:\n"
                                                      r"  expected: c-2 viewWillDisappear"):
        assert_calls(events, ["c-2 viewWillAppear", "c-1 viewWillDisappear", "c-2 viewDidAppear",
                              "c-1 viewDidDisappear", "c-2 viewWillDisappear"])
    with pytest.raises(LifecycleAssertionError, match=r"expected 1, got 2; the first extra is call 2:\n"
                                                      r"  got:      c-2 didAppear"):
        assert_calls(events, {"c-2": ["willAppear"]})


def test_per_container_failures_list_every_container_that_differs():
    events = push_events()
    with pytest.raises(LifecycleAssertionError) as failed:
        assert_calls(events, {"c-1": ["willAppear"], "c-2": ["didAppear"]})
    text = str(failed.value)
    assert text.startswith("calls of c-1: expected 1, got 4") and "\n\ncalls of c-2 differ at call 1" in text
    assert failed.value.got == ["c-1 willAppear", "c-1 didAppear", "c-1 willDisappear", "c-1 didDisappear"]


def test_page_lines_compare_children_by_index_in_the_articles_words():
    events = [child("c-2", "viewWillAppear", 0), child("c-1", "viewWillDisappear", 1),
              child("c-9", "viewWillAppear", 4, session="p-2"),
              child("c-2", "viewDidAppear", 0), child("c-1", "viewDidDisappear", 1)]
    assert_calls(events, ["willAppear 0", "willDisappear 1", "didAppear 0", "didDisappear 1"], session="p-1")
    with pytest.raises(LifecycleAssertionError, match=r"page calls of p-1 differ at call 1 .*\n"
                                                      r"  expected: viewWillAppear 1\n  got:      viewWillAppear 0"):
        assert_calls(events, ["viewWillAppear 1"], session="p-1")
    with pytest.raises(LifecycleAssertionError, match="the first extra is call 1:\n  got:      willAppear 0"):
        assert_calls(events, [], session="p-1")
    assert_calls(events, ["c-9 willAppear"], session="p-2")  # container lines, one session's children


def test_other_hooks_are_compared_only_when_asked():
    events = push_events()
    with pytest.raises(ValueError, match="viewDidLoad.*not an appearance hook"):
        assert_calls(events, ["c-2 viewDidLoad"])
    assert_calls(events, {"c-2": ["init", "willMoveToParent", "loadView", "willAppear", "didAppear",
                                  "didMoveToParent"]}, appearance_only=False)
    with pytest.raises(ValueError, match="mixes"):
        assert_calls(events, ["c-2 willAppear", "willAppear 0"])
    with pytest.raises(TypeError):
        assert_calls(events, "c-2 willAppear")


def page_child_events() -> list[dict[str, Any]]:
    """A page child's whole life on page 1 of p-1: its other hooks come with the page's index too."""
    return [child("c-2", name, 1) for name in ("init", "viewDidLoad", "viewWillAppear", "viewDidAppear")]


@pytest.mark.parametrize("events, expected, options", [
    (page_child_events(), [], {"session": "p-1", "appearance_only": False}),  # "init 1", "willAppear 1", ...
    (page_child_events(), [], {"appearance_only": False}),                    # "c-2 init", "c-2 viewWillAppear"
    (page_child_events(), ["willAppear 1"], {"session": "p-1"}),
    (push_events(), ["c-1 willAppear"], {"appearance_only": False}),          # "c-1 init", "c-1 willAppear", ...
    (push_events(), {"c-2": []}, {"appearance_only": False}),                 # "c-2 init", ... per container
    (push_events(), {"c-1": ["willAppear"]}, {}),
])
def test_every_line_the_got_column_prints_is_accepted_as_expected(events, expected, options):
    """A failure's got column, copied into the test as it is, is what the test expects: it passes."""
    with pytest.raises(LifecycleAssertionError) as failed:
        assert_calls(events, expected, **options)
    got = failed.value.got
    again = {next(iter(expected)): got} if isinstance(expected, dict) else got
    assert assert_calls(events, again, **options) == got


def test_page_lines_name_any_hook_by_index():
    events = page_child_events()
    assert assert_calls(events, ["init 1", "viewDidLoad 1", "willAppear 1", "didAppear 1"],
                        appearance_only=False) == ["init 1", "viewDidLoad 1", "willAppear 1", "didAppear 1"]
    with pytest.raises(LifecycleAssertionError, match="expected: viewDidLoad 1\n  got:      init 1"):
        assert_calls(events, ["viewDidLoad 1"], appearance_only=False)


def test_a_refused_expected_line_is_named_by_its_text_and_number():
    events = page_child_events()
    with pytest.raises(ValueError, match=r"^expected line 2 \(expected\[1\]\), 'init 1', names init, which is "
                                         r"not an appearance hook: pass appearance_only=False"):
        assert_calls(events, ["willAppear 1", "init 1"])
    with pytest.raises(ValueError, match=r"^expected line 3 \(expected\[2\]\), 'c-2 will Appear', is not "
                                         r"'CONTAINER HOOK' or 'HOOK INDEX'"):
        assert_calls(events, ["c-2 willAppear", "c-2 didAppear", "c-2 will Appear"])
    with pytest.raises(ValueError, match=r"^expected mixes 'CONTAINER HOOK' and 'HOOK INDEX' lines: expected line 1 "
                                         r"\(expected\[0\]\), 'c-2 willAppear', is one, expected line 3 "
                                         r"\(expected\[2\]\), 'didAppear 1', the other"):
        assert_calls(events, ["c-2 willAppear", "c-2 willAppear", "didAppear 1"])
    with pytest.raises(ValueError, match=r"^expected\['c-2'\] line 2 \(expected\['c-2'\]\[1\]\), 'viewDidLoad', "
                                         r"names viewDidLoad, which is not an appearance hook"):
        assert_calls(events, {"c-2": ["willAppear", "viewDidLoad"]})
    with pytest.raises(ValueError, match=r"^expected\['c-2'\] line 1 \(expected\['c-2'\]\[0\]\), 'c-1 willAppear', "
                                         r"is not 'HOOK' or 'c-2 HOOK'"):
        assert_calls(events, {"c-2": ["c-1 willAppear"]})


FAILING = """
    from greenroom.lifecycle import AppearanceChecker, assert_calls, assert_page_at_rest

    def event(name, seq):
        return {"seq": seq, "t": 0.0, "container": "c-1", "class": "Container", "event": name, "offscreen": False}

    def test_calls():
        assert_calls([event("viewWillAppear", 7)], ["c-1 didAppear"])

    def test_per_container():
        assert_calls([event("viewWillAppear", 7)], {"c-1": ["didAppear"]})

    def test_refused_line():
        assert_calls([event("viewWillAppear", 7)], ["willAppear 1", "init 1"])

    def test_checker():
        checker = AppearanceChecker()
        checker.feed_all([event("init", 1), event("viewDidAppear", 2)])
        checker.check()

    def test_page_at_rest():
        info = {"phase": "dragging", "index": 0, "guess": None, "children": []}
        assert_page_at_rest(lambda method, params: info, "p-1", 0)
"""


def test_a_failing_helper_shows_the_tests_line_and_its_message_not_the_librarys_source(pytester):
    """The helpers hide their own frames (__tracebackhide__): under pytest's default traceback a failure is
    the test's own line, then the message (the table first), and none of greenroom.lifecycle's source."""
    pytester.makepyfile(test_failing=FAILING)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=5)
    out = result.stdout.str()
    assert "greenroom/lifecycle.py" not in out and "__tracebackhide__" not in out, out
    sections = re.split(r"^_+ (test_\w+) _+$", out, flags=re.M)[1:]
    shown = dict(zip(sections[::2], (text.strip("\n").splitlines() for text in sections[1::2])))
    first = {"test_calls": "LifecycleAssertionError: lifecycle calls differ at call 1 (expected 1, got 1):",
             "test_per_container": "LifecycleAssertionError: calls of c-1 differ at call 1 (expected 1, got 1):",
             "test_refused_line": "ValueError: expected line 2 (expected[1]), 'init 1', names init, which is not",
             "test_checker": "LifecycleAssertionError: 1 appearance problem(s):",
             "test_page_at_rest": "LifecycleAssertionError: page session p-1 is not at rest as docs/pages.md says"}
    assert sorted(shown) == sorted(first)
    for name, lines in shown.items():
        # The test's source down to the line that called the helper, then the failure.
        at = next((i for i, line in enumerate(lines) if line.startswith("E ") and first[name] in line), None)
        assert at is not None and at < 8 and lines[at - 1].startswith(">"), (name, lines)
    table = shown["test_calls"]
    assert [line.split(maxsplit=1)[1] for line in table if "seq 7" in line] == [
        ">  1 c-1 didAppear   c-1 willAppear  (seq 7)"], table


def test_offscreen_calls_can_be_left_out():
    events = [hook("c-1", "viewWillAppear", offscreen=True), hook("c-2", "viewWillAppear")]
    assert_calls(events, ["c-2 willAppear"], offscreen=False)
    with pytest.raises(LifecycleAssertionError):
        assert_calls(events, ["c-2 willAppear"])


# ---------------------------------------------------------------------------------------------------
# Gestures: the calls they send


def test_drag_and_release_pages_send_the_scroll_stream():
    rec = Recorder()
    drag_pages(rec, "p-1", [100, 80, 30])
    release_pages(rec, "p-1", 0)
    release_pages(rec, "p-1", 200, decelerate=False)
    S = {"session": "p-1"}
    assert rec.sent == [
        ("page.willBeginDragging", {**S, "offset": 100}),
        ("page.didScroll", {**S, "offset": 80}),
        ("page.didScroll", {**S, "offset": 30}),
        ("page.willEndDragging", {**S, "offset": 0, "velocity": 0.5}),
        ("page.didEndDragging", {**S, "offset": 0, "willDecelerate": True}),
        ("page.didEndDecelerating", {**S, "offset": 0}),
        ("page.didEndDragging", {**S, "offset": 200, "willDecelerate": False}),
    ]


def test_swipe_pages_lifts_where_the_finger_is_and_rests_at_rest():
    rec = Recorder({"page.didEndDecelerating": {"phase": "idle", "index": 0}})
    assert swipe_pages(rec, "p-1", [375, 340, 150], 0, velocity=-1.2, target=0) == {"phase": "idle", "index": 0}
    S = {"session": "p-1"}
    assert rec.sent[2:] == [
        ("page.didScroll", {**S, "offset": 150}),
        ("page.willEndDragging", {**S, "offset": 150, "velocity": -1.2, "targetOffset": 0}),
        ("page.didEndDragging", {**S, "offset": 150, "willDecelerate": True}),
        ("page.didEndDecelerating", {**S, "offset": 0}),
    ]
    rec.sent.clear()
    swipe_pages(rec, "p-1", [200, 260], 200, decelerate=False)
    assert rec.sent[2:] == [("page.willEndDragging", {**S, "offset": 260, "velocity": 1.0}),
                            ("page.didEndDragging", {**S, "offset": 200, "willDecelerate": False})]


def offsets(sent: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return [(m.split(".")[1], p.get("offset")) for m, p in sent]


def test_swipe_page_goes_from_page_to_page_at_the_page_width():
    rec = Recorder()
    swipe_page(rec, "p-1", 1, 0, width=100)
    assert offsets(rec.sent) == [("willBeginDragging", 100), ("didScroll", 80), ("didScroll", 60),
                                 ("didScroll", 40), ("willEndDragging", 40), ("didEndDragging", 40),
                                 ("didEndDecelerating", 0)]
    assert rec.sent[4][1]["velocity"] == -1.0 and rec.sent[4][1]["targetOffset"] == 0
    rec.sent.clear()
    # Two pages on: the finger passes page 2 (glimpsed) and lifts 40% of a page before page 3.
    swipe_page(rec, "p-1", 1, 3, width=100, steps=2)
    assert offsets(rec.sent) == [("willBeginDragging", 100), ("didScroll", 180), ("didScroll", 260),
                                 ("willEndDragging", 260), ("didEndDragging", 260), ("didEndDecelerating", 300)]


def test_a_cancelled_swipe_page_springs_back():
    rec = Recorder()
    swipe_page(rec, "p-1", 1, 2, width=100, cancelled=True, steps=2)
    assert offsets(rec.sent) == [("willBeginDragging", 100), ("didScroll", 120), ("didScroll", 140),
                                 ("willEndDragging", 140), ("didEndDragging", 140), ("didEndDecelerating", 100)]
    assert rec.sent[3][1]["velocity"] == -1.0 and rec.sent[3][1]["targetOffset"] == 100
    rec.sent.clear()
    swipe_page(rec, "p-1", 1, 2, width=100, cancelled=True, steps=1, decelerate=False)
    assert offsets(rec.sent) == [("willBeginDragging", 100), ("didScroll", 140), ("willEndDragging", 140),
                                 ("didEndDragging", 100)]
    assert rec.sent[-1][1]["willDecelerate"] is False


def test_swipe_page_refuses_what_is_not_a_swipe():
    for args, kwargs in [((1, 1), {"width": 100}), ((0, 1), {"width": 0}), ((0, 1), {"width": 100, "steps": 0})]:
        rec = Recorder()
        with pytest.raises(ValueError):
            swipe_page(rec, "p-1", *args, **kwargs)
        assert rec.sent == []


def test_assert_page_at_rest_reads_page_info():
    info = {"phase": "idle", "index": 0, "guess": None,
            "children": [{"index": 0, "container": "c-2", "state": "appeared"},
                         {"index": 1, "container": "c-1", "state": "disappeared"}]}
    assert assert_page_at_rest(Recorder({"page.info": info}), "p-1", 0) == info
    moving = {**info, "phase": "decelerating", "guess": 1,
              "children": [{"index": 0, "container": "c-2", "state": "appeared"},
                           {"index": 1, "container": "c-1", "state": "appearing"}]}
    with pytest.raises(LifecycleAssertionError) as failed:
        assert_page_at_rest(Recorder({"page.info": moving}), "p-1", 1)
    assert ("phase is decelerating, not idle; the current page is 0, not 1; a guess is left: page 1; "
            "page 1 (c-1) is appearing, not disappeared") in str(failed.value)


def test_range_drag_without_a_fling_releases_at_rest():
    rec = Recorder({"range.didEndDecelerating": {"phase": "idle"}})
    done = range_drag(rec, "r-1", [0, 800, 1600], frame_ms=16)
    S = {"session": "r-1"}
    assert rec.sent == [
        ("range.willBeginDragging", {**S, "offset": 0}),
        ("clock.advance", {"ms": 16}), ("range.didScroll", {**S, "offset": 800}),
        ("clock.advance", {"ms": 16}), ("range.didScroll", {**S, "offset": 1600}),
        ("range.willEndDragging", {**S, "velocity": 0}),
        ("range.didEndDecelerating", S),
    ]
    assert done.target is None and done.reply == {"phase": "idle"}


def test_range_drag_flings_to_the_hosts_target():
    # The host clamps the target to the content: the frames go to its answer, not to the one asked.
    rec = Recorder({"range.willEndDragging": {"session": "r-1", "targetOffset": 900.0}})
    done = range_drag(rec, "r-1", [0, 300], fling=2.0, target=5000, fling_frames=3)
    S = {"session": "r-1"}
    assert rec.sent[2:] == [
        ("range.willEndDragging", {**S, "velocity": 2.0, "targetOffset": 5000}),
        ("range.didScroll", {**S, "offset": 500.0}), ("range.didScroll", {**S, "offset": 700.0}),
        ("range.didScroll", {**S, "offset": 900.0}),
        ("range.didEndDecelerating", S),
    ]
    assert done.target == 900.0
    rec.sent.clear()
    range_drag(rec, "r-1", [300], fling=-1.0, fling_frames=0)
    assert rec.sent[1:] == [("range.willEndDragging", {**S, "velocity": -1.0}),
                            ("range.didEndDecelerating", {**S, "offset": 900.0})]


def test_interactive_pop_through_a_real_client():
    """The host's interactive pop (stack.beginInteractivePop, updateInteractivePop {progress},
    finishInteractivePop / cancelInteractivePop {duration?}) through greenroom.Client, on a scripted
    transport that answers as the host will."""

    def respond(message: dict[str, Any]) -> list[bytes]:
        params = message.get("params") or {}
        return [reply(message, {"stack": params.get("stack"), "method": message["method"]})]

    transport = ScriptedTransport(respond)
    with Client(transport=transport, timeout=1) as client:
        last = interactive_pop(client, "s-1", [0.1, 0.45, 0.8], finish=True, duration=120)
        interactive_pop(client, "s-1", [0.3], finish=False)
    assert [(m["method"], m.get("params")) for m in transport.sent] == [
        ("stack.beginInteractivePop", {"stack": "s-1"}),
        ("stack.updateInteractivePop", {"stack": "s-1", "progress": 0.1}),
        ("stack.updateInteractivePop", {"stack": "s-1", "progress": 0.45}),
        ("stack.updateInteractivePop", {"stack": "s-1", "progress": 0.8}),
        ("stack.finishInteractivePop", {"stack": "s-1", "duration": 120}),
        ("stack.beginInteractivePop", {"stack": "s-1"}),
        ("stack.updateInteractivePop", {"stack": "s-1", "progress": 0.3}),
        ("stack.cancelInteractivePop", {"stack": "s-1"}),
    ]
    assert last == {"stack": "s-1", "method": "stack.finishInteractivePop"}


def test_a_plain_function_is_a_client_too():
    sent = []
    drag_pages(lambda method, params: sent.append(method), "p-1", [0, 10])
    assert sent == ["page.willBeginDragging", "page.didScroll"]


def test_the_async_variants_send_the_same_calls():
    sync, aio = Recorder({"range.willEndDragging": {"targetOffset": 40.0}}), \
        AsyncRecorder({"range.willEndDragging": {"targetOffset": 40.0}})
    swipe_page(sync, "p-1", 2, 1, width=50, cancelled=True)
    range_drag(sync, "r-1", [0, 10], fling=1.0)
    drag_pages(sync, "p-1", [5])
    interactive_pop(sync, "s-1", [0.5], finish=False, duration=80)

    async def main() -> None:
        await swipe_page_async(aio, "p-1", 2, 1, width=50, cancelled=True)
        done = await range_drag_async(aio, "r-1", [0, 10], fling=1.0)
        assert done.target == 40.0
        await drag_pages_async(aio, "p-1", [5])
        await interactive_pop_async(aio, "s-1", [0.5], finish=False, duration=80)

    asyncio.run(main())
    assert aio.sent == sync.sent and len(sync.sent) == 7 + 7 + 1 + 3


def test_a_sync_helper_given_an_async_client_says_so():
    with pytest.raises(TypeError, match="_async variant"):
        drag_pages(AsyncRecorder(), "p-1", [0])
