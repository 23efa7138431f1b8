"""The lifecycle model: what a test of view-controller lifecycles needs beside the client.

Greenroom runs UIKit's appearance rules (docs/lifecycle.md): every container goes through a four-state
table, driven by ``beginAppearanceTransition`` / ``endAppearanceTransition`` calls, and every hook that runs
is one ``lifecycle`` event. This module is that table on the client's side, and the words tests use about
it:

- :class:`AppearanceChecker`, fed with lifecycle events, reports every hook the table does not allow and
  every ``unbalancedAppearanceTransition`` the host reported, and at rest every container left halfway;
- :data:`SHORT` and :func:`short_name`: ``viewWillAppear`` -> ``willAppear``, the way the article on
  UIPageViewController writes them;
- :func:`assert_calls`: "these containers got exactly these calls, in this order", failing with the first
  difference and both lists side by side; :func:`calls` and :func:`page_calls` give the same lines;
- filters: :func:`lifecycle_events`, :func:`only_appearance`, :func:`only_containers`,
  :func:`without_offscreen`, :func:`of_page_session`;
- gestures, as a client reports a finger: page sessions (:func:`drag_pages`, :func:`release_pages`,
  :func:`swipe_pages`, and :func:`swipe_page` from page *i* to page *j*, cancelled or not; docs/pages.md),
  range sessions (:func:`range_drag`, a drag path with an optional fling; docs/ranges.md) and stacks
  (:func:`interactive_pop`). Each has an ``*_async`` twin for :class:`greenroom.aio.AsyncClient`.

Events may be given as the client delivers them (:class:`greenroom.Event` from ``client.events()``), as a
handler receives them (the ``params`` dict), or as whole notifications (``{"method": "lifecycle",
"params": {...}}``)::

    from greenroom import Client
    from greenroom.lifecycle import AppearanceChecker, assert_calls, swipe_page

    with Client() as client:
        client.subscribe(["lifecycle"])
        checker = AppearanceChecker()
        client.on("lifecycle", checker.feed)
        session = client.call("page.create", {"class": "Container", "count": 3, "width": 375,
                                              "height": 667})["session"]
        seen = []
        client.on("lifecycle", seen.append)
        swipe_page(client, session, 0, 1, width=375)
        assert_calls(seen, ["willAppear 1", "willDisappear 0", "didAppear 1", "didDisappear 0"])
        checker.check(at_rest=True)

The gesture helpers only send calls: events arrive as the client delivers them, and under
``--clock virtual`` time moves only when a test calls ``clock.advance``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, Union, cast, runtime_checkable

from .events import Event

__all__ = [
    "APPEARANCE",
    "CALLS",
    "STATES",
    "SHORT",
    "TABLE",
    "AppearanceChecker",
    "AsyncCaller",
    "Caller",
    "LifecycleAssertionError",
    "RangeDrag",
    "SupportsCall",
    "Violation",
    "assert_calls",
    "assert_page_at_rest",
    "assert_page_at_rest_async",
    "calls",
    "drag_pages",
    "drag_pages_async",
    "interactive_pop",
    "interactive_pop_async",
    "lifecycle_events",
    "long_name",
    "of_page_session",
    "only_appearance",
    "only_containers",
    "page_calls",
    "range_drag",
    "range_drag_async",
    "release_pages",
    "release_pages_async",
    "short_name",
    "swipe_page",
    "swipe_page_async",
    "swipe_pages",
    "swipe_pages_async",
    "without_offscreen",
]

# ---------------------------------------------------------------------------------------------------
# The appearance table (docs/lifecycle.md)

#: The four appearance hooks, in UIKit's names.
APPEARANCE: tuple[str, ...] = ("viewWillAppear", "viewDidAppear", "viewWillDisappear", "viewDidDisappear")

#: A container's appearance states; every container starts ``disappeared``.
STATES: tuple[str, ...] = ("disappeared", "appearing", "appeared", "disappearing")

#: The calls a parent makes on a child, as the host names them in ``unbalancedAppearanceTransition``.
CALLS: tuple[str, ...] = ("beginAppearance(true)", "beginAppearance(false)", "endAppearance")

#: docs/lifecycle.md's table: ``(state, call) -> (next state, hook)``. Every other pair is unbalanced: the
#: host refuses it, runs no hook and reports it as an ``unbalancedAppearanceTransition`` event.
TABLE: dict[tuple[str, str], tuple[str, str]] = {
    ("disappeared", "beginAppearance(true)"): ("appearing", "viewWillAppear"),
    ("disappearing", "beginAppearance(true)"): ("appearing", "viewWillAppear"),
    ("appearing", "beginAppearance(false)"): ("disappearing", "viewWillDisappear"),
    ("appeared", "beginAppearance(false)"): ("disappearing", "viewWillDisappear"),
    ("appearing", "endAppearance"): ("appeared", "viewDidAppear"),
    ("disappearing", "endAppearance"): ("disappeared", "viewDidDisappear"),
}

#: The short names the article on UIPageViewController uses ("Will Appear 0"): hook -> short name.
SHORT: dict[str, str] = {
    "viewWillAppear": "willAppear",
    "viewDidAppear": "didAppear",
    "viewWillDisappear": "willDisappear",
    "viewDidDisappear": "didDisappear",
}

_LONG = {short: hook for hook, short in SHORT.items()}

# The hook's view of the table: the states it may run from, and the state it leaves.
_FROM: dict[str, frozenset[str]] = {
    hook: frozenset(state for (state, _), (_, h) in TABLE.items() if h == hook) for hook in APPEARANCE
}
_TO: dict[str, str] = {hook: after for (after, hook) in TABLE.values()}

_UNBALANCED = "unbalancedAppearanceTransition"
_AT_REST = frozenset(("disappeared", "appeared"))


def short_name(hook: str) -> str:
    """``viewWillAppear`` -> ``willAppear`` (the four appearance hooks); any other name is returned as is."""
    return SHORT.get(hook, hook)


def long_name(name: str) -> str:
    """``willAppear`` -> ``viewWillAppear``: the hook's UIKit name; any other name is returned as is."""
    return _LONG.get(name, name)


