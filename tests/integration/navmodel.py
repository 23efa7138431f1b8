"""A model of UINavigationController's lifecycle orders, for test_stacks_navigation.py.

Written from the navigation issue's text and from public UIKit material only, never from the host's sources
(Sources/): the point is an independent second opinion on every lifecycle event a stack, a green room or an
interactive pop produces. The model holds each stack's containers (bottom first), each container's loaded flag,
laid-out size and appearance state, and produces the exact list of lifecycle events (`Ev`) a call should cause
at once, and those a clock advance should deliver later.

Where each rule comes from
--------------------------

- Push / pop order, animated or not ("outgoing viewWillDisappear, incoming viewWillAppear, incoming layout,
  outgoing viewDidDisappear, incoming viewDidAppear"): the issue's text, which follows the logs in
  wangling.me, "The Inconsistent Order of View Transition Events" (2014), for UINavigationController's push and
  pop, and the commonly published iOS logs of a push in which the incoming controller's `loadView` /
  `viewDidLoad` run before the old top's `viewWillDisappear`, and `viewWillLayoutSubviews` /
  `viewDidLayoutSubviews` run after the incoming `viewWillAppear` (layout is part of the transition, which
  starts after `viewWillAppear`).
- `viewIsAppearing` (UIKit 17, the host's default): right after every `viewWillAppear`, with its `animated`,
  before the layout and `viewDidAppear`, cancelled transitions included: Apple's documentation of
  `viewIsAppearing(_:)` ("once each time a view controller's view appears after the viewWillAppear(_:) call",
  "within the same CATransaction"); WWDC23 puts it before `viewWillLayoutSubviews`.
- First appearance anywhere (a stack, the green room, a hidden stack being shown): `loadView, viewDidLoad,
  viewWillAppear, viewWillLayoutSubviews, viewDidLayoutSubviews, viewDidAppear`; layout hooks only when the
  laid-out size changes (first time, or a window of another size): the issue; UIKit lays a view out when its
  bounds change.
- Containment: Apple's documentation of `willMove(toParent:)` / `didMove(toParent:)`: a container calls
  `willMove(toParent:)` on a child before adding it (push: before anything else, before the view loads) and
  `didMove(toParent:)` after the transition completes (push: after the incoming `viewDidAppear`); removing a
  child is `willMove(toParent: nil)` first (pop: before its `viewWillDisappear`) and `didMove(toParent: nil)`
  when it is gone (pop: after its `viewDidDisappear`; the issue's sequence makes the outgoing `viewDidDisappear`
  and incoming `viewDidAppear` adjacent, so `didMove(nil)` comes after both).
- Interactive pop (edge swipe): wangling.me's log of a cancelled interactive pop (the one below:
  viewWillDisappear, viewDidDisappear; then the top: viewWillAppear, viewDidAppear), the issue's text for the
  method names, and the other engineer's decisions for what the issue leaves open (containment on begin /
  finish / cancel, and the remaining times; see `finish_remaining` and `cancel_remaining`).
- popToRoot and setContainers (UIKit's `popToRootViewControllerAnimated:` and
  `setViewControllers:animated:`): only the leaving top and the arriving top get appearance calls; containers
  passed over or kept below get none; containment calls only where a container joins or leaves (Apple's
  documentation of both methods; orders of the containment calls: the engineer's decisions, in the issue).
- The green room (pools.md, the prerendering article): a shown but off-screen window with its own stack. A
  warm-up is a non-animated push there; a `showRendered` hit takes the green room's top like a non-animated pop
  of the green room (the one below, if any, appears again offscreen), then pushes it onto the target stack.
  Every event in the green room has `offscreen: true`.
- Hidden stacks (docs/lifecycle.md, the prerendering article): a hidden window loads and shows nothing: only the
  containment calls; `stack.setHidden false` makes the top appear (load, viewWillAppear, layout, viewDidAppear).
- A transition still running on a stack completes first (its end calls delivered at the current time) before
  the next call on that stack (docs/lifecycle.md). Pushing a container from another stack moves it: it leaves
  there first, at once, like a non-animated pop there when it is that stack's top (containment calls only
  otherwise).

Time: `now` is the host's virtual clock in ms. An animated transition's end calls come `duration` ms (default
300) after the call; `advance(ms)` fires every due transition in deadline order, each at its own deadline.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_DURATION = 300.0

APPEARANCE = ("viewWillAppear", "viewDidAppear", "viewWillDisappear", "viewDidDisappear")
LAYOUT = ("viewWillLayoutSubviews", "viewDidLayoutSubviews")
CONTAINMENT = ("willMoveToParent", "didMoveToParent")

# docs/lifecycle.md's four-state machine: hook -> (states it may run from, state after). The model checks
# itself with it: a model that would make an unbalanced call is a bug in the model.
TABLE = {
    "viewWillAppear": ({"disappeared", "disappearing"}, "appearing"),
    "viewWillDisappear": ({"appearing", "appeared"}, "disappearing"),
    "viewDidAppear": ({"appearing"}, "appeared"),
    "viewDidDisappear": ({"disappearing"}, "disappeared"),
}


def finish_remaining(duration: float, progress: float) -> float:
    """stack.finishInteractivePop: the rest of the gesture, duration * (1 - progress)."""
    return duration * (1.0 - progress)


def cancel_remaining_runs_back(duration: float, progress: float) -> float:
    """stack.cancelInteractivePop, the engineer's decision: the animation runs back over what was swiped,
    duration * progress."""
    return duration * progress


# The issue's own text reads "the rest of the gesture: duration * (1 - progress)" for both finish and cancel;
# the engineer decided that a cancel runs the animation back, duration * progress. Switch this one name to
# `finish_remaining` to model the literal reading instead.
cancel_remaining = cancel_remaining_runs_back


class NavError(Exception):
    """The call must fail with JSON-RPC error `code` and change nothing."""

    def __init__(self, code: int, why: str):
        super().__init__(f"{code}: {why}")
        self.code = code
        self.why = why


_NO = "<no parent field>"


@dataclass(frozen=True)
class Ev:
    """One lifecycle event as the tests compare it. `animated` only on appearance hooks, `size` (w, h) only on
    layout hooks, `parent` (a stack id, or None for null) only on containment hooks."""

    t: float
    container: str
    event: str
    offscreen: bool = False
    animated: bool | None = None
    size: tuple | None = None
    parent: object = _NO

    def __str__(self) -> str:
        s = f"t={self.t:g} {self.container}:{self.event}{'~' if self.offscreen else ''}"
        if self.event in APPEARANCE:
            s += f" animated={self.animated}"
        if self.event in LAYOUT:
            s += f" {self.size[0]:g}x{self.size[1]:g}" if self.size else " size=None"
        if self.event in CONTAINMENT:
            s += f" parent={self.parent if self.parent is not None else 'null'}"
        return s


def from_wire(p: dict) -> Ev:
    """A host `lifecycle` event's params as an Ev (t rounded to the µs: both sides compute in doubles)."""
    ev = p["event"]
    return Ev(
        t=round(float(p["t"]), 6),
        container=p["container"],
        event=ev,
        offscreen=bool(p["offscreen"]),
        animated=p.get("animated") if ev in APPEARANCE else None,
        size=(float(p["size"]["width"]), float(p["size"]["height"])) if ev in LAYOUT and p.get("size") else None,
        parent=p.get("parent", _NO) if ev in CONTAINMENT else _NO,
    )


