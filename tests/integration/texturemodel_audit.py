"""An independent executable model of Texture's range controller and batch fetching (TextureGroup/Texture
be0b74b4, paths under `Source/`), written from the source for an audit of range sessions; it shares no code
with `rangemodel.TextureModel`.

It follows, call by call, what a vertical `ASTableView` (or a one-axis `ASCollectionView`) does:

- `Details/ASRangeController.mm` `-_updateVisibleNodeIndexPaths`: the direction (the scroll view's, else the
  previous one, kept even by an update that stops early), the early return with nothing on screen (ranges
  and mode stay), the mode rule (`(!_preserveCurrentRangeMode && _contentHasBeenScrolled && visible) ||
  first update` picks `rangeModeForInterfaceState:`), the lowMemory empty display set, `equalDisplayPreload`
  (preload reuses the display set), and the interface states of visible and invisible lists;
  `-updateCurrentRangeWithMode:` (preserve always, an update only when the mode changes);
  `+didReceiveMemoryWarning:` (visibleOnly when the list has display, else lowMemory, updated at once).
- `Details/ASAbstractLayoutController.mm`: default tunings, leading buffer in the scroll direction (down /
  right when the direction holds down / right, else the trailing buffer is below); items are in a range when
  their frame intersects it (CGRectIntersectsRect: strictly overlapping).
- `ASTableView.mm` / `ASCollectionView.mm`: `-scrollDirection` (pan velocity while tracking, else
  `_deceleratingVelocity` = offset - target set at `scrollViewWillEndDragging:` and zeroed at
  `scrollViewDidEndDecelerating:`); `scrollViewWillBeginDragging:` (contentHasBeenScrolled, full);
  batch checks at `scrollViewDidScroll:` (visible, not dragging), at `scrollViewWillEndDragging:` (the
  target), after data changes (`_scheduleCheckForBatchFetchingForNumberOfChanges:`, none for zero changes
  once one check has run), when the view moves to a window.
- `Private/ASBatchFetching.mm` `ASDisplayShouldFetchBatchForContext`.

Greenroom's mapping (docs/ranges.md): a call is one run-loop turn, so `setNeedsUpdate` (on-screen set
changed — UIKit's willDisplay / didEndDisplaying — or a mode set by a drag) runs one update at the end of the
call; memory warnings and visibility changes update at once; an invisible session's viewport items stand for
UIKit's on-screen cells; the direction while dragging is the sign of `velocity`, else of the offset change.
Items have identities (ints) so inserts and deletes keep them; paths are computed on demand.
"""

from __future__ import annotations

# Texture's default tunings (ASAbstractLayoutController +defaultTuningParameters), the one shared table.
from rangemodel import TEXTURE as TUNING  # noqa: E402

KINDS = ("preload", "display", "visible")


def sign(x: float) -> int:
    return (x > 0) - (x < 0)