# ---------------------------------------------------------------------------------------------------
# Events as the clients deliver them

#: What every function here accepts as one event: an :class:`~greenroom.Event`, a handler's params dict,
#: or a whole notification ``{"method": topic, "params": {...}}``.
EventLike = Union[Event, Mapping[str, Any]]


def _lifecycle(event: EventLike) -> Mapping[str, Any] | None:
    """The params of a lifecycle event; None for an event of another topic."""
    params: Any = None
    if isinstance(event, Event):
        params = event.params if event.topic == "lifecycle" else None
    elif isinstance(event, Mapping):
        if "method" in event:  # a whole notification
            params = event.get("params") if event["method"] == "lifecycle" else None
        else:  # a handler's params: a lifecycle event's have a container and a hook
            params = event
    if isinstance(params, Mapping) and "container" in params and "event" in params:
        return params
    return None


def lifecycle_events(events: Iterable[EventLike]) -> list[Mapping[str, Any]]:
    """The params of the ``lifecycle`` events among ``events``, in order (other topics are left out)."""
    return [p for p in map(_lifecycle, events) if p is not None]


def only_appearance(events: Iterable[EventLike]) -> list[Mapping[str, Any]]:
    """The lifecycle events among ``events`` whose hook is an appearance hook (:data:`APPEARANCE`)."""
    return [p for p in lifecycle_events(events) if p["event"] in SHORT]


def only_containers(events: Iterable[EventLike], *containers: str) -> list[Mapping[str, Any]]:
    """The lifecycle events among ``events`` of the given containers (``"c-2"``, ...)."""
    wanted = set(containers)
    return [p for p in lifecycle_events(events) if p["container"] in wanted]


def without_offscreen(events: Iterable[EventLike]) -> list[Mapping[str, Any]]:
    """The lifecycle events among ``events`` that ran on screen: those of containers in a green room
    (``offscreen: true``, see docs/pools.md) are left out, as exposure statistics leave them out."""
    return [p for p in lifecycle_events(events) if not p.get("offscreen")]


def of_page_session(events: Iterable[EventLike], session: str) -> list[Mapping[str, Any]]:
    """The lifecycle events among ``events`` of ``session``'s children (``page: {session, index}``)."""
    return [p for p in lifecycle_events(events) if _page(p).get("session") == session and "index" in _page(p)]


def _page(params: Mapping[str, Any]) -> Mapping[str, Any]:
    page = params.get("page")
    return page if isinstance(page, Mapping) else {}


# ---------------------------------------------------------------------------------------------------
# The checker


@dataclass(frozen=True)
class Violation:
    """One thing :class:`AppearanceChecker` found wrong.

    ``event`` is the hook that broke the table, or ``"unbalancedAppearanceTransition"`` for a call the host
    refused; ``state`` is the container's state before it; ``params`` the whole event.
    """

    container: str
    event: str
    state: str | None
    seq: int | None
    message: str
    params: Mapping[str, Any]

    def __str__(self) -> str:
        return self.message


class LifecycleAssertionError(AssertionError):
    """A lifecycle expectation failed. The message says what differs; :func:`assert_calls` also sets
    ``expected``, ``got`` (the lines compared) and ``index`` (the first difference, from 0)."""

    def __init__(self, message: str, *, expected: Sequence[str] = (), got: Sequence[str] = (),
                 index: int | None = None) -> None:
        super().__init__(message)
        self.expected = list(expected)
        self.got = list(got)
        self.index = index