@dataclass
class Container:
    id: str
    loaded: bool = False
    size: tuple | None = None
    appearance: str = "disappeared"
    stack: str | None = None  # the stack or green room it sits in


@dataclass
class Gesture:
    container: str  # the top, leaving
    revealed: str  # the one below, appearing
    progress: float = 0.0


@dataclass
class Pending:
    """The end of a running transition: steps run at `deadline` (or at once if the stack is needed sooner)."""

    deadline: float
    order: int
    steps: list


@dataclass
class Stack:
    id: str
    width: float
    height: float
    hidden: bool = False
    offscreen: bool = False  # a green room
    items: list = field(default_factory=list)
    pending: Pending | None = None
    gesture: Gesture | None = None

    @property
    def size(self) -> tuple:
        return (float(self.width), float(self.height))

    @property
    def top(self) -> str | None:
        return self.items[-1] if self.items else None


# A step is a tuple run when its time comes (so that loads and layouts look at the state at that moment):
#   ("hook", cid, event, {animated|parent})   one hook
#   ("load", cid)                            loadView, viewDidLoad if not loaded
#   ("layout", cid, (w, h))                  viewWillLayoutSubviews, viewDidLayoutSubviews if the size differs


class Nav:
    """Stacks, green rooms and containers, as UIKit would drive them. Every public call returns the list of
    events it causes (those at once; `advance` returns the ones a clock advance delivers)."""

    def __init__(self, default_duration: float = DEFAULT_DURATION, uikit: int = 17):
        self.default_duration = float(default_duration)
        self.uikit = uikit
        self.now = 0.0
        self.containers: dict[str, Container] = {}
        self.stacks: dict[str, Stack] = {}
        self._order = 0
        self._out: list[Ev] = []

    # -- objects ---------------------------------------------------------------------------------------

    def stack(self, sid: str, width: float, height: float, hidden: bool = False) -> Stack:
        st = Stack(sid, float(width), float(height), hidden=hidden)
        self.stacks[sid] = st
        return st

    def green_room(self, gid: str, width: float, height: float) -> Stack:
        st = Stack(gid, float(width), float(height), offscreen=True)
        self.stacks[gid] = st
        return st

    def create(self, cid: str, offscreen: bool = False) -> list[Ev]:
        self.containers[cid] = Container(cid)
        return [Ev(self.now, cid, "init", offscreen)]

    def info(self, sid: str) -> dict:
        st = self.stacks[sid]
        g = st.gesture
        return {"containers": list(st.items), "top": st.top,
                "interactivePop": None if g is None else
                {"container": g.container, "revealed": g.revealed, "progress": g.progress}}

    def animating(self, sid: str) -> bool:
        return self.stacks[sid].pending is not None

    # -- running steps ---------------------------------------------------------------------------------

    def _emit(self, cid: str, event: str, offscreen: bool, **kw) -> None:
        c = self.containers[cid]
        if event in TABLE:
            froms, to = TABLE[event]
            assert c.appearance in froms, f"model bug: {cid}:{event} from {c.appearance}"
            c.appearance = to
        self._out.append(Ev(self.now, cid, event, offscreen, **kw))

    def _run(self, steps: list, offscreen: bool) -> None:
        for step in steps:
            kind, cid = step[0], step[1]
            c = self.containers[cid]
            if kind == "hook":
                self._emit(cid, step[2], offscreen, **step[3])
                # Apple's viewIsAppearing(_:): "once each time a view controller's view appears after the
                # viewWillAppear(_:) call", in the same CATransaction (UIKit 17 and later).
                if step[2] == "viewWillAppear" and self.uikit >= 17:
                    self._emit(cid, "viewIsAppearing", offscreen, **step[3])
            elif kind == "load":
                if not c.loaded:
                    c.loaded = True
                    self._emit(cid, "loadView", offscreen)
                    self._emit(cid, "viewDidLoad", offscreen)
            elif kind == "layout":
                if c.size != step[2]:
                    c.size = step[2]
                    self._emit(cid, "viewWillLayoutSubviews", offscreen, size=step[2])
                    self._emit(cid, "viewDidLayoutSubviews", offscreen, size=step[2])
            else:  # pragma: no cover
                raise AssertionError(step)

    def _take(self) -> list[Ev]:
        out, self._out = self._out, []
        return out

    def _settle(self, sid: str) -> None:
        """A transition still running on `sid` completes first: its end calls now."""
        st = self.stacks[sid]
        if st.pending is not None:
            steps, st.pending = st.pending.steps, None
            self._run(steps, st.offscreen)

    def _schedule(self, st: Stack, now_steps: list, end_steps: list, delay: float | None) -> None:
        """Runs now_steps; end_steps at once (delay None or 0) or `delay` ms from now."""
        self._run(now_steps, st.offscreen)
        if delay:
            self._order += 1
            st.pending = Pending(self.now + delay, self._order, end_steps)
        else:
            self._run(end_steps, st.offscreen)

    def _duration(self, animated: bool, duration) -> float | None:
        if not animated:
            return None
        return self.default_duration if duration is None else float(duration)

    def _transition(self, st: Stack, old_top, new_top, *, animated: bool, duration=None,
                    pre: list = (), post: list = ()) -> None:
        """The one navigation order, for push, pop, popToRoot, setContainers and the green room:
        pre (containment), incoming load, outgoing viewWillDisappear, incoming viewWillAppear, incoming layout;
        then outgoing viewDidDisappear, incoming viewDidAppear, post (containment). Hidden window, or the top
        not changing: containment only, at once."""
        pre, post = list(pre), list(post)
        if st.hidden or old_top == new_top:
            self._schedule(st, pre + post, [], None)
            return
        A = {"animated": bool(animated)}
        now_steps = pre
        end_steps = []
        if new_top is not None:
            now_steps.append(("load", new_top))
        if old_top is not None:
            now_steps.append(("hook", old_top, "viewWillDisappear", A))
            end_steps.append(("hook", old_top, "viewDidDisappear", A))
        if new_top is not None:
            now_steps += [("hook", new_top, "viewWillAppear", A), ("layout", new_top, st.size)]
            end_steps.append(("hook", new_top, "viewDidAppear", A))
        self._schedule(st, now_steps, end_steps + post, self._duration(animated, duration))

    def _live_gesture_check(self, sid: str) -> None:
        st = self.stacks[sid]
        if st.gesture is not None:
            raise NavError(-32003, f"an interactive pop is live on {sid}")

    def busy(self, cid: str) -> str | None:
        """The stack whose running transition still has calls for `cid` (e.g. it was popped, animated), if any."""
        for st in self.stacks.values():
            if st.pending is not None and any(step[1] == cid for step in st.pending.steps):
                return st.id
        return None

    def _join(self, cid: str, target: str) -> None:
        """A container about to join `target`: a transition still running elsewhere with calls for it completes
        first (after `target`'s own), then it leaves the stack it sits in, if another."""
        b = self.busy(cid)
        if b is not None:
            self._settle(b)
        self._leave_other(cid, target)

    def _leave_other(self, cid: str, target: str) -> None:
        """A container sitting in another stack (or a green room) leaves it at once: a non-animated pop there
        when it is the top of a shown window; containment calls only otherwise."""
        c = self.containers[cid]
        sid = c.stack
        if sid is None or sid == target:
            return
        st = self.stacks[sid]
        self._settle(sid)
        was_top = st.top == cid
        st.items.remove(cid)
        c.stack = None
        pre = [("hook", cid, "willMoveToParent", {"parent": None})]
        post = [("hook", cid, "didMoveToParent", {"parent": None})]
        if was_top:
            self._transition(st, cid, st.top, animated=False, pre=pre, post=post)
        else:
            self._schedule(st, pre + post, [], None)

    # -- stacks ----------------------------------------------------------------------------------------

    def push(self, sid: str, cid: str, animated: bool = False, duration=None) -> list[Ev]:
        st = self.stacks[sid]
        self._live_gesture_check(sid)
        if cid in st.items:
            raise NavError(-32003, f"{cid} is already in {sid}")
        self._settle(sid)
        self._join(cid, sid)
        old = st.top
        st.items.append(cid)
        self.containers[cid].stack = sid
        self._transition(st, old, cid, animated=animated, duration=duration,
                         pre=[("hook", cid, "willMoveToParent", {"parent": sid})],
                         post=[("hook", cid, "didMoveToParent", {"parent": sid})])
        return self._take()

    def pop(self, sid: str, animated: bool = False, duration=None) -> tuple[str, list[Ev]]:
        st = self.stacks[sid]
        self._live_gesture_check(sid)
        if not st.items:
            raise NavError(-32003, f"{sid} is empty")
        self._settle(sid)
        leaving = st.items.pop()
        self.containers[leaving].stack = None
        self._transition(st, leaving, st.top, animated=animated, duration=duration,
                         pre=[("hook", leaving, "willMoveToParent", {"parent": None})],
                         post=[("hook", leaving, "didMoveToParent", {"parent": None})])
        return leaving, self._take()

    def pop_to_root(self, sid: str, animated: bool = False, duration=None) -> tuple[list[str], list[Ev]]:
        """Returns (popped ids bottom first, events). Leaving ones: willMoveToParent(null) top first, then a pop's
        appearance calls between the old top and the root, then didMoveToParent(null) top first."""
        st = self.stacks[sid]
        self._live_gesture_check(sid)
        if not st.items:
            raise NavError(-32003, f"{sid} is empty")
        self._settle(sid)
        old = st.top
        popped = st.items[1:]
        del st.items[1:]
        for c in popped:
            self.containers[c].stack = None
        top_first = list(reversed(popped))
        self._transition(st, old, st.top, animated=animated, duration=duration,
                         pre=[("hook", c, "willMoveToParent", {"parent": None}) for c in top_first],
                         post=[("hook", c, "didMoveToParent", {"parent": None}) for c in top_first])
        return popped, self._take()

    def set_containers(self, sid: str, containers: list[str], animated: bool = False,
                       duration=None) -> tuple[list[str], list[Ev]]:
        """UIKit's setViewControllers. Returns (removed ids, events). Joining ones willMoveToParent(stack) in list
        order and leaving ones willMoveToParent(null) old top first, before the appearance calls (only between
        the old and the new top, none if the top does not change); didMoveToParent at the end in the same
        orders. A joining container that sits in another stack leaves there first, at once."""
        st = self.stacks[sid]
        self._live_gesture_check(sid)
        if len(set(containers)) != len(containers):
            raise NavError(-32602, "a container appears twice")
        self._settle(sid)
        old_items = list(st.items)
        old = st.top
        joining = [c for c in containers if c not in old_items]
        leaving = [c for c in reversed(old_items) if c not in containers]
        for c in joining:
            self._join(c, sid)
        st.items = list(containers)
        for c in joining:
            self.containers[c].stack = sid
        for c in leaving:
            self.containers[c].stack = None
        pre = [("hook", c, "willMoveToParent", {"parent": sid}) for c in joining] + \
              [("hook", c, "willMoveToParent", {"parent": None}) for c in leaving]
        post = [("hook", c, "didMoveToParent", {"parent": sid}) for c in joining] + \
               [("hook", c, "didMoveToParent", {"parent": None}) for c in leaving]
        self._transition(st, old, st.top, animated=animated, duration=duration, pre=pre, post=post)
        return leaving, self._take()

    def set_hidden(self, sid: str, hidden: bool) -> list[Ev]:
        st = self.stacks[sid]
        self._settle(sid)
        if hidden == st.hidden:
            return self._take()
        top = st.top
        if hidden:
            if top is not None:
                A = {"animated": False}
                self._run([("hook", top, "viewWillDisappear", A), ("hook", top, "viewDidDisappear", A)],
                          st.offscreen)
            st.hidden = True
        else:
            st.hidden = False
            if top is not None:
                A = {"animated": False}
                self._run([("load", top), ("hook", top, "viewWillAppear", A), ("layout", top, st.size),
                           ("hook", top, "viewDidAppear", A)], st.offscreen)
        return self._take()

    # -- the interactive pop ---------------------------------------------------------------------------

    def begin_interactive_pop(self, sid: str) -> list[Ev]:
        """The top: willMoveToParent(null), viewWillDisappear; the one below loads if needed,
        viewWillAppear, lays out if needed. All animated."""
        st = self.stacks[sid]
        self._live_gesture_check(sid)
        if len(st.items) < 2:
            raise NavError(-32003, f"{sid} has nothing to pop back to")
        self._settle(sid)
        top, below = st.items[-1], st.items[-2]
        A = {"animated": True}
        self._run([("hook", top, "willMoveToParent", {"parent": None}), ("load", below),
                   ("hook", top, "viewWillDisappear", A), ("hook", below, "viewWillAppear", A),
                   ("layout", below, st.size)], st.offscreen)
        st.gesture = Gesture(top, below, 0.0)
        return self._take()

    def _gesture(self, sid: str) -> Gesture:
        g = self.stacks[sid].gesture
        if g is None:
            raise NavError(-32003, f"no interactive pop on {sid}")
        return g

    def update_interactive_pop(self, sid: str, progress: float) -> list[Ev]:
        self._gesture(sid).progress = float(progress)
        return self._take()

    def finish_interactive_pop(self, sid: str, duration=None) -> tuple[str, list[Ev], float]:
        """Returns (popped, events now, remaining ms). After the remaining time: the top's viewDidDisappear,
        the new top's viewDidAppear, the old top's didMoveToParent(null)."""
        st = self.stacks[sid]
        g = self._gesture(sid)
        d = self.default_duration if duration is None else float(duration)
        remaining = finish_remaining(d, g.progress)
        st.items.pop()
        self.containers[g.container].stack = None
        st.gesture = None
        A = {"animated": True}
        self._schedule(st, [], [("hook", g.container, "viewDidDisappear", A),
                                ("hook", g.revealed, "viewDidAppear", A),
                                ("hook", g.container, "didMoveToParent", {"parent": None})], remaining)
        return g.container, self._take(), remaining

    def cancel_interactive_pop(self, sid: str, duration=None) -> tuple[list[Ev], float]:
        """Returns (events now, remaining ms). After the remaining time, UIKit's cancelled order: the one below
        viewWillDisappear, viewDidDisappear; the top viewWillAppear, viewDidAppear; then the top's
        didMoveToParent(stack)."""
        st = self.stacks[sid]
        g = self._gesture(sid)
        d = self.default_duration if duration is None else float(duration)
        remaining = cancel_remaining(d, g.progress)
        st.gesture = None
        A = {"animated": True}
        self._schedule(st, [], [("hook", g.revealed, "viewWillDisappear", A),
                                ("hook", g.revealed, "viewDidDisappear", A),
                                ("hook", g.container, "viewWillAppear", A),
                                ("layout", g.container, st.size),
                                ("hook", g.container, "viewDidAppear", A),
                                ("hook", g.container, "didMoveToParent", {"parent": sid})], remaining)
        return self._take(), remaining

    # -- pools and the green room -----------------------------------------------------------------------

    def warm(self, gid: str, cid: str) -> list[Ev]:
        """A warm-up: a fresh container pushed (not animated) into the green room; all offscreen."""
        out = self.create(cid, offscreen=True)
        return out + self.push(gid, cid)

    def take_from_green_room(self, gid: str) -> tuple[str, list[Ev]]:
        """A hit takes the green room's top: it leaves like a non-animated pop of the green room."""
        st = self.stacks[gid]
        assert st.items, f"model: green room {gid} is empty"
        cid = st.top
        self._leave_other(cid, target=None)
        return cid, self._take()

    def show_rendered_hit(self, gid: str, sid: str | None, animated: bool = False, duration=None
                          ) -> tuple[str, list[Ev]]:
        if sid is not None:
            self._live_gesture_check(sid)
        cid, out = self.take_from_green_room(gid)
        if sid is not None:
            out += self.push(sid, cid, animated, duration)
        return cid, out

    def show_rendered_miss(self, cid: str, sid: str | None, animated: bool = False, duration=None) -> list[Ev]:
        if sid is not None:
            self._live_gesture_check(sid)
        out = self.create(cid)
        if sid is not None:
            out += self.push(sid, cid, animated, duration)
        return out

    # -- the clock -------------------------------------------------------------------------------------

    def advance(self, ms: float) -> list[Ev]:
        """clock.advance: every transition due by now+ms ends, in deadline order, each at its deadline."""
        target = self.now + float(ms)
        while True:
            due = [st for st in self.stacks.values() if st.pending is not None and st.pending.deadline <= target]
            if not due:
                break
            st = min(due, key=lambda s: (s.pending.deadline, s.pending.order))
            self.now = st.pending.deadline
            steps, st.pending = st.pending.steps, None
            self._run(steps, st.offscreen)
        self.now = target
        return self._take()

    def next_deadline(self) -> float | None:
        ds = [st.pending.deadline for st in self.stacks.values() if st.pending is not None]
        return min(ds) if ds else None

    # -- checks ----------------------------------------------------------------------------------------

    def appearance(self, cid: str) -> str:
        return self.containers[cid].appearance
