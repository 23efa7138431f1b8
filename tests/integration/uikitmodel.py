"""An independent model of UIKit's lifecycle orders for presentations, tab bars, page curl, child containment and
size transitions, for comparing with the host's `presentation.*`, `tabs.*`, `container.*` (containment) and
`page.*` (pageCurl) methods.

Written from public UIKit material only (Apple's documentation, published logs, blog posts), never from the host's
sources (Sources/): the point is a second opinion. Same style as navmodel.py: the model holds containers (loaded
flag, last laid-out size, appearance state) and returns, for every call, the exact list of events (`Ev`) the call
causes at once; `advance(ms)` returns the ones a clock advance delivers later. notes/uikit-orders.md has the
same rules with the quotes.

Where each rule comes from ("proposed" = no public source says; the choice and its reason are in the draft)
---------------------------------------------------------------------------------------------------------------

Appearance machine
- The four-state table (docs/lifecycle.md) checks every hook the model emits (a model that would
  emit an unbalanced call raises AssertionError). Manual begin/end calls that fit no cell are emitted as
  `unbalancedAppearanceTransition` {call, state} and counted in `Model.unbalanced` (docs/lifecycle.md).
- viewIsAppearing (uikit_generation >= 17): Apple, viewIsAppearing(_:): "once each time a view controller's view
  appears after the viewWillAppear(_:) call ... after it adds the view controller's view to the view hierarchy, and
  the superview lays out the view controller's view"; "both callbacks occur within the same CATransaction". Its place
  before the controller's own viewWillLayoutSubviews: Apple's "Displaying and managing views with a view controller"
  sequence as summarised at bokch-jm.tistory.com/119 (3. viewIsAppearing, 4. viewWillLayoutSubviews, 6.
  viewDidLayoutSubviews, 8. viewDidAppear) and the WWDC23 notes at hackmd.io ("viewWillAppear and
  viewWillLayoutSubviews 사이에 추가된 메서드"). Proposed: it follows every viewWillAppear, also in a transition that is
  later cancelled (same CATransaction), and a layout pass of a container comes right after its own viewIsAppearing.
- Forwarding to children: parent first for every phase (github.com/phchan9/til, note-about-viewController-
  containment: parent viewWillAppear, child viewWillAppear, parent viewDidAppear, child viewDidAppear). Disappearing
  uses the same parent-first order (proposed). A child's viewIsAppearing and layout come after its parent's layout
  (the child is laid out by its superview, the parent's view: Apple's viewIsAppearing text). The view loads lazily,
  right before its first viewWillAppear (docs/lifecycle.md); a presented container loads before the presenter's
  viewWillDisappear (juejin.cn/post/7171098718656020510: "B viewDidLoad A viewWillDisappear B viewWillAppear").

Presentations (`present`, `dismiss`)
- Which styles remove the presenter's views, so that the presenter's tree gets viewWillDisappear/viewDidDisappear on
  present and viewWillAppear/viewDidAppear on dismiss: fullScreen and currentContext (Apple: "The views belonging to
  the presenting view controller are removed after the presentation completes"); not overFullScreen /
  overCurrentContext (Apple: "not removed from the view hierarchy"); not pageSheet / formSheet (juejin table: sheets
  give only B's calls; regularberry.github.io 2019 table: overFullScreen, overCurrentContext, custom "NO"); custom
  only when its presentation controller's shouldRemovePresentersView is true (Apple: "The default implementation of
  this method returns false"; mo4tech.com: with .custom "viewWillDisappear and viewDidDisappear won't be called").
- Present, removing style: presented load; presenter tree viewWillDisappear; presented tree viewWillAppear
  (viewIsAppearing, layout); after the duration: presented viewDidAppear, presenter viewDidDisappear (juejin table;
  juejin.cn/post/6965777847050829831; remkoh.dev "iOS: UIViewController lifecycle in a StoryBoard").
  Dismiss: presented viewWillDisappear; presenter viewWillAppear (...); after: presenter viewDidAppear, presented
  viewDidDisappear (juejin table). Non-removing styles: only the presented container's calls.
- The presenter that handles a non-context style is the root of the presenter's hierarchy (Apple, present(_:...):
  "it forwards the request up the view controller hierarchy"); currentContext / overCurrentContext use the given
  presenter as the context (proposed: definesPresentationContext is not modelled).
- Chains: dismissing a presented container dismisses it and everything it presents (the protocol's presentation.dismiss;
  Apple dismiss(animated:completion:): "dismisses its immediate child view controller and all view controllers above
  that child ... only the top-most view is dismissed in an animated fashion; any intermediate view controllers are
  simply removed"). Proposed: every presented container still on screen gets viewWillDisappear (top first; only the
  top one `animated`), the revealed presenter its viewWillAppear, then after the duration the presenter's
  viewDidAppear and the viewDidDisappear calls, top first. Programmatic dismissal calls no delegate method (Apple,
  presentationControllerWillDismiss/DidDismiss: "not called if the presentation is dismissed programmatically").
- Presenting from a controller that already presents, or while its presentation runs, or whose view is not on
  screen: nothing happens, a warning is recorded in `Model.warnings` ("Warning: Attempt to present ... which is
  already presenting ..." github.com/airbrake/airbrake-ios/issues/91; "... while a presentation is in progress"
  github.com/ericberman/MyFlightbookiOS/issues/370; "... whose view is not in the window hierarchy!"
  github.com/fouquet/RFAboutView/issues/8). Presenting a controller that is already in a hierarchy: ModelError
  (UIKit raises "Application tried to present modally an active controller").
- Interactive sheet dismissal (pageSheet/formSheet, the top of its chain): isModalInPresentation -> only
  didAttemptToDismiss (Apple isModalInPresentation, presentationControllerDidAttemptToDismiss; WWDC19 slide as
  described by medium.com/better-programming "iOS Lifecycle When Dismissing a Modal View With .pageSheet in iOS 13":
  "If isModalPresentation is true, DidAttemptToDismiss is called ... ShouldDismiss -> WillDismiss -> DidDismiss").
  Begin: shouldDismiss, willDismiss, presented viewWillDisappear (proposed order between willDismiss and
  viewWillDisappear). Finish, after duration*(1-progress): viewDidDisappear, didDismiss. Cancel, after
  duration*progress: viewWillAppear (viewIsAppearing), viewDidAppear - a will without its did, as UIKit's cancelled
  interactive transitions (blog.fenrir-inc.com 2016/11 view-might-appear; wangling.me cancelled pop). A refused
  gesture (modal, or should_dismiss=False) stays open and update/finish/cancel do nothing (proposed).

Tab bars (`tabs_create`, `tabs_select`, `tabs_set_containers`)
- Only the selected child loads and appears at first (itcast log, laitimes.com/zh/article/nxgk_oehf: "程序启动时它只会
  加载第一个添加的控制器的view"). Containment: each child willMoveToParent then didMoveToParent (Apple
  didMove(toParent:): "if there is no transition, immediately after calling addChild") before the first appearance
  (proposed: children are installed before the tab bar appears).
- Switch, not animated: new load, new viewWillAppear (viewIsAppearing, layout), old viewWillDisappear, old
  viewDidDisappear, new viewDidAppear (pgzxc.github.io/posts/efa3afd7.html log). Reselecting the selected tab does
  nothing (iphonedev.wiki UITabBarController: "if (_selectedViewController == controller) return;").
- setViewControllers: "removes all of the old view controllers before installing the new ones ... remembers the view
  controller object that was previously selected and attempts to reselect it. If the selected view controller is no
  longer present, it attempts to select the view controller at the same index ... If that index is invalid, it
  selects the view controller at index 0" (Apple). Leaving willMoveToParent(null), joining willMoveToParent(tabs),
  the switch's appearance calls if the shown child changes, then didMoveToParent in the same orders (proposed).

Page curl (`pages_create`, `page_begin` / `page_update` / `page_finish` / `page_cancel`, `page_show`)
- wangling.me, "The Inconsistent Order of View Transition Events": curl completed: New viewWillAppear, Current
  viewWillDisappear, Current viewDidDisappear, New viewDidAppear; curl cancelled: New viewWillAppear, Current
  viewWillDisappear, New viewWillDisappear, Current viewWillAppear, New viewDidDisappear, Current viewDidAppear.
  Scroll (for contrast): completed New WA, Current WD, New DA, Current DD; cancelled New WA, Current WD, Current WA,
  Current DA, New WD, New DD. The end calls come after the remaining time (as navmodel's cancelled pop). Pages are laid
  out before their viewWillAppear when `page_layout_first` (docs/lifecycle.md page-session rule; proposed for curl).
  Page containment calls are pages.md's business and not modelled here.

Child containment (`add_child`, `did_move_to_parent`, `will_move_to_parent`, `remove_from_parent`, `transition`,
`set_forwards_appearance`, `begin_appearance`, `end_appearance`)
- addChild calls willMove(toParent:) (Apple willMove(toParent:): "When your custom container calls the addChild(_:)
  method, it automatically calls the willMove(toParent:) method"); the container calls didMove(toParent:) itself;
  removeFromParent "automatically calls the didMove(toParent:)" with nil after the caller's willMove(toParent: nil)
  (Apple didMove/willMove). A child whose view joins a parent on screen appears (load, WA, IsA, layout, DA at once);
  removal from a parent on screen disappears it (jianshu 39.103.169.235/p/ad86ca978747: "addSubview:childVC.view 会自动
  触发调用childVC的viewDidLoad、viewWillAppear、viewDidAppear ... removeFromSuperview 会自动触发调用
  viewWillDisappear、viewDidDisappear"); proposed: the same one-layout-before-viewDidAppear shape as every first
  appearance. A transition still running on the parent completes first (docs/lifecycle.md convention).
- transition(from:to:): "adds the second view controller's view to the view hierarchy ... After the animation
  completes, it removes the first view controller's view" (Apple). Order by analogy with the tab switch, which uses
  it (iphonedev.wiki): to viewWillAppear (...), from viewWillDisappear; after the duration from viewDidDisappear, to
  viewDidAppear. It fails when the parent forwards appearance by hand (UIViewController.h comment: "will fail with an
  NSInvalidArgumentException ... if the receiver explicitly forwards its appearance").
- shouldAutomaticallyForwardAppearanceMethods false: the children get nothing automatically; the client drives them
  with begin/end appearance, per the table (Apple beginAppearanceTransition / endAppearanceTransition); calls that fit
  no cell are counted. Manual calls on a child of a forwarding parent, a window root or a presented container: -32003.

Size transitions (`resize`)
- viewWillTransitionToSize before the size changes (Apple viewWillTransition(to:with:): "UIKit calls this method
  before changing the size"), so before every layout at the new size; parent before children ("View controllers
  forward the size change message to their views and child view controllers"; "Presentation controllers forward the
  size change to their presented view controller"); the root's tree first, then the presented chain. A presenter
  hidden under a full-screen presentation still gets it (github.com/onmyway133/notes/issues/210); a child that is not
  in the hierarchy does not (openradar 24277475: only the top of a navigation controller). Only loaded containers whose
  size changes get it (proposed); then containers on screen lay out, in the same order (parent will/did, then child).

Time: `now` is the host clock in ms; an animated transition's end calls come `duration` ms (default 300) later.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

DEFAULT_DURATION = 300.0

APPEARANCE = ("viewWillAppear", "viewIsAppearing", "viewDidAppear", "viewWillDisappear", "viewDidDisappear")
LAYOUT = ("viewWillLayoutSubviews", "viewDidLayoutSubviews")
CONTAINMENT = ("willMoveToParent", "didMoveToParent")
DELEGATE = ("shouldDismiss", "willDismiss", "didDismiss", "didAttemptToDismiss")
HOOKS = ("init", "loadView", "viewDidLoad", *APPEARANCE, *LAYOUT, *CONTAINMENT, "viewWillTransitionToSize",
         "deinit")
UNBALANCED = "unbalancedAppearanceTransition"

# hook -> (states it may run from, state after): docs/lifecycle.md's four-state machine.
TABLE = {
    "viewWillAppear": ({"disappeared", "disappearing"}, "appearing"),
    "viewWillDisappear": ({"appearing", "appeared"}, "disappearing"),
    "viewDidAppear": ({"appearing"}, "appeared"),
    "viewDidDisappear": ({"disappearing"}, "disappeared"),
}

STYLES = ("pageSheet", "formSheet", "fullScreen", "overFullScreen", "currentContext", "overCurrentContext", "custom")
SHEETS = frozenset({"pageSheet", "formSheet"})
CONTEXT_STYLES = frozenset({"currentContext", "overCurrentContext"})


def style_removes_presenter(style: str, custom_removes: bool | None = None) -> bool:
    """Whether a presentation in `style` takes the presenter's views out of the window when it completes."""
    if style in ("fullScreen", "currentContext"):
        return True
    if style == "custom":
        return bool(custom_removes)  # UIPresentationController.shouldRemovePresentersView defaults to false
    return False