class AppearanceChecker:
    """docs/lifecycle.md's appearance table, fed with lifecycle events as they arrive.

    Every container starts ``disappeared`` at its ``init`` and is forgotten at its ``deinit``. A
    container first seen in the middle of its life (its ``init`` went to another connection, or came
    before the subscription) is taken in whatever state its first appearance hook leaves it.

    ``feed`` it every event (any topic; others are ignored), for instance as a handler
    (``client.on("lifecycle", checker.feed)``), then :meth:`check`. ``violations`` lists what was wrong, in
    order; ``states`` each live container's state.
    """

    def __init__(self) -> None:
        self.states: dict[str, str] = {}
        self.violations: list[Violation] = []
        self._last: dict[str, str] = {}  # container -> its last appearance hook, for messages

    @property
    def illegal(self) -> list[Violation]:
        """The appearance hooks that ran from a state the table does not allow."""
        return [v for v in self.violations if v.event != _UNBALANCED]

    @property
    def unbalanced(self) -> list[Mapping[str, Any]]:
        """The params of the ``unbalancedAppearanceTransition`` events the host sent (``call``, ``state``)."""
        return [v.params for v in self.violations if v.event == _UNBALANCED]

    @property
    def ok(self) -> bool:
        """True while nothing was wrong."""
        return not self.violations

    def state(self, container: str) -> str | None:
        """``container``'s state, None for a container not seen (or deinit'd)."""
        return self.states.get(container)

    def in_transition(self) -> dict[str, str]:
        """The containers left ``appearing`` or ``disappearing``: container -> state."""
        return {c: s for c, s in self.states.items() if s not in _AT_REST}

    def feed(self, event: EventLike) -> Violation | None:
        """Take one event; returns the violation it is, if any (also kept in ``violations``)."""
        p = _lifecycle(event)
        if p is None:
            return None
        container, hook = p["container"], p["event"]
        if hook == "init":
            self.states[container] = "disappeared"
        elif hook == "deinit":
            self.states.pop(container, None)
            self._last.pop(container, None)
        elif hook == "viewIsAppearing":
            # UIKit 17: once per appearance, right after viewWillAppear (docs/lifecycle.md).
            if self._last.get(container) != "viewWillAppear" or self.states.get(container) != "appearing":
                return self._add(p, self.states.get(container),
                                 f"{_where(p)} viewIsAppearing not right after its viewWillAppear: UIKit sends it "
                                 "once per appearance, after viewWillAppear and before viewDidAppear")
            self._last[container] = hook
        elif hook in _FROM:
            before = self.states.get(container)
            self.states[container] = _TO[hook]
            self._last[container] = hook
            if before is not None and before not in _FROM[hook]:
                allowed = " or ".join(s for s in STATES if s in _FROM[hook])
                return self._add(p, before, f"{_where(p)} {hook} while {before}: docs/lifecycle.md's table "
                                            f"runs {hook} only from {allowed}")
        elif hook == _UNBALANCED:
            call, state = p.get("call"), p.get("state")
            return self._add(p, state, f"{_where(p)} unbalancedAppearanceTransition: the host refused "
                                       f"{call} in state {state}")
        return None

    def feed_all(self, events: Iterable[EventLike]) -> list[Violation]:
        """Take every event of ``events``, in order; returns the violations they are."""
        found = [self.feed(e) for e in events]
        return [v for v in found if v is not None]

    def problems(self, *, at_rest: bool = False) -> list[str]:
        """Every violation as a sentence; with ``at_rest``, also every container left halfway (a
        ``viewWillAppear`` or ``viewWillDisappear`` without its did-hook, when nothing is moving)."""
        lines = [v.message for v in self.violations]
        if at_rest:
            for container, state in self.in_transition().items():
                last = self._last.get(container, "?")
                lines.append(f"{container} is still {state} at rest: its {last} has no "
                              f"{'viewDidAppear' if state == 'appearing' else 'viewDidDisappear'}")
        return lines

    def check(self, *, at_rest: bool = False) -> None:
        """Raise :class:`LifecycleAssertionError` listing every problem (see :meth:`problems`); a test
        calls it at the end, ``at_rest=True`` once every animation and deceleration is over."""
        __tracebackhide__ = True
        lines = self.problems(at_rest=at_rest)
        if lines:
            shown = lines[:20] + ([f"... and {len(lines) - 20} more"] if len(lines) > 20 else [])
            raise LifecycleAssertionError(f"{len(lines)} appearance problem(s):\n  " + "\n  ".join(shown))

    def _add(self, p: Mapping[str, Any], state: str | None, message: str) -> Violation:
        seq = p.get("seq")
        v = Violation(str(p["container"]), str(p["event"]), state, seq if isinstance(seq, int) else None,
                      message, p)
        self.violations.append(v)
        return v


def _where(p: Mapping[str, Any]) -> str:
    """``c-3 (seq 12, page 1 of p-1)``: the container and where to find its event."""
    extra = []
    if isinstance(p.get("seq"), int):
        extra.append(f"seq {p['seq']}")
    page = _page(p)
    if "index" in page:
        extra.append(f"page {page['index']} of {page.get('session')}")
    return f"{p['container']}" + (f" ({', '.join(extra)})" if extra else "")


# ---------------------------------------------------------------------------------------------------
# Calls as lines, and the assertion


def calls(events: Iterable[EventLike], *, short: bool = False, appearance_only: bool = True,
          offscreen: bool = True, containers: Iterable[str] | None = None) -> list[str]:
    """The lifecycle events as lines ``"c-3 viewWillAppear"`` (``"c-3 willAppear"`` with ``short``).

    Only appearance hooks unless ``appearance_only`` is false; ``offscreen=False`` leaves out green-room
    containers; ``containers`` keeps only those.
    """
    return [_line(p, short) for p in _select(events, appearance_only, offscreen, containers)]


