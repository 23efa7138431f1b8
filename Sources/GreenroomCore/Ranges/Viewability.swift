/// One viewability threshold of a range session (docs/ranges.md, "Viewability"): React Native's
/// `viewabilityConfig` (`itemVisiblePercentThreshold`, `minimumViewTime`), an IntersectionObserver
/// threshold with a dwell time.
public struct ViewabilityThreshold: Equatable, Sendable {
    public var name: String
    /// The share of the item's length along the axis inside the viewport, in (0, 100].
    public var minPercent: Double
    /// How long the item must meet `minPercent` without a break, ms of host clock (>= 0).
    public var minMs: Double

    public init(name: String, minPercent: Double = 50, minMs: Double = 0) {
        self.name = name
        self.minPercent = minPercent
        self.minMs = minMs
    }
}

/// Why an item stopped being viewable for a threshold.
public enum ViewabilityEnd: String, Equatable, Sendable {
    /// It fell below the threshold (scrolled, or the viewport or the items around it changed).
    case scrolledOut
    /// The list went off screen (`setVisible(false)`): an invisible list shows nothing.
    case hidden
    /// The item was deleted.
    case removed
}

/// One change of an item's viewability for one threshold.
public struct ViewabilityTransition: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case viewable
        case ended(ViewabilityEnd)
    }

    /// The threshold's index in `Viewability.thresholds`.
    public var threshold: Int
    /// The item's flat index (for `removed`: its index before the deletion).
    public var flat: Int
    /// The percent of the item on screen now (0 when hidden or removed).
    public var percent: Double
    public var kind: Kind

    public init(threshold: Int, flat: Int, percent: Double, kind: Kind) {
        self.threshold = threshold
        self.flat = flat
        self.percent = percent
        self.kind = kind
    }
}

/// What one observation (or a tick of the clock) changed, and when the next pending item falls due.
public struct ViewabilityStep: Equatable, Sendable {
    /// In threshold order; within a threshold, the items that ended (ascending), then those that became
    /// viewable (ascending).
    public var transitions: [ViewabilityTransition]
    /// The earliest time at which a pending item meets its `minMs` (nil: nothing is pending). The host
    /// wakes then and calls `tick`.
    public var deadline: Double?
}

/// Which items of a range session are viewable, per threshold: the state machine behind `viewable`
/// events. Pure: the host gives the time and what is on screen; nothing here reads a clock.
///
/// An item meets a threshold when its percent on screen is at least `minPercent` at an observation.
/// While it goes on meeting it at every observation it is pending; once it has met it for `minMs`
/// (observed at or after `since + minMs`, or ticked at that deadline) it is viewable, and stays so until an
/// observation where it does not meet it (`scrolledOut`), the list is invisible (`hidden`) or it is
/// deleted (`removed`). A pending item that stops meeting it is forgotten without a word. Only
/// observations count: an item a fling jumps over between two observations never meets anything, and with
/// `minMs > 0` an item met at one observation and gone at the next one before its deadline never counts.
public struct Viewability: Sendable {
    /// At most this many thresholds per session.
    public static let maxThresholds = 8

    /// An item meeting a threshold, not yet for `minMs`: since when, and its percent at the last observation.
    public struct Pending: Equatable, Sendable {
        public var since: Double
        public var percent: Double
    }

    public let thresholds: [ViewabilityThreshold]
    /// Per threshold: items meeting it but not yet for `minMs` (flat index -> since, percent now).
    public private(set) var pending: [[Int: Pending]]
    /// Per threshold: items announced viewable (flat index -> percent now).
    public private(set) var viewable: [[Int: Double]]

    public init(thresholds: [ViewabilityThreshold]) {
        self.thresholds = thresholds
        pending = Array(repeating: [:], count: thresholds.count)
        viewable = Array(repeating: [:], count: thresholds.count)
    }

    /// The items viewable for threshold `t`, ascending.
    public func viewableItems(_ t: Int) -> [Int] { viewable[t].keys.sorted() }

    /// The earliest deadline of a pending item. O(pending items).
    public var nextDeadline: Double? {
        var best: Double?
        for (t, items) in pending.enumerated() {
            let ms = thresholds[t].minMs
            for p in items.values {
                let d = p.since + ms
                if best.map({ d < $0 }) ?? true { best = d }
            }
        }
        return best
    }