class ModelError(Exception):
    """The call must fail with JSON-RPC error `code` and change nothing."""

    def __init__(self, code: int, why: str):
        super().__init__(f"{code}: {why}")
        self.code = code
        self.why = why


@dataclass(frozen=True)
class Ev:
    """One event. `kind` is "lifecycle" (hooks, `unbalancedAppearanceTransition`) or "presentation" (the delegate
    events shouldDismiss / willDismiss / didDismiss / didAttemptToDismiss, `container` = the presented container).
    `extra` is a sorted tuple of (key, value): `animated` on appearance hooks, `size` (w, h) on layout hooks and
    viewWillTransitionToSize, `parent` (id or None) on containment hooks, `call`/`state` on unbalanced reports."""

    container: str
    hook: str
    extra: tuple = ()
    kind: str = "lifecycle"
    t: float = 0.0

    @property
    def x(self) -> dict:
        return dict(self.extra)

    def get(self, key, default=None):
        return self.x.get(key, default)

    @property
    def key(self) -> tuple:
        return (self.container, self.hook)

    def __str__(self) -> str:
        extra = " ".join(f"{k}={v}" for k, v in self.extra)
        kind = "" if self.kind == "lifecycle" else f"[{self.kind}] "
        return f"t={self.t:g} {kind}{self.container}:{self.hook}{' ' + extra if extra else ''}"