def page_calls(events: Iterable[EventLike], session: str | None = None, *, short: bool = True) -> list[str]:
    """The appearance hooks of page-session children as the article writes them: ``"willAppear 0"``
    (``"viewWillAppear 0"`` without ``short``): the hook and the page's index. ``session`` keeps one
    session's children; other containers are left out."""
    return [f"{short_name(p['event']) if short else p['event']} {_page(p)['index']}"
            for p in only_appearance(events)
            if "index" in _page(p) and (session is None or _page(p).get("session") == session)]


def assert_calls(events: Iterable[EventLike], expected: Sequence[str] | Mapping[str, Sequence[str]], *,
                 session: str | None = None, appearance_only: bool = True, offscreen: bool = True,
                 containers: Iterable[str] | None = None) -> list[str]:
    """Assert that the lifecycle calls among ``events`` are exactly ``expected``, in order.

    ``expected`` is one of:

    - lines ``"CONTAINER HOOK"`` (``["c-2 willAppear", "c-1 willDisappear"]``): the calls of every
      container, interleaved as they arrived (``containers=`` narrows them, ``session=`` to one page
      session's children);
    - lines ``"HOOK INDEX"`` (``["willAppear 0", "willDisappear 1"]``): the calls of page-session children
      by page index, the article's notation (``session=`` narrows them to one session; with
      ``appearance_only=False`` any hook: ``"init 1"``);
    - a mapping ``{"c-1": ["willDisappear", "didDisappear"], "c-2": [...]}``: each named container's own
      calls, in order (the order between containers is not compared); a hook may also be written as the
      got column prints it, ``"c-1 willDisappear"``.

    Hooks may be written short (``willAppear``) or in UIKit's names (``viewWillAppear``). Only appearance
    hooks are compared unless ``appearance_only`` is false; ``offscreen=False`` leaves out green-room
    containers. On a difference, raises :class:`LifecycleAssertionError` with the first difference and
    both lists, written the way ``expected`` is. Returns the lines compared (what was got). Every line
    the failure prints in its got column is a line ``expected`` takes; a line it cannot take is a
    ``ValueError`` naming it.
    """
    # pytest shows the test's line and this failure, not this module's source.
    __tracebackhide__ = True
    events = list(events)
    if isinstance(expected, Mapping):
        return _assert_per_container(events, expected, appearance_only, offscreen)
    if isinstance(expected, str):
        raise TypeError("expected is a list of lines, not one string")
    parsed = _parse_lines(expected)
    forms = {form for form, _, _ in parsed}
    short = _written_short([hook for _, _, hook in parsed])
    wanted = [(who, long_name(hook)) for _, who, hook in parsed]
    _check_hooks([(_which(i, line), hook) for i, (line, (_, hook)) in enumerate(zip(expected, wanted))],
                 appearance_only)
    selected = _select(events, appearance_only, offscreen, containers)
    if session is not None:
        selected = [p for p in selected if _page(p).get("session") == session]
    if forms == {"page"} or (not parsed and session is not None):
        # The article's notation is short; UIKit's names only when the lines use them.
        short = short or not any(hook in SHORT or hook in _LONG for _, _, hook in parsed)
        chosen = [p for p in selected if "index" in _page(p)]
        got_pairs = [(str(_page(p)["index"]), str(p["event"])) for p in chosen]
        page_form = True
        what = "page calls" + (f" of {session}" if session is not None else "")
    else:
        chosen = selected
        got_pairs = [(str(p["container"]), str(p["event"])) for p in chosen]
        page_form = False
        what = "lifecycle calls"
    want_lines = [_render(who, hook, short, page_form) for who, hook in wanted]
    got_lines = [_render(who, hook, short, page_form) for who, hook in got_pairs]
    if want_lines != got_lines:
        raise _difference(what, want_lines, got_lines, [p.get("seq") for p in chosen])
    return got_lines


def _assert_per_container(events: list[EventLike], expected: Mapping[str, Sequence[str]],
                          appearance_only: bool, offscreen: bool) -> list[str]:
    __tracebackhide__ = True
    selected = _select(events, appearance_only, offscreen, expected.keys())
    failures: list[str] = []
    first: LifecycleAssertionError | None = None
    everything: list[str] = []
    for container, hooks in expected.items():
        if isinstance(hooks, str):
            raise TypeError(f"expected[{container!r}] is a list of hooks, not one string")
        names = [_own_hook(container, j, h) for j, h in enumerate(hooks)]
        wanted = [(container, long_name(h)) for h in names]
        _check_hooks([(_which(j, h, container), long_name(n)) for j, (h, n) in enumerate(zip(hooks, names))],
                     appearance_only)
        short = _written_short(names)
        mine = [p for p in selected if p["container"] == container]
        want_lines = [f"{container} {short_name(h) if short else h}" for _, h in wanted]
        got_lines = [f"{container} {short_name(p['event']) if short else p['event']}" for p in mine]
        everything.extend(got_lines)
        if want_lines != got_lines:
            error = _difference(f"calls of {container}", want_lines, got_lines,
                                [p.get("seq") for p in mine])
            first = first or error
            failures.append(str(error))
    if failures:
        raise LifecycleAssertionError("\n\n".join(failures), expected=first.expected if first else (),
                                      got=first.got if first else (), index=first.index if first else None)
    return everything