class Texture:
    def __init__(self, sections, L, visible=True, lead=2.0, tuning=None, axis="vertical"):
        self.next_id = 0
        self.sections = [[self._new(x) for x in sec] for sec in sections]
        self.L = float(L)
        self.axis = axis
        self.visible = visible
        self.lead = lead
        self.tuning = {m: dict(t) for m, t in TUNING.items()}
        for m, t in (tuning or {}).items():
            for kind, b in t.items():
                self.tuning[m][kind] = (b["leading"], b["trailing"])
        self.offset = 0.0
        self.mode = None  # ASLayoutRangeModeUnspecified
        self.preserve = False
        self.scrolled = False
        self.prev = 1  # _previousScrollDirection: down | right
        self.phase = "idle"
        self.pan = 0  # sign of the pan velocity while tracking
        self.decel = 0  # sign of (target - offset) at release (Texture's -_deceleratingVelocity)
        self.needs = False
        self.cells: frozenset = frozenset()  # UIKit's displayed cells at the end of the last call
        self.sets = {k: set() for k in KINDS}
        self.in_flight = False
        self.ever_checked = False
        self.updates: list = []  # diffs of the updates in the current call
        self.batches = 0
        self.removed: list = []

    # ---------------------------------------------------------------- content

    def _new(self, length):
        self.next_id += 1
        self.len_of = getattr(self, "len_of", {})
        self.len_of[self.next_id] = float(length)
        return self.next_id

    def flat(self):
        return [i for sec in self.sections for i in sec]

    def total(self):
        return sum(self.len_of[i] for i in self.flat())

    def path_of(self):
        return {i: (s, r) for s, sec in enumerate(self.sections) for r, i in enumerate(sec)}

    def hits(self, lo, hi):
        out, y = set(), 0.0
        for i in self.flat():
            n = self.len_of[i]
            if y < hi and y + n > lo and n > 0 and hi > lo:
                out.add(i)
            y += n
        return out

    def on_screen(self):
        return frozenset(self.hits(self.offset, self.offset + self.L))

    # ---------------------------------------------------------------- direction, ranges

    def dir_now(self):
        return self.pan if self.phase == "dragging" else self.decel

    def grown(self, mode, kind, d):
        lead, trail = self.tuning[mode][kind]
        ahead, behind = (lead, trail) if d > 0 else (trail, lead)
        return self.hits(self.offset - behind * self.L, self.offset + self.L + ahead * self.L)

    def update(self):
        self.needs = False
        d = self.dir_now() or self.prev
        self.prev = d
        vis = self.on_screen()
        before = {k: set(v) for k, v in self.sets.items()}
        if not vis:
            self.sets["visible"] = set()
            self._diff(before)
            return
        mode = self.mode
        if (not self.preserve and self.scrolled and self.visible) or mode is None:
            mode = "full" if (self.visible and self.mode is not None) else "minimum"
        tp, td = self.tuning[mode]["preload"], self.tuning[mode]["display"]
        if mode == "lowMemory":
            display = set()
        else:
            display = self.grown(mode, "display", d)
        preload = display if td == tp else self.grown(mode, "preload", d)
        self.mode = mode
        self.preserve = False
        new = {k: set() for k in KINDS}
        for i in set(vis) | display | preload:
            if self.visible:
                if i in vis:
                    bits = KINDS
                else:
                    bits = [k for k, s in (("preload", preload), ("display", display)) if i in s]
            else:
                if i in vis:
                    bits = ["preload"] + ([] if mode == "lowMemory" else ["display"])
                elif i in display:
                    bits = ["preload"]
                else:
                    bits = []
            for k in bits:
                new[k].add(i)
        self.sets = new
        self._diff(before)

    def _diff(self, before):
        enter = {k: self.sets[k] - before[k] for k in KINDS}
        exit_ = {k: before[k] - self.sets[k] for k in KINDS}
        if any(enter.values()) or any(exit_.values()):
            self.updates.append((enter, exit_))

    def set_mode(self, m):  # -updateCurrentRangeWithMode:
        self.preserve = True
        if self.mode != m:
            self.mode = m
            self.needs = True

    # ---------------------------------------------------------------- batch fetching

    def should_fetch(self, offset, d):
        if self.in_flight or self.lead <= 0 or self.L <= 0:
            return False
        content = self.total()
        if content < self.L:
            return True
        if not self.visible:
            return False
        if d < 0:
            return False
        return content - self.L - offset <= self.lead * self.L

    def check(self, offset=None, d=None):
        if self.should_fetch(self.offset if offset is None else offset, self.dir_now() if d is None else d):
            self.in_flight = True
            self.batches += 1

    def check_unless_dragging(self):  # -_checkForBatchFetching
        if self.phase != "dragging":
            self.check()

    def data_changed(self, changes):  # -_scheduleCheckForBatchFetchingForNumberOfChanges:
        if changes == 0 and self.ever_checked:
            return
        self.ever_checked = True
        self.check_unless_dragging()

    # ---------------------------------------------------------------- calls

    def begin(self):
        self.updates, self.batches, self.removed = [], 0, []

    def end(self):
        cells = self.on_screen()
        if self.needs or cells != self.cells:
            self.update()
        self.cells = cells
        return self.updates, self.batches

    def create(self):
        self.begin()
        self.data_changed(1)  # the initial reloadData
        return self.end()

    def will_begin_dragging(self, offset=None, velocity=None):
        self.begin()
        # Greenroom's mapping: `offset` is where the drag starts, no motion yet (UIKit calls
        # scrollViewWillBeginDragging: before moving the content); the pan's direction is `velocity`'s.
        if offset is not None:
            self.offset = offset
        self.phase = "dragging"
        self.pan = sign(velocity) if velocity is not None else 0
        self.scrolled = True
        self.set_mode("full")
        return self.end()

    def _scroll(self, offset, velocity):
        # Greenroom's mapping: every call is a scrollViewDidScroll:, even at the same offset (UIKit would
        # send none then; docs/ranges.md lists the difference).
        if self.phase == "dragging":
            self.pan = sign(velocity) if velocity is not None else sign(offset - self.offset)
        self.offset = offset
        if self.visible and self.phase != "dragging":
            self.check()

    def did_scroll(self, offset, velocity=None):
        self.begin()
        self._scroll(offset, velocity)
        return self.end()

    def will_end_dragging(self, target, offset=None):
        self.begin()
        if offset is not None:
            self.offset = offset
        target = min(max(target, 0.0), max(self.total() - self.L, 0.0))
        self.decel = sign(target - self.offset)
        self.phase = "decelerating"
        self.check(target, self.decel)
        self.end()
        return target

    def did_end_decelerating(self, offset=None):
        self.begin()
        if self.phase == "dragging":  # a drag ended without willEndDragging: a release at rest
            if offset is not None:
                self.offset = offset
            self.phase = "idle"
            self.pan = 0
            self.decel = 0
            self.check(self.offset, 0)
        else:
            if offset is not None:
                self._scroll(offset, None)
            self.phase = "idle"
            self.decel = 0
        return self.end()

    def set_visible(self, v):
        self.begin()
        if v != self.visible:
            self.visible = v
            self.update()
            if v:
                self.check_unless_dragging()
        return self.end()

    def set_viewport(self, L):
        self.begin()
        self.L = float(L)
        return self.end()

    def memory_warning(self):
        self.begin()
        self.set_mode("visibleOnly" if self.visible else "lowMemory")
        if self.needs:
            self.update()
        return self.end()

    def insert(self, section, row, lengths):
        self.begin()
        self.sections[section][row:row] = [self._new(x) for x in lengths]
        self.data_changed(len(lengths))
        return self.end()

    def delete(self, paths):
        self.begin()
        ids = [self.sections[s][r] for s, r in paths]
        for s, r in sorted(paths, reverse=True):
            del self.sections[s][r]
        for k in KINDS:
            self.sets[k] -= set(ids)
        self.removed = ids
        self.data_changed(len(paths))
        return self.end()

    def batch_done(self, lengths):
        self.begin()
        self.in_flight = False
        if lengths:
            self.sections[-1].extend(self._new(x) for x in lengths)
            self.data_changed(len(lengths))
        return self.end()

    # ---------------------------------------------------------------- reporting

    def direction(self):
        if self.axis == "vertical":
            return "down" if self.prev > 0 else "up"
        return "right" if self.prev > 0 else "left"

    def lists(self):
        p = self.path_of()
        return {k: sorted(p[i] for i in self.sets[k]) for k in KINDS}

    def paths(self, ids):
        p = self.path_of()
        return sorted(p[i] for i in ids if i in p)