def ev(container: str, hook: str, kind: str = "lifecycle", t: float = 0.0, **extra) -> Ev:
    return Ev(container, hook, tuple(sorted(extra.items())), kind, t)


def from_wire(topic: str, p: dict) -> Ev:
    """A host notification's params as an Ev: `lifecycle` {container, event, animated?, size?, parent?, t} or
    `presentation` {kind, container}."""
    t = round(float(p.get("t", 0.0)), 6)
    if topic == "presentation":
        return ev(p["container"], p["kind"], kind="presentation", t=t)
    hook = p["event"]
    extra = {}
    if hook in APPEARANCE and "animated" in p:
        extra["animated"] = bool(p["animated"])
    if (hook in LAYOUT or hook == "viewWillTransitionToSize") and p.get("size"):
        extra["size"] = (float(p["size"]["width"]), float(p["size"]["height"]))
    if hook in CONTAINMENT and "parent" in p:
        extra["parent"] = p["parent"]
    if hook == UNBALANCED:
        extra["call"], extra["state"] = p.get("call"), p.get("state")
    return ev(p["container"], hook, t=t, **extra)


# -- the objects ---------------------------------------------------------------------------------------------------


@dataclass
class Presentation:
    presenter: str  # the node that presents (after forwarding up the hierarchy)
    style: str
    removes: bool
    modal: bool


@dataclass
class Container:
    id: str
    loaded: bool = False
    appearance: str = "disappeared"
    is_appearing_sent: bool = False
    size: tuple | None = None  # last laid-out size
    frame: tuple | None = None  # placed size (window roots and presented containers); children take the parent's
    parent: str | None = None  # a container, tabs or pages id
    in_view: bool = True  # a child's view is in its parent's view
    children: list = field(default_factory=list)
    moving: str | None = None  # "add": willMoveToParent awaiting didMoveToParent; "remove": awaiting removal
    forwards: bool = True  # shouldAutomaticallyForwardAppearanceMethods
    window: str | None = None  # the window this is the root of
    presented: str | None = None  # the container this one presents
    pres: Presentation | None = None  # how this one is presented
    released: bool = False


@dataclass
class Tabs:
    id: str
    children: list
    selected: int
    presented: str | None = None


@dataclass
class PageGesture:
    frm: int
    to: int
    l_from: list
    l_to: list
    progress: float = 0.0


@dataclass
class Pages:
    id: str
    children: list
    current: int
    style: str
    gesture: PageGesture | None = None
    presented: str | None = None


@dataclass
class Window:
    id: str
    width: float
    height: float
    root: str
    hidden: bool = False

    @property
    def size(self) -> tuple:
        return (float(self.width), float(self.height))


@dataclass
class SheetGesture:
    tree: list
    refused: bool = False
    progress: float = 0.0


@dataclass
class Pending:
    deadline: float
    order: int
    kind: str
    keys: frozenset
    steps: list