def _select(events: Iterable[EventLike], appearance_only: bool, offscreen: bool,
            containers: Iterable[str] | None) -> list[Mapping[str, Any]]:
    chosen = lifecycle_events(events)
    if appearance_only:
        chosen = [p for p in chosen if p["event"] in SHORT]
    if not offscreen:
        chosen = [p for p in chosen if not p.get("offscreen")]
    if containers is not None:
        wanted = set(containers)
        chosen = [p for p in chosen if p["container"] in wanted]
    return chosen


def _which(index: int, line: object, container: str | None = None) -> str:
    """``expected line 2 (expected[1]), 'init 1',``: a line of ``expected`` as a refusal names it."""
    where = "expected" if container is None else f"expected[{container!r}]"
    return f"{where} line {index + 1} ({where}[{index}]), {line!r},"


def _parse_lines(expected: Sequence[str]) -> list[tuple[str, str, str]]:
    """``"c-2 willAppear"`` -> ("container", "c-2", "willAppear"); ``"willAppear 0"`` -> ("page", "0", ...).

    A hook is never a number, so a line ending in one is ``HOOK INDEX`` whatever the hook: ``init 1`` is
    what the got column prints for a page child's ``init``.
    """
    __tracebackhide__ = True
    parsed: list[tuple[str, str, str]] = []
    for i, line in enumerate(expected):
        parts = line.split() if isinstance(line, str) else []
        if len(parts) != 2:
            raise ValueError(f"{_which(i, line)} is not 'CONTAINER HOOK' or 'HOOK INDEX'")
        a, b = parts
        parsed.append(("page", str(int(b)), a) if b.lstrip("-").isdigit() else ("container", a, b))
    first: dict[str, int] = {}
    for i, (form, _, _) in enumerate(parsed):
        first.setdefault(form, i)
    if len(first) > 1:
        one, other = sorted(first.values())
        raise ValueError(f"expected mixes 'CONTAINER HOOK' and 'HOOK INDEX' lines: {_which(one, expected[one])} "
                         f"is one, {_which(other, expected[other])} the other")
    return parsed


def _own_hook(container: str, index: int, line: str) -> str:
    """A hook of ``expected[container]``: ``"willAppear"``, or ``"c-1 willAppear"`` as the got column
    prints it (the container named again)."""
    __tracebackhide__ = True
    parts = line.split() if isinstance(line, str) else []
    if len(parts) == 1 or (len(parts) == 2 and parts[0] == container):
        return parts[-1]
    raise ValueError(f"{_which(index, line, container)} is not 'HOOK' or '{container} HOOK'")


def _written_short(hooks: Sequence[str]) -> bool:
    """Whether lines naming ``hooks`` use the short names: every appearance hook among them is written
    short (the other hooks have only one name)."""
    appearance = [hook for hook in hooks if hook in SHORT or hook in _LONG]
    return bool(appearance) and all(hook in _LONG for hook in appearance)


def _check_hooks(wanted: Iterable[tuple[str, str]], appearance_only: bool) -> None:
    """``wanted``: (the line as :func:`_which` names it, its hook)."""
    __tracebackhide__ = True
    if appearance_only:
        for which, hook in wanted:
            if hook not in SHORT:
                raise ValueError(f"{which} names {hook}, which is not an appearance hook: "
                                 "pass appearance_only=False to compare every hook")


def _render(who: str, hook: str, short: bool, page_form: bool) -> str:
    name = short_name(hook) if short else hook
    return f"{name} {who}" if page_form else f"{who} {name}"


def _line(p: Mapping[str, Any], short: bool) -> str:
    return f"{p['container']} {short_name(p['event']) if short else p['event']}"


def _difference(what: str, expected: list[str], got: list[str], seqs: Sequence[Any]) -> LifecycleAssertionError:
    """The failure: the first difference in words, then both lists side by side, '>' at the first
    difference, each got line with its event's seq (to find it in a log)."""
    index = next((i for i, (e, g) in enumerate(zip(expected, got)) if e != g), min(len(expected), len(got)))
    if index < len(expected) and index < len(got):
        head = (f"{what} differ at call {index + 1} (expected {len(expected)}, got {len(got)}):\n"
                f"  expected: {expected[index]}\n  got:      {got[index]}")
    elif index < len(expected):
        head = (f"{what}: expected {len(expected)}, got only {len(got)}; the first missing is call "
                f"{index + 1}:\n  expected: {expected[index]}")
    else:
        head = (f"{what}: expected {len(expected)}, got {len(got)}; the first extra is call {index + 1}:\n"
                f"  got:      {got[index]}")
    width = max([len("expected")] + [len(line) for line in expected])
    rows = [f"     {'expected'.ljust(width)}   got"]
    for i in range(max(len(expected), len(got))):
        mark = ">" if i == index else " "
        e = expected[i] if i < len(expected) else ""
        g = got[i] if i < len(got) else ""
        seq = seqs[i] if i < len(got) and i < len(seqs) and seqs[i] is not None else None
        rows.append(f"{mark}{i + 1:>3} {e.ljust(width)}   {g}" + (f"  (seq {seq})" if seq is not None else ""))
    return LifecycleAssertionError(head + "\n" + "\n".join(rows), expected=expected, got=got, index=index)