    /// An observation at `now`: `visible` lists the items on screen with their percent (the list's
    /// visible items; ignored when `isVisible` is false, as an invisible list shows nothing).
    /// O(visible items x thresholds).
    public mutating func observe(now: Double, visible: [(flat: Int, percent: Double)], isVisible: Bool) -> ViewabilityStep {
        var percents: [Int: Double] = [:]
        if isVisible {
            percents.reserveCapacity(visible.count)
            for v in visible { percents[v.flat] = v.percent }
        }
        var out: [ViewabilityTransition] = []
        for t in thresholds.indices {
            let th = thresholds[t]
            func meets(_ f: Int) -> Double? {
                guard let p = percents[f], p >= th.minPercent else { return nil }
                return p
            }
            // What stopped meeting the threshold: viewable items end, pending ones are forgotten.
            var ended: [Int] = []
            for f in viewable[t].keys where meets(f) == nil { ended.append(f) }
            ended.sort()
            for f in ended {
                viewable[t][f] = nil
                out.append(ViewabilityTransition(threshold: t, flat: f, percent: isVisible ? percents[f] ?? 0 : 0,
                                                 kind: .ended(isVisible ? .scrolledOut : .hidden)))
            }
            var dropped: [Int] = []
            for f in pending[t].keys where meets(f) == nil { dropped.append(f) }
            for f in dropped { pending[t][f] = nil }
            guard isVisible else { continue }
            // What meets it: still viewable, still pending (perhaps due now), or new.
            for v in visible {
                guard let p = meets(v.flat) else { continue }
                if viewable[t][v.flat] != nil {
                    viewable[t][v.flat] = p
                } else if let since = pending[t][v.flat]?.since {
                    if now >= since + th.minMs {
                        pending[t][v.flat] = nil
                        viewable[t][v.flat] = p
                        out.append(ViewabilityTransition(threshold: t, flat: v.flat, percent: p, kind: .viewable))
                    } else {
                        pending[t][v.flat] = Pending(since: since, percent: p)
                    }
                } else if th.minMs <= 0 {
                    viewable[t][v.flat] = p
                    out.append(ViewabilityTransition(threshold: t, flat: v.flat, percent: p, kind: .viewable))
                } else {
                    pending[t][v.flat] = Pending(since: now, percent: p)
                }
            }
        }
        return ViewabilityStep(transitions: out, deadline: nextDeadline)
    }

    /// Time passed with nothing on screen moved: the pending items whose deadline is `now` or earlier
    /// become viewable, at the percent of their last observation. O(pending items).
    public mutating func tick(now: Double) -> ViewabilityStep {
        var out: [ViewabilityTransition] = []
        for t in thresholds.indices {
            let ms = thresholds[t].minMs
            var due: [Int] = []
            for (f, p) in pending[t] where now >= p.since + ms { due.append(f) }
            due.sort()
            for f in due {
                let p = pending[t].removeValue(forKey: f)!.percent
                viewable[t][f] = p
                out.append(ViewabilityTransition(threshold: t, flat: f, percent: p, kind: .viewable))
            }
        }
        return ViewabilityStep(transitions: out, deadline: nextDeadline)
    }

    /// Items were inserted (`k > 0` before flat index `at`) or the one item at `at` deleted (`k == -1`),
    /// as `RangeSession` moves its own sets: every index from `at` on moves by `k`. A deleted item that
    /// was viewable ends (`removed`, in threshold order); a pending one is forgotten. O(tracked items).
    @discardableResult
    public mutating func shift(insertingAt at: Int, count k: Int) -> [ViewabilityTransition] {
        precondition(k > 0 || k == -1, "inserts (k > 0) or one delete (k == -1)")
        return remap { f in k > 0 ? (f >= at ? f + k : f) : (f == at ? nil : f > at ? f - 1 : f) }
    }

    /// A batch moved items (`newFlat`: where the item at an old flat index is now, nil when deleted):
    /// tracked items follow their items; a deleted one that was viewable ends (`removed`), its old flat
    /// index in the transition. O(tracked items x log changes).
    public mutating func remap(_ newFlat: (Int) -> Int?) -> [ViewabilityTransition] {
        var out: [ViewabilityTransition] = []
        for t in thresholds.indices {
            var p: [Int: Pending] = [:]
            for (f, x) in pending[t] { if let n = newFlat(f) { p[n] = x } }
            pending[t] = p
            var v: [Int: Double] = [:]
            for f in viewable[t].keys.sorted() {
                if let n = newFlat(f) { v[n] = viewable[t][f] } else {
                    out.append(ViewabilityTransition(threshold: t, flat: f, percent: 0, kind: .ended(.removed)))
                }
            }
            viewable[t] = v
        }
        return out
    }
}