class Model:
    """Containers, windows, presentations, tab bars, page sessions. Every public call returns the list of events it
    causes at once; `advance` returns the ones a clock advance delivers."""

    def __init__(self, uikit_generation: int = 17, default_duration: float = DEFAULT_DURATION,
                 page_layout_first: bool = True, sheet_size: Callable[[float, float], tuple] | None = None):
        self.gen = int(uikit_generation)
        self.default_duration = float(default_duration)
        self.page_layout_first = page_layout_first
        self.sheet_size = sheet_size or (lambda w, h: (float(w), float(h)))
        self.now = 0.0
        self.nodes: dict[str, object] = {}
        self.windows: dict[str, Window] = {}
        self.pending: list[Pending] = []
        self.sheet_gestures: dict[str, SheetGesture] = {}
        self.warnings: list[str] = []
        self.unbalanced = 0
        self._order = 0
        self._out: list[Ev] = []

    # -- lookups -------------------------------------------------------------------------------------------------

    def _c(self, cid: str) -> Container:
        n = self.nodes.get(cid)
        if not isinstance(n, Container) or n.released:
            raise ModelError(-32602, f"no container {cid}")
        return n

    def _node(self, nid: str):
        if nid not in self.nodes:
            raise ModelError(-32602, f"no such object {nid}")
        return self.nodes[nid]

    def appearance(self, cid: str) -> str:
        return self.nodes[cid].appearance

    def presented_by(self, nid: str) -> str | None:
        return self.nodes[nid].presented

    def selected(self, tid: str) -> str:
        t = self.nodes[tid]
        return t.children[t.selected]

    def current(self, pid: str) -> str:
        p = self.nodes[pid]
        return p.children[p.current]

    def busy(self) -> bool:
        return bool(self.pending)

    def next_deadline(self) -> float | None:
        return min((p.deadline for p in self.pending), default=None)

    def _ancestors(self, nid: str) -> list[str]:
        out = []
        n = self.nodes[nid]
        while isinstance(n, Container) and n.parent is not None:
            out.append(n.parent)
            n = self.nodes[n.parent]
        return out

    def _root(self, nid: str) -> str:
        n = self.nodes[nid]
        while isinstance(n, Container) and n.parent is not None:
            n = self.nodes[n.parent]
        return n.id

    def _window_of(self, nid: str) -> Window | None:
        r = self.nodes[self._root(nid)]
        if isinstance(r, (Tabs, Pages)):
            return self.windows[r.id]
        if r.window is not None:
            return self.windows[r.window]
        if r.pres is not None:
            return self._window_of(r.pres.presenter)
        return None

    def _size(self, nid: str) -> tuple | None:
        n = self.nodes[nid]
        if isinstance(n, (Tabs, Pages)):
            return self.windows[n.id].size
        if n.frame is not None:
            return n.frame
        if n.parent is not None:
            return self._size(n.parent)
        return None

    def _covers(self, n) -> bool:
        """`n` presents something that took its views out of the window."""
        return n.presented is not None and self.nodes[n.presented].pres.removes

    def _tree(self, nid: str) -> list[str]:
        """The containers that appear and disappear with `nid`, parent first (appearance forwarding). A descendant
        covered by its own current-context presentation is out of the window, so not in the tree."""
        n = self.nodes[nid]
        if isinstance(n, (Tabs, Pages)):
            if not n.children:
                return []
            shown = n.children[n.selected if isinstance(n, Tabs) else n.current]
            return [] if self._covers(self.nodes[shown]) else self._tree(shown)
        out = [n.id]
        if n.forwards:
            for ch in n.children:
                c = self.nodes[ch]
                if c.in_view and not self._covers(c):
                    out += self._tree(ch)
        return out

    def _shown_tree(self, cid: str) -> list[str]:
        """_tree of a tab or page, empty when its own current-context presentation covers it."""
        return [] if self._covers(self.nodes[cid]) else self._tree(cid)

    def _displayed(self, nid: str) -> bool:
        """`nid`'s view would be in a shown window if nothing `nid` presents covered it."""
        cur = nid
        while True:
            n = self.nodes[cur]
            if cur != nid and self._covers(n):
                return False
            if isinstance(n, (Tabs, Pages)):
                return not self.windows[cur].hidden
            if n.parent is None:
                if n.window is not None:
                    return not self.windows[n.window].hidden
                return n.pres is not None
            p = self.nodes[n.parent]
            if isinstance(p, Tabs) and p.children[p.selected] != cur:
                return False
            if isinstance(p, Pages) and p.children[p.current] != cur:
                return False
            if isinstance(p, Container) and (not n.in_view or not p.forwards):
                return False
            cur = p.id

    def _size_tree(self, nid: str) -> list[str]:
        """Like _tree, but size changes are forwarded whatever the appearance forwarding."""
        n = self.nodes[nid]
        if isinstance(n, Tabs):
            return self._size_tree(n.children[n.selected]) if n.children else []
        if isinstance(n, Pages):
            return self._size_tree(n.children[n.current]) if n.children else []
        out = [n.id]
        for ch in n.children:
            if self.nodes[ch].in_view:
                out += self._size_tree(ch)
        return out

    def _on_screen(self, nid: str) -> bool:
        tree = self._tree(nid)
        return bool(tree) and self.nodes[tree[0]].appearance == "appeared"

    def _free(self, cid: str, disappeared: bool = True) -> Container:
        c = self._c(cid)
        if c.parent is not None or c.window is not None or c.pres is not None or c.presented is not None:
            raise ModelError(-32003, f"{cid} is already in a hierarchy")
        if disappeared and c.appearance != "disappeared":
            raise ModelError(-32003, f"{cid} is {c.appearance} (its appearance was driven by hand)")
        return c

    # -- emitting ------------------------------------------------------------------------------------------------

    def _emit(self, cid: str, hook: str, kind: str = "lifecycle", **extra) -> None:
        self._out.append(ev(cid, hook, kind, self.now, **extra))

    def _hook(self, cid: str, hook: str, **extra) -> None:
        c = self.nodes[cid]
        if hook in TABLE:
            froms, to = TABLE[hook]
            assert c.appearance in froms, f"model bug: {cid}:{hook} from {c.appearance}"
            c.appearance = to
            if hook == "viewWillAppear":
                c.is_appearing_sent = False
        elif hook == "viewIsAppearing":
            assert c.appearance == "appearing" and not c.is_appearing_sent, f"model bug: {cid}:{hook}"
            c.is_appearing_sent = True
        self._emit(cid, hook, **extra)

    def _load(self, cid: str) -> None:
        c = self.nodes[cid]
        if not c.loaded:
            c.loaded = True
            self._emit(cid, "loadView")
            self._emit(cid, "viewDidLoad")

    def _layout(self, cid: str) -> None:
        c = self.nodes[cid]
        size = self._size(cid)
        if size is not None and c.size != size:
            c.size = size
            self._emit(cid, "viewWillLayoutSubviews", size=size)
            self._emit(cid, "viewDidLayoutSubviews", size=size)

    def _will_appear(self, tree: list, animated: bool, layout_first: bool = False) -> None:
        a = bool(animated)
        for cid in tree:
            self._load(cid)
            if layout_first:
                self._layout(cid)
            self._hook(cid, "viewWillAppear", animated=a)
        for cid in tree:
            if self.gen >= 17:
                self._hook(cid, "viewIsAppearing", animated=a)
            if not layout_first:
                self._layout(cid)

    def _did_appear(self, tree: list, animated: bool) -> None:
        for cid in tree:
            self._hook(cid, "viewDidAppear", animated=bool(animated))

    def _will_disappear(self, tree: list, animated: bool) -> None:
        for cid in tree:
            self._hook(cid, "viewWillDisappear", animated=bool(animated))

    def _did_disappear(self, tree: list, animated: bool) -> None:
        for cid in tree:
            self._hook(cid, "viewDidDisappear", animated=bool(animated))

    def _take(self) -> list[Ev]:
        out, self._out = self._out, []
        return out

    def _warn(self, text: str) -> list[Ev]:
        self.warnings.append(text)
        return self._take()

    # -- time ------------------------------------------------------------------------------------------------------

    def _dur(self, animated: bool, duration) -> float:
        if not animated:
            return 0.0
        return self.default_duration if duration is None else float(duration)

    def _schedule(self, kind: str, keys: Iterable[str], steps: list, delay: float) -> None:
        if delay and delay > 0:
            self._order += 1
            self.pending.append(Pending(self.now + float(delay), self._order, kind, frozenset(keys), steps))
        else:
            for s in steps:
                s()

    def _settle(self, ids: Iterable[str]) -> None:
        """Transitions still running on any of `ids` complete first, now, in deadline order."""
        ids = set(ids)
        while True:
            hit = [p for p in self.pending if p.keys & ids]
            if not hit:
                return
            p = min(hit, key=lambda q: (q.deadline, q.order))
            self.pending.remove(p)
            ids |= p.keys
            for s in p.steps:
                s()

    def advance(self, ms: float) -> list[Ev]:
        """clock.advance: every transition due by now+ms ends, in deadline order, each at its deadline."""
        target = self.now + float(ms)
        while True:
            due = [p for p in self.pending if p.deadline <= target]
            if not due:
                break
            p = min(due, key=lambda q: (q.deadline, q.order))
            self.pending.remove(p)
            self.now = max(self.now, p.deadline)
            for s in p.steps:
                s()
        self.now = target
        return self._take()

    def drain(self) -> list[Ev]:
        """Advance to the last deadline (everything running ends)."""
        last = max((p.deadline for p in self.pending), default=self.now)
        return self.advance(last - self.now)

    # -- containers and windows --------------------------------------------------------------------------------

    def create(self, cid: str) -> list[Ev]:
        if cid in self.nodes:
            raise ModelError(-32602, f"{cid} exists")
        self.nodes[cid] = Container(cid)
        self._emit(cid, "init")
        return self._take()

    def release(self, cid: str) -> list[Ev]:
        """container.release of a free container (no parent, window, presentation or children): disappears if on
        screen, then deinit."""
        c = self._free(cid, disappeared=False)
        if c.children:
            raise ModelError(-32003, f"{cid} has children")
        if c.appearance in ("appearing", "disappearing"):
            raise ModelError(-32003, f"{cid} is in an appearance transition")
        if c.appearance == "appeared":
            self._will_disappear([cid], False)
            self._did_disappear([cid], False)
        self._emit(cid, "deinit")
        c.released = True
        return self._take()

    def window(self, wid: str, width: float, height: float, root: str, hidden: bool = False) -> list[Ev]:
        """A window whose root is container `root` (a stack's top, a plain screen): the root appears, not animated."""
        if wid in self.windows or (wid in self.nodes and wid != root):
            raise ModelError(-32602, f"{wid} exists")
        c = self._free(root)
        self.windows[wid] = Window(wid, float(width), float(height), root, hidden)
        c.window = wid
        c.frame = self.windows[wid].size
        if not hidden:
            tree = self._tree(root)
            self._will_appear(tree, False)
            self._did_appear(tree, False)
        return self._take()

    def set_hidden(self, wid: str, hidden: bool) -> list[Ev]:
        w = self.windows[wid]
        if hidden == w.hidden:
            return self._take()
        if self.nodes[w.root].presented is not None:
            raise ModelError(-32003, f"{wid} presents something")
        self._settle(self._size_tree(w.root) + [w.root])
        tree = self._tree(w.root)
        if hidden:
            if tree and self.nodes[tree[0]].appearance == "appeared":
                self._will_disappear(tree, False)
                self._did_disappear(tree, False)
            w.hidden = True
        else:
            w.hidden = False
            if tree:
                self._will_appear(tree, False, layout_first=isinstance(self.nodes[w.root], Pages)
                                  and self.page_layout_first)
                self._did_appear(tree, False)
        return self._take()

    # -- presentations ---------------------------------------------------------------------------------------------

    def _presenter_node(self, presenter: str) -> str:
        if presenter in self.windows and presenter not in self.nodes:
            return self.windows[presenter].root
        self._node(presenter)
        return presenter

    def _presented_size(self, style: str, presenter: str) -> tuple | None:
        w = self._window_of(presenter)
        if w is None:
            return None
        if style in CONTEXT_STYLES:
            return self._size(presenter) or w.size
        if style in SHEETS:
            s = self.sheet_size(w.width, w.height)
            return (float(s[0]), float(s[1]))
        return w.size

    def _chain(self, cid: str) -> list[str]:
        chain = [cid]
        while self.nodes[chain[-1]].presented is not None:
            chain.append(self.nodes[chain[-1]].presented)
        return chain

    def _gesture_check(self, ids: Iterable[str]) -> None:
        """A live gesture (a sheet's swipe, a page drag) on any of `ids` or their ancestors refuses the call."""
        for i in ids:
            if i in self.sheet_gestures:
                raise ModelError(-32003, f"an interactive dismissal of {i} is live")
            for a in [i, *self._ancestors(i)]:
                n = self.nodes[a]
                if isinstance(n, Pages) and n.gesture is not None:
                    raise ModelError(-32003, f"a page gesture is live on {a}")

    def present(self, presenter: str, presented: str, style: str = "pageSheet", animated: bool = True,
                duration=None, modal_in_presentation: bool = False,
                removes_presenter_views: bool | None = None) -> list[Ev]:
        """presentation.present. `presenter` is a container, a tabs/pages id, or a window id (its root)."""
        if style not in STYLES:
            raise ModelError(-32602, f"unknown style {style}")
        if removes_presenter_views is not None and style != "custom":
            raise ModelError(-32602, "removesPresenterViews is for custom only")
        pnode = self._presenter_node(presenter)
        x = self._c(presented)
        if presented == pnode or x.parent is not None or x.window is not None or x.pres is not None \
                or x.presented is not None or x.appearance != "disappeared":
            raise ModelError(-32003, f"{presented} is already in a hierarchy or on screen")
        e = pnode if style in CONTEXT_STYLES else self._root(pnode)
        self._gesture_check([e])
        E = self.nodes[e]
        if isinstance(E, Pages) and E.gesture is not None:
            raise ModelError(-32003, f"a page gesture is live on {e}")
        # Containment and page transitions still running on the presenter complete first; a running presentation
        # makes UIKit refuse (below).
        ids = {e} | set(self._size_tree(e)) | set(self._ancestors(e))
        while True:
            hit = [q for q in self.pending if q.kind != "presentation" and q.keys & ids]
            if not hit:
                break
            q = min(hit, key=lambda q: (q.deadline, q.order))
            self.pending.remove(q)
            for step in q.steps:
                step()
        if E.presented is not None:
            return self._warn(f"Warning: Attempt to present {presented} on {e} which is already presenting "
                              f"{E.presented}")
        tree_e = self._tree(e)
        if any(p.kind == "presentation" and p.keys & ({e} | set(tree_e)) for p in self.pending):
            return self._warn(f"Attempt to present {presented} on {e} while a presentation is in progress")
        if self._window_of(e) is None or not self._on_screen(e):
            return self._warn(f"Warning: Attempt to present {presented} on {e} whose view is not in the window "
                              f"hierarchy!")
        removes = style_removes_presenter(style, removes_presenter_views)
        x.pres = Presentation(e, style, removes, bool(modal_in_presentation))
        x.frame = self._presented_size(style, e)
        E.presented = presented
        tree_x = self._tree(presented)
        gone = tree_e if removes else []
        self._load(presented)
        self._will_disappear(gone, animated)
        self._will_appear(tree_x, animated)

        def end():
            self._did_appear(tree_x, animated)
            self._did_disappear(gone, animated)

        self._schedule("presentation", set(tree_x) | set(gone) | {e, presented}, [end],
                       self._dur(animated, duration))
        return self._take()

    def _unlink(self, chain: list[str]) -> None:
        base = self.nodes[chain[0]]
        self.nodes[base.pres.presenter].presented = None
        for cid in chain:
            c = self.nodes[cid]
            c.pres = None
            c.presented = None
            c.frame = None

    def dismiss(self, cid: str, animated: bool = True, duration=None) -> list[Ev]:
        """presentation.dismiss: `cid` (a presented container) and everything it presents."""
        x = self._c(cid)
        if x.pres is None:
            raise ModelError(-32003, f"{cid} is not presented")
        chain = self._chain(cid)
        self._gesture_check(chain + [x.pres.presenter])
        ids = set(chain) | {x.pres.presenter} | set(self._tree(x.pres.presenter)) \
            | set(self._ancestors(x.pres.presenter))
        for c in chain:
            ids |= set(self._tree(c))
        self._settle(ids)  # a transition still running on the chain completes first
        if x.pres is None:  # ... and that was its own dismissal
            raise ModelError(-32003, f"{cid} is not presented")
        chain = self._chain(cid)
        p = x.pres.presenter
        top = chain[-1]
        gone = [(c, self._tree(c)) for c in reversed(chain) if self.nodes[c].appearance == "appeared"]
        tree_p = self._tree(p)
        reveal = tree_p if (x.pres.removes and tree_p and self._displayed(p)
                            and self.nodes[tree_p[0]].appearance == "disappeared") else []
        for c, tree in gone:
            self._will_disappear(tree, animated and c == top)
        self._will_appear(reveal, animated)

        def end():
            self._did_appear(reveal, animated)
            for c, tree in gone:
                self._did_disappear(tree, animated and c == top)
            self._unlink(chain)

        keys = set(chain) | set(reveal) | {p}
        for _, tree in gone:
            keys |= set(tree)
        self._schedule("presentation", keys, [end], self._dur(animated, duration))
        return self._take()

    def begin_interactive_dismiss(self, cid: str, should_dismiss: bool = True) -> list[Ev]:
        """A sheet's swipe-down starts. `should_dismiss` is what presentationControllerShouldDismiss returns."""
        x = self._c(cid)
        self._gesture_check([cid])
        if x.pres is not None:
            self._settle(set(self._tree(cid)) | {cid, x.pres.presenter})
        if x.pres is None or x.pres.style not in SHEETS:
            raise ModelError(-32003, f"{cid} is not a presented sheet")
        if x.presented is not None:
            raise ModelError(-32003, f"{cid} presents {x.presented}: only the top sheet can be swiped")
        tree = self._tree(cid)
        if x.pres.modal:
            self._emit(cid, "didAttemptToDismiss", kind="presentation")
            self.sheet_gestures[cid] = SheetGesture(tree, refused=True)
            return self._take()
        self._emit(cid, "shouldDismiss", kind="presentation")
        if not should_dismiss:
            self._emit(cid, "didAttemptToDismiss", kind="presentation")
            self.sheet_gestures[cid] = SheetGesture(tree, refused=True)
            return self._take()
        self._emit(cid, "willDismiss", kind="presentation")
        self._will_disappear(tree, True)
        self.sheet_gestures[cid] = SheetGesture(tree)
        return self._take()

    def _sheet_gesture(self, cid: str, ending: bool = False) -> SheetGesture:
        g = self.sheet_gestures.get(cid)
        if g is None:
            raise ModelError(-32003, f"no interactive dismissal of {cid}")
        if ending:
            del self.sheet_gestures[cid]
        return g

    def _rest(self, duration, fraction: float) -> float:
        """What is left of a gesture's transition: `fraction` of its duration."""
        return self._dur(True, duration) * fraction

    def update_interactive_dismiss(self, cid: str, progress: float) -> list[Ev]:
        self._sheet_gesture(cid).progress = min(1.0, max(0.0, float(progress)))
        return self._take()

    def finish_interactive_dismiss(self, cid: str, duration=None) -> tuple[list[Ev], float]:
        """Returns (events now, remaining ms). After duration*(1-progress): viewDidDisappear, didDismiss."""
        g = self._sheet_gesture(cid, ending=True)
        if g.refused:
            return self._take(), 0.0
        remaining = self._rest(duration, 1.0 - g.progress)

        def end():
            self._did_disappear(g.tree, True)
            self._emit(cid, "didDismiss", kind="presentation")
            self._unlink([cid])

        x = self.nodes[cid]
        self._schedule("presentation", set(g.tree) | {cid, x.pres.presenter}, [end], remaining)
        return self._take(), remaining

    def cancel_interactive_dismiss(self, cid: str, duration=None) -> tuple[list[Ev], float]:
        """Returns (events now, remaining ms). After duration*progress: viewWillAppear (...), viewDidAppear."""
        g = self._sheet_gesture(cid, ending=True)
        if g.refused:
            return self._take(), 0.0
        remaining = self._rest(duration, g.progress)

        def end():
            self._will_appear(g.tree, True)
            self._did_appear(g.tree, True)

        self._schedule("presentation", set(g.tree) | {cid}, [end], remaining)
        return self._take(), remaining

    # -- tab bars --------------------------------------------------------------------------------------------------

    def _tabs(self, tid: str) -> Tabs:
        t = self.nodes.get(tid)
        if not isinstance(t, Tabs):
            raise ModelError(-32602, f"no tabs {tid}")
        return t

    def _shown(self, nid: str) -> bool:
        """A tabs or pages root whose window is shown and not covered by a presentation that removed it."""
        w = self.windows[nid]
        n = self.nodes[nid]
        covered = n.presented is not None and self.nodes[n.presented].pres.removes
        return not w.hidden and not covered

    def tabs_create(self, tid: str, width: float, height: float, containers: list, selected: int = 0,
                    hidden: bool = False) -> list[Ev]:
        if tid in self.nodes or tid in self.windows:
            raise ModelError(-32602, f"{tid} exists")
        if len(set(containers)) != len(containers):
            raise ModelError(-32602, "a container appears twice")
        if containers and not 0 <= selected < len(containers):
            raise ModelError(-32602, "selected out of range")
        for cid in containers:
            self._free(cid)
        self.nodes[tid] = Tabs(tid, list(containers), selected if containers else 0)
        self.windows[tid] = Window(tid, float(width), float(height), tid, hidden)
        for cid in containers:
            self.nodes[cid].parent = tid
            self._emit(cid, "willMoveToParent", parent=tid)
            self._emit(cid, "didMoveToParent", parent=tid)
        if not hidden and containers:
            tree = self._tree(tid)
            self._will_appear(tree, False)
            self._did_appear(tree, False)
        return self._take()

    def _switch(self, old: list, new: list) -> None:
        """A tab switch, not animated: new WA (...), old WD, old DD, new DA."""
        self._will_appear(new, False)
        self._will_disappear(old, False)
        self._did_disappear(old, False)
        self._did_appear(new, False)

    def tabs_select(self, tid: str, index: int) -> list[Ev]:
        t = self._tabs(tid)
        if not 0 <= index < len(t.children):
            raise ModelError(-32602, "index out of range")
        if index == t.selected:
            return self._take()
        self._settle(self._size_tree(tid) + [tid] + self._size_tree(t.children[index]))
        old = self._tree(tid)
        t.selected = index
        new = self._tree(tid)
        if self._shown(tid):
            self._switch(old, new)
        return self._take()

    def tabs_set_containers(self, tid: str, containers: list, selected: int | None = None) -> list[Ev]:
        t = self._tabs(tid)
        if len(set(containers)) != len(containers):
            raise ModelError(-32602, "a container appears twice")
        old = list(t.children)
        for cid in containers:
            if cid not in old:
                self._free(cid)
        if selected is not None and containers and not 0 <= selected < len(containers):
            raise ModelError(-32602, "selected out of range")
        old_sel = old[t.selected] if old else None
        if selected is None:
            if old_sel in containers:
                selected = containers.index(old_sel)
            elif t.selected < len(containers):
                selected = t.selected
            else:
                selected = 0
        self._settle(self._size_tree(tid) + [tid])
        shown = self._shown(tid)
        joining = [c for c in containers if c not in old]
        leaving = [c for c in old if c not in containers]
        old_tree = self._tree(tid)
        for cid in leaving:
            self._emit(cid, "willMoveToParent", parent=None)
        for cid in joining:
            self._emit(cid, "willMoveToParent", parent=tid)
            self.nodes[cid].parent = tid
        t.children = list(containers)
        t.selected = selected if containers else 0
        new_tree = self._tree(tid)
        if shown and (old_tree[:1] != new_tree[:1]):
            if old_tree and new_tree:
                self._switch(old_tree, new_tree)
            elif new_tree:
                self._will_appear(new_tree, False)
                self._did_appear(new_tree, False)
            elif old_tree:
                self._will_disappear(old_tree, False)
                self._did_disappear(old_tree, False)
        for cid in leaving:
            self.nodes[cid].parent = None
            self._emit(cid, "didMoveToParent", parent=None)
        for cid in joining:
            self._emit(cid, "didMoveToParent", parent=tid)
        return self._take()

    # -- page sessions (curl and scroll) -----------------------------------------------------------------------

    def _pages(self, pid: str) -> Pages:
        p = self.nodes.get(pid)
        if not isinstance(p, Pages):
            raise ModelError(-32602, f"no pages {pid}")
        return p

    def pages_create(self, pid: str, width: float, height: float, containers: list, initial: int = 0,
                     style: str = "pageCurl", hidden: bool = False) -> list[Ev]:
        if style not in ("pageCurl", "scroll"):
            raise ModelError(-32602, f"unknown transitionStyle {style}")
        if pid in self.nodes or pid in self.windows:
            raise ModelError(-32602, f"{pid} exists")
        if not containers or len(set(containers)) != len(containers) or not 0 <= initial < len(containers):
            raise ModelError(-32602, "bad pages")
        for cid in containers:
            self._free(cid)
        self.nodes[pid] = Pages(pid, list(containers), initial, style)
        self.windows[pid] = Window(pid, float(width), float(height), pid, hidden)
        for cid in containers:
            self.nodes[cid].parent = pid
        if not hidden:
            tree = self._tree(pid)
            self._will_appear(tree, False, layout_first=self.page_layout_first)
            self._did_appear(tree, False)
        return self._take()

    def _page_begin(self, pid: str, to: int, animated: bool) -> PageGesture:
        p = self._pages(pid)
        if p.gesture is not None:
            raise ModelError(-32003, f"a page gesture is live on {pid}")
        if not 0 <= to < len(p.children):
            raise ModelError(-32602, "bad page index")
        self._settle(self._size_tree(pid) + [pid] + self._size_tree(p.children[to]))
        if to == p.current:
            raise ModelError(-32602, f"{pid} already shows page {to}")
        if not self._shown(pid):
            raise ModelError(-32003, f"{pid} is not on screen")
        l_from = self._shown_tree(p.children[p.current])
        l_to = self._shown_tree(p.children[to])
        self._will_appear(l_to, animated, layout_first=self.page_layout_first)
        self._will_disappear(l_from, animated)
        return PageGesture(p.current, to, l_from, l_to)

    def _page_finish_steps(self, p: Pages, g: PageGesture, animated: bool) -> list:
        def end():
            if p.style == "pageCurl":
                self._did_disappear(g.l_from, animated)
                self._did_appear(g.l_to, animated)
            else:
                self._did_appear(g.l_to, animated)
                self._did_disappear(g.l_from, animated)
            p.current = g.to
        return [end]

    def page_begin(self, pid: str, to: int) -> list[Ev]:
        """A drag toward page `to` starts (interactive): New viewWillAppear (...), Current viewWillDisappear."""
        p = self._pages(pid)
        p.gesture = self._page_begin(pid, to, True)
        return self._take()

    def page_update(self, pid: str, progress: float) -> list[Ev]:
        p = self._pages(pid)
        if p.gesture is None:
            raise ModelError(-32003, f"no page gesture on {pid}")
        p.gesture.progress = min(1.0, max(0.0, float(progress)))
        return self._take()

    def _end_page_gesture(self, pid: str):
        """The page session `pid` and its gesture, which ends now."""
        p = self._pages(pid)
        g = p.gesture
        if g is None:
            raise ModelError(-32003, f"no page gesture on {pid}")
        p.gesture = None
        return p, g

    def page_finish(self, pid: str, duration=None) -> tuple[list[Ev], float]:
        p, g = self._end_page_gesture(pid)
        remaining = self._rest(duration, 1.0 - g.progress)
        self._schedule("page", set(g.l_from) | set(g.l_to) | {pid}, self._page_finish_steps(p, g, True), remaining)
        return self._take(), remaining

    def page_cancel(self, pid: str, duration=None) -> tuple[list[Ev], float]:
        p, g = self._end_page_gesture(pid)
        remaining = self._rest(duration, g.progress)

        def end():
            if p.style == "pageCurl":
                self._will_disappear(g.l_to, True)
                self._will_appear(g.l_from, True)
                self._did_disappear(g.l_to, True)
                self._did_appear(g.l_from, True)
            else:
                self._will_appear(g.l_from, True)
                self._did_appear(g.l_from, True)
                self._will_disappear(g.l_to, True)
                self._did_disappear(g.l_to, True)

        self._schedule("page", set(g.l_from) | set(g.l_to) | {pid}, [end], remaining)
        return self._take(), remaining

    def page_show(self, pid: str, to: int, animated: bool = True, duration=None) -> list[Ev]:
        """page.show (a method call, not a gesture): the begin calls now, the end calls after the duration."""
        p = self._pages(pid)
        if p.gesture is not None:
            raise ModelError(-32003, f"a page gesture is live on {pid}")
        self._settle([pid])
        if to == p.current:
            return self._take()
        g = self._page_begin(pid, to, animated)
        self._schedule("page", set(g.l_from) | set(g.l_to) | {pid}, self._page_finish_steps(p, g, animated),
                       self._dur(animated, duration))
        return self._take()

    # -- child containment ---------------------------------------------------------------------------------------

    def add_child(self, parent: str, child: str, in_view: bool = True) -> list[Ev]:
        """container.addChild: willMoveToParent; if the child's view joins a parent on screen (forwarding on), the
        child appears at once. `in_view=False` adds the relation only (for `transition`)."""
        pc = self._c(parent)
        c = self._free(child)
        if parent == child or self._root(parent) == child:
            raise ModelError(-32003, "containment cycle")
        self._gesture_check([parent, child])
        self._settle(self._size_tree(parent) + [parent])
        self._steady(pc)
        self._emit(child, "willMoveToParent", parent=parent)
        c.parent = parent
        c.in_view = bool(in_view)
        c.moving = "add"
        pc.children.append(child)
        if in_view and pc.forwards and pc.appearance == "appeared":
            tree = self._tree(child)
            self._will_appear(tree, False)
            self._did_appear(tree, False)
        return self._take()

    def did_move_to_parent(self, child: str) -> list[Ev]:
        c = self._c(child)
        if c.moving != "add":
            raise ModelError(-32003, f"{child} has no willMoveToParent to close")
        c.moving = None
        self._emit(child, "didMoveToParent", parent=c.parent)
        return self._take()

    def will_move_to_parent(self, child: str, parent=None) -> list[Ev]:
        """container.willMoveToParent {child, parent: null}: the caller's half of a removal."""
        c = self._c(child)
        if parent is not None:
            raise ModelError(-32602, "only parent: null")
        if c.parent is None or not isinstance(self.nodes[c.parent], Container) or c.moving is not None:
            raise ModelError(-32003, f"{child} cannot start leaving its parent now")
        c.moving = "remove"
        self._emit(child, "willMoveToParent", parent=None)
        return self._take()

    def remove_from_parent(self, child: str) -> list[Ev]:
        """container.removeFromParent (after will_move_to_parent): disappears if on screen, didMoveToParent(null)."""
        c = self._c(child)
        if c.moving != "remove":
            raise ModelError(-32003, f"{child}: willMoveToParent(null) first")
        pc = self.nodes[c.parent]
        self._settle(self._size_tree(pc.id) + [pc.id])
        self._steady(pc)
        if c.in_view and pc.forwards and c.appearance == "appeared":
            tree = self._tree(child)
            self._will_disappear(tree, False)
            self._did_disappear(tree, False)
        pc.children.remove(child)
        c.parent = None
        c.in_view = True
        c.moving = None
        self._emit(child, "didMoveToParent", parent=None)
        return self._take()

    def transition(self, parent: str, frm: str, to: str, animated: bool = True, duration=None) -> list[Ev]:
        """container.transition {parent, from, to}: swaps two children's views (to must be a child not in view)."""
        pc = self._c(parent)
        a, b = self._c(frm), self._c(to)
        if a.parent != parent or b.parent != parent or not a.in_view or b.in_view:
            raise ModelError(-32003, "from must be a child in view, to a child not in view")
        if not pc.forwards:
            raise ModelError(-32003, f"{parent} forwards appearance by hand")
        self._settle(self._size_tree(parent) + [parent, to])
        self._steady(pc)
        on_screen = pc.appearance == "appeared"
        l_from = self._tree(frm)
        a.in_view, b.in_view = False, True
        if not on_screen:
            return self._take()
        l_to = self._tree(to)
        self._will_appear(l_to, animated)
        self._will_disappear(l_from, animated)

        def end():
            self._did_disappear(l_from, animated)
            self._did_appear(l_to, animated)

        self._schedule("transition", set(l_from) | set(l_to) | {parent}, [end], self._dur(animated, duration))
        return self._take()

    def _steady(self, pc: Container) -> None:
        """Containment changes wait for no transition (running ones were settled): a parent still appearing or
        disappearing is in a live gesture or a call made by hand, whose end would miss the new child."""
        if pc.appearance in ("appearing", "disappearing"):
            raise ModelError(-32003, f"{pc.id} is {pc.appearance} (a live gesture or a call by hand)")

    def set_forwards_appearance(self, cid: str, forwards: bool) -> list[Ev]:
        self._c(cid).forwards = bool(forwards)
        return self._take()

    def _check_manual(self, c: Container) -> None:
        if c.window is not None or c.pres is not None:
            raise ModelError(-32003, f"{c.id}'s appearance belongs to its window or presentation")
        if c.parent is not None:
            pn = self.nodes[c.parent]
            if not isinstance(pn, Container) or pn.forwards:
                raise ModelError(-32003, f"{c.id}'s parent forwards its appearance")

    def _unbalanced(self, cid: str, call: str) -> list[Ev]:
        self.unbalanced += 1
        self._emit(cid, UNBALANCED, call=call, state=self.nodes[cid].appearance)
        return self._take()

    def begin_appearance(self, cid: str, appearing: bool, animated: bool = False) -> list[Ev]:
        """beginAppearanceTransition, by hand (a parentless container, or a child of a parent that does not forward)."""
        c = self._c(cid)
        self._check_manual(c)
        call = f"beginAppearance({'true' if appearing else 'false'})"
        hook = "viewWillAppear" if appearing else "viewWillDisappear"
        if c.appearance not in TABLE[hook][0]:
            return self._unbalanced(cid, call)
        tree = self._tree(cid)
        if appearing:
            self._will_appear(tree, animated)
        else:
            self._will_disappear(tree, animated)
        return self._take()

    def end_appearance(self, cid: str, animated: bool = False) -> list[Ev]:
        c = self._c(cid)
        self._check_manual(c)
        tree = self._tree(cid)
        if c.appearance == "appearing":
            self._did_appear(tree, animated)
        elif c.appearance == "disappearing":
            self._did_disappear(tree, animated)
        else:
            return self._unbalanced(cid, "endAppearance")
        return self._take()

    # -- size transitions -------------------------------------------------------------------------------------

    def _size_order(self, nid: str) -> list[str]:
        base = self._size_tree(nid)
        out = list(base)
        presenters = base + ([nid] if isinstance(self.nodes[nid], (Tabs, Pages)) else [])
        for cid in presenters:
            pres = self.nodes[cid].presented
            if pres is not None:
                out += self._size_order(pres)
        return out

    def resize(self, wid: str, width: float, height: float) -> list[Ev]:
        """A window (stack.resize, tabs.resize) changes size: viewWillTransitionToSize to every loaded container of
        the window whose size changes, root tree first then the presented chain, parent first; then the containers
        on screen lay out at their new sizes in the same order."""
        w = self.windows.get(wid)
        if w is None:
            raise ModelError(-32602, f"no window {wid}")
        order = self._size_order(w.root)
        self._settle(set(order) | {w.root})
        self._gesture_check(order)
        order = self._size_order(w.root)
        before = {cid: self._size(cid) for cid in order}
        w.width, w.height = float(width), float(height)
        root = self.nodes[w.root]
        if isinstance(root, Container):
            root.frame = w.size
        for cid in order:
            c = self.nodes[cid]
            if c.pres is not None:
                c.frame = self._presented_size(c.pres.style, c.pres.presenter)
        if w.hidden:
            return self._take()
        for cid in order:
            c = self.nodes[cid]
            after = self._size(cid)
            if c.loaded and after != before[cid]:
                self._emit(cid, "viewWillTransitionToSize", size=after)
        for cid in order:
            if self.nodes[cid].appearance in ("appeared", "appearing"):
                self._layout(cid)
        return self._take()