# ---------------------------------------------------------------------------------------------------
# Gestures
#
# Each gesture is written once, as a plan: a generator that yields the calls to make, (method, params),
# and is sent each reply. The sync helpers run a plan with client.call, the *_async ones with
# `await client.call`; so both send exactly the same calls.


@runtime_checkable
class SupportsCall(Protocol):
    """A sync client: :class:`greenroom.Client`, or anything with ``call(method, params)``."""

    def call(self, method: str, params: Any = None) -> Any:
        """Send a request, return its result."""


class AsyncCaller(Protocol):
    """An asyncio client: :class:`greenroom.aio.AsyncClient`, or anything with ``await call(...)``."""

    async def call(self, method: str, params: Any = None) -> Any:
        """Send a request, return its result."""


#: What the sync gesture helpers take: a client, or a plain function ``call(method, params)``.
Caller = Union[SupportsCall, Callable[[str, Any], Any]]

_T = TypeVar("_T")
_Plan = Generator[tuple[str, dict[str, Any]], Any, _T]


def _run(client: Caller, plan: _Plan[_T]) -> _T:
    call = client.call if isinstance(client, SupportsCall) else client
    try:
        step = next(plan)
        while True:
            reply = call(*step)
            if inspect.isawaitable(reply):
                if inspect.iscoroutine(reply):
                    reply.close()
                raise TypeError("this client's call() is asynchronous: use the *_async variant of the helper")
            step = plan.send(reply)
    except StopIteration as done:
        return cast(_T, done.value)


async def _run_async(client: AsyncCaller, plan: _Plan[_T]) -> _T:
    try:
        step = next(plan)
        while True:
            step = plan.send(await client.call(*step))
    except StopIteration as done:
        return cast(_T, done.value)


# -- pages (docs/pages.md: the scroll stream) -------------------------------------------------------


def _drag_pages(session: str, offsets: Sequence[float]) -> _Plan[Any]:
    if not offsets:
        raise ValueError("a drag needs at least its first offset")
    reply = yield "page.willBeginDragging", {"session": session, "offset": offsets[0]}
    for x in offsets[1:]:
        reply = yield "page.didScroll", {"session": session, "offset": x}
    return reply


def _release_pages(session: str, rest: float, velocity: float, decelerate: bool) -> _Plan[Any]:
    s = {"session": session}
    if decelerate:
        yield "page.willEndDragging", {**s, "offset": rest, "velocity": velocity}
        yield "page.didEndDragging", {**s, "offset": rest, "willDecelerate": True}
        return (yield "page.didEndDecelerating", {**s, "offset": rest})
    return (yield "page.didEndDragging", {**s, "offset": rest, "willDecelerate": False})


def _swipe_pages(session: str, offsets: Sequence[float], rest: float, velocity: float, decelerate: bool,
                 target: float | None) -> _Plan[Any]:
    yield from _drag_pages(session, offsets)
    s = {"session": session}
    lift = {**s, "offset": offsets[-1], "velocity": velocity}
    if target is not None:
        lift["targetOffset"] = target
    yield "page.willEndDragging", lift
    if decelerate:
        yield "page.didEndDragging", {**s, "offset": offsets[-1], "willDecelerate": True}
        return (yield "page.didEndDecelerating", {**s, "offset": rest})
    return (yield "page.didEndDragging", {**s, "offset": rest, "willDecelerate": False})


def _page_path(from_page: int, to_page: int, width: float, cancelled: bool, steps: int) -> tuple[list[float], float]:
    """The finger's offsets for a swipe from page ``from_page`` toward ``to_page``, and where it rests."""
    if from_page == to_page:
        raise ValueError("a swipe goes to another page: from_page == to_page")
    if width <= 0:
        raise ValueError("width must be positive")
    if steps < 1:
        raise ValueError("steps must be at least 1")
    way = 1 if to_page > from_page else -1
    origin = from_page * width
    # The finger stops short of the target page: 60% of the last page's width for a swipe that goes
    # through (the view then decelerates onto it), 40% for one that is cancelled (it springs back), so
    # that even without deceleration the nearest page is the one it should rest on.
    end = (to_page - way * (0.6 if cancelled else 0.4)) * width
    path = [origin] + [origin + (end - origin) * k / steps for k in range(1, steps + 1)]
    return path, (origin if cancelled else to_page * width)


def drag_pages(client: Caller, session: str, offsets: Sequence[float]) -> Any:
    """The finger goes down at ``offsets[0]`` (``page.willBeginDragging``) and moves through the other
    offsets (``page.didScroll`` each); it stays down. Returns the last reply."""
    return _run(client, _drag_pages(session, offsets))


