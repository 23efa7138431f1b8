/// Texture's layout range modes (ASLayoutRangeMode).
public enum RangeMode: String, Sendable, CaseIterable {
    case full, minimum, visibleOnly, lowMemory
}

/// Texture's range types with buffers (visible has none).
public enum RangeType: String, Sendable, CaseIterable {
    case display, preload
}

/// Screenfuls added ahead of the motion (leading) and behind it (trailing).
public struct RangeBuffer: Equatable, Sendable {
    public var leading: Double
    public var trailing: Double
    public init(leading: Double, trailing: Double) {
        self.leading = leading
        self.trailing = trailing
    }
}

/// Buffers per mode and range type; defaults are Texture's (ASRangeControllerTuningParameters).
public struct RangeTuning: Equatable, Sendable {
    /// Buffers by mode and range type, stored flat (every update reads them; hashing nested
    /// dictionaries cost more than the range arithmetic).
    private var flat: [RangeBuffer] = Array(repeating: RangeBuffer(leading: 0, trailing: 0), count: 8)

    @inline(__always) private static func slot(_ m: RangeMode, _ t: RangeType) -> Int {
        let mi: Int
        switch m { case .full: mi = 0; case .minimum: mi = 1; case .visibleOnly: mi = 2; case .lowMemory: mi = 3 }
        return mi * 2 + (t == .display ? 0 : 1)
    }

    public init(buffers: [RangeMode: [RangeType: RangeBuffer]]) { self.buffers = buffers }

    public var buffers: [RangeMode: [RangeType: RangeBuffer]] {
        get {
            var d: [RangeMode: [RangeType: RangeBuffer]] = [:]
            for m in RangeMode.allCases { for t in RangeType.allCases { d[m, default: [:]][t] = flat[Self.slot(m, t)] } }
            return d
        }
        set {
            for (m, types) in newValue { for (t, b) in types { flat[Self.slot(m, t)] = b } }
        }
    }

    public static let texture = RangeTuning(buffers: [
        .full: [.display: RangeBuffer(leading: 1.0, trailing: 0.5), .preload: RangeBuffer(leading: 2.5, trailing: 1.5)],
        .minimum: [.display: RangeBuffer(leading: 0.25, trailing: 0.25), .preload: RangeBuffer(leading: 0.5, trailing: 0.25)],
        .visibleOnly: [.display: RangeBuffer(leading: 0, trailing: 0), .preload: RangeBuffer(leading: 0, trailing: 0)],
        .lowMemory: [.display: RangeBuffer(leading: 0, trailing: 0), .preload: RangeBuffer(leading: 0, trailing: 0)],
    ])

    @inline(__always) public func buffer(_ mode: RangeMode, _ type: RangeType) -> RangeBuffer {
        flat[Self.slot(mode, type)]
    }
}

/// A half-open interval of flat item indices.
public struct IndexInterval: Equatable, Sendable, CustomStringConvertible {
    public var lo: Int
    public var hi: Int
    public init(_ lo: Int, _ hi: Int) {
        self.lo = lo
        self.hi = max(lo, hi)
    }
    public static let empty = IndexInterval(0, 0)
    public var isEmpty: Bool { hi <= lo }
    public var count: Int { hi - lo }
    public func contains(_ i: Int) -> Bool { i >= lo && i < hi }
    /// The smallest interval holding both (ranges are contiguous around the viewport).
    public func hull(_ o: IndexInterval) -> IndexInterval {
        if isEmpty { return o }
        if o.isEmpty { return self }
        return IndexInterval(min(lo, o.lo), max(hi, o.hi))
    }
    public func intersection(_ o: IndexInterval) -> IndexInterval {
        let l = max(lo, o.lo), h = min(hi, o.hi)
        return h > l ? IndexInterval(l, h) : .empty
    }

    /// The parts of `self` outside `o`: at most two intervals.
    public func subtracting(_ o: IndexInterval) -> [IndexInterval] {
        if isEmpty { return [] }
        if o.isEmpty || o.hi <= lo || o.lo >= hi { return [self] }
        var parts: [IndexInterval] = []
        if o.lo > lo { parts.append(IndexInterval(lo, o.lo)) }
        if o.hi < hi { parts.append(IndexInterval(o.hi, hi)) }
        return parts
    }
    /// Shifted for `k` items inserted before flat index `at` (k = -1: the item at `at` removed). New
    /// items are never inside: `lo` moves when the first item moves, `hi` when the last one does.
    public func shifted(insertingAt at: Int, count k: Int) -> IndexInterval {
        if isEmpty { return IndexInterval(lo >= at && k > 0 ? lo + k : lo, lo >= at && k > 0 ? lo + k : lo) }
        if k >= 0 { return IndexInterval(lo >= at ? lo + k : lo, hi > at ? hi + k : hi) }
        return IndexInterval(lo > at ? lo + k : lo, hi > at ? hi + k : hi)
    }
    public var description: String { "[\(lo), \(hi))" }
}

/// How a range session decides to fetch the next batch.
public enum BatchStrategy: Equatable, Sendable {
    /// Texture's: fetch when the remaining content is within `leadingScreens` viewports.
    case ranges
    /// The ASDK preloading article's static threshold: fetch when (offset + L) / content >= ratio.
    case threshold(Double)
    /// The ASDK preloading article's dynamic threshold: the ratio grows with the pages loaded.
    case dynamicThreshold(Double)
}

/// Up to two disjoint intervals: a range around the viewport, or, during a lazy fling, the target
/// region plus what is on screen (so visible items keep all three states while the rows in between
/// stay unmarked).
public struct RangeSpan: Equatable, Sendable, CustomStringConvertible {
    public private(set) var a: IndexInterval
    public private(set) var b: IndexInterval

    public init(_ x: IndexInterval, _ y: IndexInterval = .empty) {
        if x.isEmpty { (a, b) = (y, .empty); return }
        if y.isEmpty { (a, b) = (x, .empty); return }
        if x.hi >= y.lo && y.hi >= x.lo { (a, b) = (x.hull(y), .empty); return }  // overlapping or adjacent
        (a, b) = x.lo < y.lo ? (x, y) : (y, x)
    }

    public static let empty = RangeSpan(.empty)
    public var isEmpty: Bool { a.isEmpty }
    public var parts: [IndexInterval] { b.isEmpty ? (a.isEmpty ? [] : [a]) : [a, b] }
    public var count: Int { a.count + b.count }
    public func contains(_ i: Int) -> Bool { a.contains(i) || b.contains(i) }
    /// Every index, ascending.
    public var indices: [Int] { parts.flatMap { Array($0.lo..<$0.hi) } }

    /// The parts of `self` outside `o`.
    public func subtracting(_ o: RangeSpan) -> [IndexInterval] {
        var pieces = parts
        for q in o.parts { pieces = pieces.flatMap { $0.subtracting(q) } }
        return pieces
    }

    public func intersection(_ x: IndexInterval) -> [IndexInterval] {
        parts.map { $0.intersection(x) }.filter { !$0.isEmpty }
    }

    public func shifted(insertingAt at: Int, count k: Int) -> RangeSpan {
        RangeSpan(a.shifted(insertingAt: at, count: k), b.shifted(insertingAt: at, count: k))
    }

    public static func == (l: RangeSpan, r: IndexInterval) -> Bool { l.b.isEmpty && l.a == r }
    public var description: String { b.isEmpty ? a.description : "\(a) + \(b)" }
}