# -- the balance checker ---------------------------------------------------------------------------------------------


def check_balance(events: Iterable[Ev], complete: bool = True, initial: dict | None = None) -> list[str]:
    """Feeds lifecycle events through the four-state table and the containment pairing; returns the problems
    (empty when balanced). `complete`: the list is a whole history, so no container may be left mid-transition and
    every willMoveToParent must be closed by its didMoveToParent. `initial`: {container: state} to start from."""
    state: dict[str, str] = dict(initial or {})
    is_sent: dict[str, bool] = {}
    moves: dict[str, object] = {}
    problems: list[str] = []
    for e in events:
        if e.kind != "lifecycle":
            continue
        cid, hook = e.container, e.hook
        if hook == UNBALANCED:
            problems.append(f"{e}: reported unbalanced call")
        elif hook in TABLE:
            froms, to = TABLE[hook]
            st = state.get(cid, "disappeared")
            if st not in froms:
                problems.append(f"{e}: {hook} from {st}")
            else:
                state[cid] = to
                if hook == "viewWillAppear":
                    is_sent[cid] = False
        elif hook == "viewIsAppearing":
            if state.get(cid, "disappeared") != "appearing" or is_sent.get(cid, False):
                problems.append(f"{e}: viewIsAppearing outside an appearance or twice")
            is_sent[cid] = True
        elif hook == "willMoveToParent":
            if cid in moves:
                problems.append(f"{e}: willMoveToParent while another is open")
            moves[cid] = e.get("parent")
        elif hook == "didMoveToParent":
            if cid not in moves:
                problems.append(f"{e}: didMoveToParent without willMoveToParent")
            elif moves[cid] != e.get("parent"):
                problems.append(f"{e}: didMoveToParent({e.get('parent')}) closes willMoveToParent({moves[cid]})")
            moves.pop(cid, None)
    if complete:
        for cid, st in sorted(state.items()):
            if st in ("appearing", "disappearing"):
                problems.append(f"{cid} left {st}")
        for cid, parent in sorted(moves.items(), key=lambda kv: kv[0]):
            problems.append(f"{cid}: willMoveToParent({parent}) never closed")
    return problems


def assert_balanced(events: Iterable[Ev], complete: bool = True, initial: dict | None = None) -> None:
    problems = check_balance(events, complete=complete, initial=initial)
    assert not problems, "unbalanced:\n  " + "\n  ".join(problems)


def keys(events: Iterable[Ev], hooks: Iterable[str] | None = None) -> list[str]:
    """Compact "container hook" strings, optionally only some hooks (for comparing with published logs)."""
    hs = set(hooks) if hooks is not None else None
    return [f"{e.container} {e.hook}" for e in events if hs is None or e.hook in hs]