def release_pages(client: Caller, session: str, rest: float, *, velocity: float = 0.5,
                  decelerate: bool = True) -> Any:
    """The finger lifts and the view comes to rest at ``rest``.

    With ``decelerate``: ``page.willEndDragging`` (at ``rest``, with ``velocity`` in points per ms),
    ``page.didEndDragging`` (``willDecelerate: true``), ``page.didEndDecelerating`` at ``rest``. Without:
    the view stops under the finger, ``page.didEndDragging`` at ``rest`` with ``willDecelerate: false``
    (docs/pages.md's rules read no ``willEndDragging`` then). Returns the last reply (the phase and page).
    """
    return _run(client, _release_pages(session, rest, velocity, decelerate))


def swipe_pages(client: Caller, session: str, offsets: Sequence[float], rest: float, *, velocity: float = 1.0,
                decelerate: bool = True, target: float | None = None) -> Any:
    """A whole swipe by offsets: the finger goes down at ``offsets[0]``, moves through the others and lifts
    there (``page.willEndDragging`` with ``velocity`` and, when given, ``targetOffset: target``); the view
    then decelerates to ``rest`` (``page.didEndDragging``, ``page.didEndDecelerating`` at ``rest``), or,
    without ``decelerate``, stops at ``rest`` (``page.didEndDragging`` with ``willDecelerate: false``).
    Returns the last reply."""
    return _run(client, _swipe_pages(session, offsets, rest, velocity, decelerate, target))


def swipe_page(client: Caller, session: str, from_page: int, to_page: int, *, width: float,
               cancelled: bool = False, steps: int = 3, decelerate: bool = True,
               velocity: float | None = None) -> Any:
    """A swipe from page ``from_page`` toward page ``to_page`` of a session whose pages are ``width`` wide
    (page *i* at offset ``i * width``).

    The finger goes down at ``from_page * width`` and moves toward ``to_page`` in ``steps`` didScroll
    calls, past the pages between (each is glimpsed, as docs/pages.md's turn-back rule says), then lifts
    before it gets there. The view comes to rest on ``to_page``, or, ``cancelled``, springs back to
    ``from_page`` (the swipe UIPageViewController calls not completed: ``didTransition`` with
    ``completed: false``). ``velocity`` (points per ms at release) defaults to 1 toward where it rests.
    Returns the last reply: ``{"phase": "idle", "index": ...}``.
    """
    path, rest = _page_path(from_page, to_page, width, cancelled, steps)
    if velocity is None:
        velocity = 1.0 if rest > path[-1] else -1.0
    return _run(client, _swipe_pages(session, path, rest, velocity, decelerate, rest))


async def drag_pages_async(client: AsyncCaller, session: str, offsets: Sequence[float]) -> Any:
    """:func:`drag_pages` for an asyncio client."""
    return await _run_async(client, _drag_pages(session, offsets))


async def release_pages_async(client: AsyncCaller, session: str, rest: float, *, velocity: float = 0.5,
                              decelerate: bool = True) -> Any:
    """:func:`release_pages` for an asyncio client."""
    return await _run_async(client, _release_pages(session, rest, velocity, decelerate))


async def swipe_pages_async(client: AsyncCaller, session: str, offsets: Sequence[float], rest: float, *,
                            velocity: float = 1.0, decelerate: bool = True, target: float | None = None) -> Any:
    """:func:`swipe_pages` for an asyncio client."""
    return await _run_async(client, _swipe_pages(session, offsets, rest, velocity, decelerate, target))


async def swipe_page_async(client: AsyncCaller, session: str, from_page: int, to_page: int, *, width: float,
                           cancelled: bool = False, steps: int = 3, decelerate: bool = True,
                           velocity: float | None = None) -> Any:
    """:func:`swipe_page` for an asyncio client."""
    path, rest = _page_path(from_page, to_page, width, cancelled, steps)
    if velocity is None:
        velocity = 1.0 if rest > path[-1] else -1.0
    return await _run_async(client, _swipe_pages(session, path, rest, velocity, decelerate, rest))


def _page_info(session: str) -> _Plan[Any]:
    return (yield "page.info", {"session": session})


def _at_rest(session: str, index: int | None, info: Any) -> Any:
    # Outside the plan, so that the failure is raised in a frame pytest hides, not in _run's generator.
    __tracebackhide__ = True
    problems = []
    if info.get("phase") != "idle":
        problems.append(f"phase is {info.get('phase')}, not idle")
    if index is not None and info.get("index") != index:
        problems.append(f"the current page is {info.get('index')}, not {index}")
    if info.get("guess") is not None:
        problems.append(f"a guess is left: page {info.get('guess')}")
    current = info.get("index")
    children = info.get("children", [])
    if not any(child["index"] == current for child in children):
        problems.append(f"no child is attached for the current page {current}")
    for child in children:
        want = "appeared" if child["index"] == current else "disappeared"
        if child["state"] != want:
            problems.append(f"page {child['index']} ({child['container']}) is {child['state']}, not {want}")
    if problems:
        raise LifecycleAssertionError(f"page session {session} is not at rest as docs/pages.md says "
                                      f"(the current page appeared, every other child disappeared): "
                                      + "; ".join(problems) + f"\n  page.info: {info}")
    return info


def assert_page_at_rest(client: Caller, session: str, index: int | None = None) -> Any:
    """Assert docs/pages.md's rule at rest (``page.info``): phase ``idle``, no guess, the current page
    (``index`` when given) ``appeared`` and every other attached child ``disappeared``. Returns the info."""
    __tracebackhide__ = True
    return _at_rest(session, index, _run(client, _page_info(session)))


async def assert_page_at_rest_async(client: AsyncCaller, session: str, index: int | None = None) -> Any:
    """:func:`assert_page_at_rest` for an asyncio client."""
    __tracebackhide__ = True
    return _at_rest(session, index, await _run_async(client, _page_info(session)))


# -- ranges (docs/ranges.md: the scroll stream) ---------------------------------------------------


@dataclass(frozen=True)
class RangeDrag:
    """What :func:`range_drag` did: ``target`` is where the fling stopped (the host's ``targetOffset``,
    clamped to the content), None without a fling; ``reply`` is ``range.didEndDecelerating``'s."""

    target: float | None
    reply: Any


def _range_drag(session: str, path: Sequence[float], fling: float | None, target: float | None,
                fling_frames: int, frame_ms: float | None) -> _Plan[RangeDrag]:
    if not path:
        raise ValueError("a drag needs at least its first offset")
    if fling_frames < 0:
        raise ValueError("fling_frames must be 0 or more")
    s = {"session": session}
    yield "range.willBeginDragging", {**s, "offset": path[0]}
    for x in path[1:]:
        if frame_ms is not None:
            yield "clock.advance", {"ms": frame_ms}
        yield "range.didScroll", {**s, "offset": x}
    if fling is None:
        # Released at rest: no velocity, so the motion ends where the finger lifted.
        yield "range.willEndDragging", {**s, "velocity": 0}
        return RangeDrag(None, (yield "range.didEndDecelerating", s))
    lift: dict[str, Any] = {**s, "velocity": fling}
    if target is not None:
        lift["targetOffset"] = target
    stop = float((yield "range.willEndDragging", lift)["targetOffset"])
    start = path[-1]
    for k in range(1, fling_frames + 1):
        if frame_ms is not None:
            yield "clock.advance", {"ms": frame_ms}
        yield "range.didScroll", {**s, "offset": start + (stop - start) * k / fling_frames}
    end = {**s, "offset": stop} if fling_frames == 0 else s
    return RangeDrag(stop, (yield "range.didEndDecelerating", end))


def range_drag(client: Caller, session: str, path: Sequence[float], *, fling: float | None = None,
               target: float | None = None, fling_frames: int = 3, frame_ms: float | None = None) -> RangeDrag:
    """A drag of a range session along ``path``, with an optional fling.

    ``range.willBeginDragging`` at ``path[0]``, ``range.didScroll`` at each further offset. Without
    ``fling`` the finger lifts at rest (``range.willEndDragging`` with velocity 0, then
    ``range.didEndDecelerating``). With ``fling`` (points per ms, positive toward the tail) it lifts moving:
    ``range.willEndDragging`` (``targetOffset: target`` when given, else the host works it out from the
    velocity), ``fling_frames`` didScroll calls on the way to the host's target, then
    ``range.didEndDecelerating``. ``frame_ms`` advances the virtual clock before every didScroll (a frame).
    """
    return _run(client, _range_drag(session, path, fling, target, fling_frames, frame_ms))


async def range_drag_async(client: AsyncCaller, session: str, path: Sequence[float], *,
                           fling: float | None = None, target: float | None = None, fling_frames: int = 3,
                           frame_ms: float | None = None) -> RangeDrag:
    """:func:`range_drag` for an asyncio client."""
    return await _run_async(client, _range_drag(session, path, fling, target, fling_frames, frame_ms))


# -- stacks: the interactive pop (the edge swipe of a navigation stack) ----------------------------


def _interactive_pop(stack: str, progresses: Iterable[float], finish: bool, duration: float | None) -> _Plan[Any]:
    s = {"stack": stack}
    yield "stack.beginInteractivePop", s
    for progress in progresses:
        yield "stack.updateInteractivePop", {**s, "progress": progress}
    end: dict[str, Any] = dict(s)
    if duration is not None:
        end["duration"] = duration
    return (yield ("stack.finishInteractivePop" if finish else "stack.cancelInteractivePop"), end)


def interactive_pop(client: Caller, stack: str, progresses: Iterable[float], *, finish: bool,
                    duration: float | None = None) -> Any:
    """An interactive pop: the finger swipes from the screen's edge, the top container following it.

    ``stack.beginInteractivePop``, ``stack.updateInteractivePop`` with each of ``progresses`` (0 to 1,
    how far across), then ``stack.finishInteractivePop`` (``finish``) or ``stack.cancelInteractivePop``,
    with ``duration`` (ms, the rest of the animation) when given. Returns the last reply. The end's
    did-hooks follow when the host's clock has moved ``duration`` on.
    """
    return _run(client, _interactive_pop(stack, progresses, finish, duration))


async def interactive_pop_async(client: AsyncCaller, stack: str, progresses: Iterable[float], *, finish: bool,
                                duration: float | None = None) -> Any:
    """:func:`interactive_pop` for an asyncio client."""
    return await _run_async(client, _interactive_pop(stack, progresses, finish, duration))
