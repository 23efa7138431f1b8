/// What changed in one update: flat indices entering and leaving each range (nearest the viewport
/// first), and the prefetch calls. The lists share one buffer, in the order they are computed, whose
/// first eight entries live inline: a scroll step's update (an item or two) allocates nothing.
public struct RangeUpdate: Equatable, Sendable {
    enum List: Int {
        case enterVisible, exitVisible, enterDisplay, exitDisplay, enterPreload, exitPreload, prefetch, cancelPrefetch
    }
    private static let inlineCapacity = 8
    private var inline: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var spill: [Int] = []
    /// Entries in all lists.
    private(set) var count = 0
    /// Where each list ends.
    private var ends = SIMD8<Int32>()

    public init() {}

    subscript(k: Int) -> Int {
        if k < Self.inlineCapacity {
            return withUnsafeBytes(of: inline) { $0.load(fromByteOffset: k * MemoryLayout<Int>.stride, as: Int.self) }
        }
        return spill[k - Self.inlineCapacity]
    }

    mutating func append(_ i: Int) {
        if count < Self.inlineCapacity {
            let k = count
            withUnsafeMutableBytes(of: &inline) { $0.storeBytes(of: i, toByteOffset: k * MemoryLayout<Int>.stride, as: Int.self) }
        } else {
            spill.append(i)
        }
        count += 1
    }

    func range(_ l: List) -> Range<Int> {
        (l.rawValue == 0 ? 0 : Int(ends[l.rawValue - 1]))..<Int(ends[l.rawValue])
    }

    /// Closes list `l`: what was appended since the previous list closed belongs to it.
    mutating func finish(_ l: List) {
        for k in l.rawValue..<8 { ends[k] = Int32(truncatingIfNeeded: count) }
    }

    func list(_ l: List) -> [Int] { range(l).map { self[$0] } }

    public static func == (a: RangeUpdate, b: RangeUpdate) -> Bool {
        a.count == b.count && a.ends == b.ends && (0..<a.count).allSatisfy { a[$0] == b[$0] }
    }

    public var enterPreload: [Int] { list(.enterPreload) }
    public var enterDisplay: [Int] { list(.enterDisplay) }
    public var enterVisible: [Int] { list(.enterVisible) }
    public var exitPreload: [Int] { list(.exitPreload) }
    public var exitDisplay: [Int] { list(.exitDisplay) }
    public var exitVisible: [Int] { list(.exitVisible) }
    /// Entered preload and not visible (UITableViewDataSourcePrefetching's prefetchRows).
    public var prefetch: [Int] { list(.prefetch) }
    /// Left preload without having become visible (cancelPrefetchingForRows).
    public var cancelPrefetch: [Int] { list(.cancelPrefetch) }
    /// Nothing entered or left any range (prefetch and cancel lists are drawn from those).
    public var isEmpty: Bool { count == 0 }
}

/// Why a range session refused an input. Core says which input and why; the host words it and names
/// the JSON path (-32602 / -32003).
public enum RangeError: Error, Equatable, Sendable {
    /// An offset, velocity or target that is not a finite number.
    case notFinite(RangeInput)
    /// An offset (or target) outside the content, a viewport of bounce either side: `min...max`.
    case outsideContent(RangeInput, value: Double, min: Double, max: Double)
    /// `batchFetchDone` named a context that is not the batch in flight.
    case notBatchInFlight(context: String, inFlight: String?)
    /// An insert at a section that does not exist.
    case noSuchSection(Int)
    /// An insert at a row outside `0...rows` of its section.
    case rowOutsideSection(row: Int, rows: Int)
    /// Inserting would pass the session's item limit (it holds `count`).
    case tooManyItems(limit: Int, count: Int)
    /// New lengths that are not finite and >= 0, or that make the content length infinite.
    case lengthsNotFinite
    /// A scroll-stream call that does not fit the session's phase.
    case outOfOrder(RangeCall, phase: RangePhase)
    /// Keys: missing in a keyed session, given in an unkeyed one, not one per item, or one that an
    /// item (or an earlier key of the same call, by index) already has.
    case keysRequired, keysNotKept
    case keyCount(keys: Int, items: Int)
    /// A grid's items have their section's row length: this one.
    case notGridRow(expected: Double)
    case duplicateKey(String, index: Int, holder: RangeKeyHolder)
}

/// Who has a key already.
public enum RangeKeyHolder: Equatable, Sendable {
    case item(RangePath)
    case given(Int)
}

/// The input a `RangeError` is about.
public enum RangeInput: Equatable, Sendable { case offset, targetOffset, velocity }

/// The scroll-stream calls a range session can refuse as out of order.
public enum RangeCall: Equatable, Sendable { case willEndDragging, didEndDecelerating }

/// Where a range session is in the scroll stream.
public enum RangePhase: Equatable, Sendable { case idle, dragging, decelerating }

/// The direction of the last motion along the session's axis.
public enum ScrollDirection: Equatable, Sendable { case up, down, left, right }

/// A range (prefetch) session (docs/ranges.md; Texture's ASRangeController and batch fetching;
/// the ASDK preloading article).
/// Items are stacked along the axis; each update is O(log n + changes): lengths live in a
/// `LengthTree`, ranges are index intervals, and events are interval differences.
public final class RangeSession {
    public let id: String
    public internal(set) var tree: LengthTree
    /// Flat index where each section starts; one more entry than sections (the end).
    public internal(set) var sectionStarts: [Int]
    /// Viewport length along the axis and across it.
    public private(set) var viewportLength: Double
    public private(set) var viewportCross: Double
    public let horizontal: Bool
    public var tuning: RangeTuning
    public var leadingScreens: Double
    public var prepend: Bool
    public var strategy: BatchStrategy
    public var lazy: Bool

    public private(set) var offset: Double = 0
    /// The direction the ranges lean toward: Texture's `_previousScrollDirection`, taken from the scroll
    /// direction at each range update and kept when there is none (initially down/right).
    public private(set) var forward = true
    public private(set) var isVisible: Bool
    /// Texture's `contentHasBeenScrolled`: set by the first `willBeginDragging`, visible or not.
    public private(set) var contentHasBeenScrolled = false
    /// Texture's `_currentRangeMode`; nil before the first range update (unspecified).
    private var currentMode: RangeMode?
    /// Texture's `_preserveCurrentRangeMode`: a mode set from outside (a drag's full, a memory
    /// warning's) holds for the next range update, then the session manages its mode again.
    private var preserveMode = false
    /// Texture's `_needsRangeUpdate`: the ranges are recomputed only when the items on screen, the mode
    /// or the visibility changed.
    public internal(set) var needsUpdate = true
    public private(set) var dragging = false
    public private(set) var decelerating = false
    /// The sign of the motion while dragging: from the client's velocity, else from the offset delta of
    /// the last `didScroll` (Texture reads the pan gesture's velocity while tracking).
    private var trackingSign = 0
    /// The sign of (target - offset) at release, until `didEndDecelerating` (Texture's
    /// `_deceleratingVelocity`).
    private var deceleratingSign = 0
    /// During a fling (lazy): where the motion will stop.
    public private(set) var target: Double?
    /// The items on the viewport at the last layout (Texture's visible elements, whether or not the
    /// session is visible), kept by identity across inserts and deletes: when the items on screen
    /// differ from these, the ranges need an update.
    public private(set) var onScreen = IndexInterval.empty

    public private(set) var visible = IndexInterval.empty
    public private(set) var display = RangeSpan.empty
    public private(set) var preload = RangeSpan.empty
    /// Items in preload that have been visible since they entered it.
    var seen: Set<Int> = []
    /// Items inserted since the last update: inside the shifted intervals but not announced yet, so
    /// they count as unmarked and the next update lists them as entering.
    var fresh: [IndexInterval] = []
    /// Items a batch update moved, by their new flat index: the ranges they were in before it (bits of
    /// `Carried`). They keep their states by identity: the next update lists them entering only a range
    /// they were not in, and leaving one they were in and are no longer.
    var carried: [Int: UInt8] = [:]
    enum Carried { static let visible: UInt8 = 1, display: UInt8 = 2, preload: UInt8 = 4, seen: UInt8 = 8 }

    private func isFresh(_ i: Int) -> Bool { fresh.contains { $0.contains(i) } }

    /// Whether items carry client keys (all of them do, or none), their table, and the sections' keys.
    public let keyed: Bool
    var keyTable = RangeKeyTable()
    /// A grid session's layout (nil: one item per row, each its own length).
    public internal(set) var grid: GridLayout?
    public internal(set) var sectionKeys: [String?]

    /// The batch fetch in flight (its context id), if any; and whether it prepends.
    public private(set) var batchInFlight: String?
    public private(set) var batchPrepends = false
    public private(set) var batchesDone = 0
    /// Items in the first page, for the dynamic threshold.
    let firstPageItems: Int

    /// The most items a session holds, in all sections (the schema's RangeItemCount).
    public static let maxItems = 10_000_000
    /// This session's cap on items (`maxItems` unless a test asks for less): inserts and batches past
    /// it are refused.
    public let itemLimit: Int

    public init(id: String, sections: [[Double]], viewportLength: Double, viewportCross: Double, horizontal: Bool,
                tuning: RangeTuning = .texture, leadingScreens: Double = 2, prepend: Bool = false,
                strategy: BatchStrategy = .ranges, lazy: Bool = false, visible: Bool = true,
                itemLimit: Int = RangeSession.maxItems, keys: [[String]]? = nil, sectionKeys: [String?] = [],
                grid: (columns: Int, spacing: Double)? = nil) {
        self.id = id
        self.itemLimit = itemLimit
        var starts = [0]
        var flat: [Double] = []
        for s in sections {
            flat.append(contentsOf: s)
            starts.append(flat.count)
        }
        // Keys are unique (the caller checked): each item's node carries its key's slot.
        keyed = keys != nil
        var tags: [Int32]?
        if let keys {
            var table = RangeKeyTable()
            tags = keys.joined().map { table.add($0) }
            keyTable = table
        }
        self.sectionKeys = sectionKeys.count == sections.count ? sectionKeys : Array(repeating: nil, count: sections.count)
        tree = LengthTree(lengths: flat, tags: tags)
        if let grid {
            // Every item of a section has its row's length (the caller checked): the first one's.
            var layout = GridLayout(columns: grid.columns, spacing: grid.spacing, rowLength: sections.map(\.first))
            layout.rebuild(sectionStarts: starts)
            self.grid = layout
        }
        sectionStarts = starts
        self.viewportLength = viewportLength
        self.viewportCross = viewportCross
        self.horizontal = horizontal
        self.tuning = tuning
        self.leadingScreens = leadingScreens
        self.prepend = prepend
        self.strategy = strategy
        self.lazy = lazy
        self.isVisible = visible
        firstPageItems = max(1, flat.count)
    }

    public var count: Int { tree.count }
    public var contentLength: Double { grid?.total ?? tree.total }

    /// Where item `i` starts and where it ends along the axis (a grid item: its row's).
    @inline(__always) public func start(_ i: Int) -> Double { grid.map { $0.extent(i).start } ?? tree.offset(of: i) }
    @inline(__always) public func end(_ i: Int) -> Double { grid.map { $0.extent(i).end } ?? tree.offset(of: i + 1) }
    public var sectionCount: Int { sectionStarts.count - 1 }

    /// Texture's range mode: `minimum` at the first update; `full` from `willBeginDragging` (visible or
    /// not); after that `full` at every update while the session is visible and has been scrolled,
    /// otherwise the mode it had. A memory warning's mode holds for one update (see `memoryWarning`).
    public var mode: RangeMode { currentMode ?? .minimum }

    public var direction: ScrollDirection {
        horizontal ? (forward ? .right : .left) : (forward ? .down : .up)
    }

    /// The scroll direction now (+1 toward the tail, -1 toward the head, 0 none): Texture's
    /// `scrollDirection` — the motion's while dragging, toward the target while decelerating, none at
    /// rest (a programmatic scroll has no direction).
    public var scrollSign: Int { dragging ? trackingSign : decelerating ? deceleratingSign : 0 }

    public var phase: RangePhase { dragging ? .dragging : decelerating ? .decelerating : .idle }
    public var isTracking: Bool { dragging || decelerating }

    // MARK: Paths

    public func flatIndex(section: Int, row: Int) -> Int? {
        guard section >= 0, section < sectionCount else { return nil }
        let start = sectionStarts[section]
        guard row >= 0, start + row < sectionStarts[section + 1] else { return nil }
        return start + row
    }

    /// (section, row) of a flat index: a binary search over section starts.
    public func path(_ flat: Int) -> (section: Int, row: Int) {
        var lo = 0, hi = sectionCount - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if sectionStarts[mid] <= flat { lo = mid } else { hi = mid - 1 }
        }
        // Skip empty sections that start at the same index.
        var s = lo
        while s + 1 < sectionCount && sectionStarts[s + 1] <= flat { s += 1 }
        return (s, flat - sectionStarts[s])
    }

    // MARK: Geometry

    /// An item found by offset with its extent, kept to answer the next nearby lookup without a tree
    /// descent: a scroll step is usually shorter than an item, so most ends stay in the same item.
    struct Finger {
        var index = 0, start = 0.0, end = -1.0, version = -1
    }

    /// Fingers for the two ends of the visible, display and preload intervals.
    private var fingers = (Finger(), Finger(), Finger(), Finger(), Finger(), Finger())

    /// What a lookup is for (which fingers it uses).
    enum Probe: Int { case visible = 0, display = 2, preload = 4 }

    /// The first item whose end is past `x` (a finger hit: start <= x < end).
    @inline(__always)
    private func first(_ x: Double, _ finger: Int) -> Int {
        withUnsafeMutableBytes(of: &fingers) { raw in
            let f = raw.baseAddress!.assumingMemoryBound(to: Finger.self) + finger
            if f.pointee.version == tree.version && x >= f.pointee.start && x < f.pointee.end { return f.pointee.index }
            let r = tree.locate(x)
            f.pointee = Finger(index: r.index, start: r.start, end: r.end, version: tree.version)
            return r.index
        }
    }

    /// How many items start before `x` and reach into it (a finger hit: start < x <= end).
    @inline(__always)
    private func past(_ x: Double, _ finger: Int) -> Int {
        withUnsafeMutableBytes(of: &fingers) { raw in
            let f = raw.baseAddress!.assumingMemoryBound(to: Finger.self) + finger
            if f.pointee.version == tree.version && x > f.pointee.start && x <= f.pointee.end { return f.pointee.index }
            let r = tree.locateEnd(x)
            f.pointee = Finger(index: r.count, start: r.start, end: r.end, version: tree.version)
            return r.count
        }
    }

    /// Items intersecting [a, b): those with start < b and end > a. An empty item counts when it sits
    /// strictly inside (a, b), so the result stays one interval; one sitting on either edge does not.
    func items(_ a: Double, _ b: Double, _ probe: Probe = .visible) -> IndexInterval {
        let total = contentLength
        let lo = max(a, 0), hi = min(b, total)
        guard hi > lo else { return .empty }
        if let grid { return grid.items(lo, hi) }
        let from = first(lo, probe.rawValue)
        let to = past(hi, probe.rawValue + 1)
        return IndexInterval(from, max(from, to))
    }

    /// The interval of a range type around `at` moving in `fwd`: the viewport grown by the mode's
    /// buffers (Texture's `CGRectExpandToRangeWithScrollableDirections`). `lowMemory`'s display range is
    /// empty whatever its tuning (Texture's `emptyDisplayRange`: a zero buffer would still hold the
    /// viewport). When a mode's display and preload tunings are equal, Texture's preload set is the
    /// display set (`equalDisplayPreload`): the same interval in every mode but `lowMemory`, where it is
    /// the empty one.
    func interval(_ type: RangeType, mode: RangeMode, at: Double, fwd: Bool) -> IndexInterval {
        if mode == .lowMemory && (type == .display || tuning.buffer(mode, .display) == tuning.buffer(mode, .preload)) {
            return .empty
        }
        let b = tuning.buffer(mode, type)
        let L = viewportLength
        let ahead = b.leading * L, behind = b.trailing * L
        let probe: Probe = type == .display ? .display : .preload
        return fwd ? items(at - behind, at + L + ahead, probe) : items(at - ahead, at + L + behind, probe)
    }

    /// Texture's `updateCurrentRangeWithMode:`: a mode set from outside, held for the next update.
    private func setModeFromOutside(_ m: RangeMode) {
        preserveMode = true
        if currentMode != m {
            currentMode = m
            needsUpdate = true
        }
    }

    /// Notes where the viewport is now (a layout pass): when the items on it changed, the ranges need
    /// an update (Texture: `willDisplayCell` / `didEndDisplayingCell` -> `setNeedsUpdate`).
    func layout() {
        let now = items(offset, offset + viewportLength)
        // Two empty intervals are the same (empty) set on screen, wherever an insert or a delete left
        // the old one: nothing was displayed or ended, so no update (it would take the current
        // direction while Texture keeps the one it had).
        if now != onScreen && !(now.isEmpty && onScreen.isEmpty) {
            needsUpdate = true
        }
        onScreen = now
    }

    /// Recomputes the ranges when something they depend on changed (Texture's `updateIfNeeded`);
    /// otherwise returns no change at once.
    public func updateIfNeeded() -> RangeUpdate {
        needsUpdate ? update() : RangeUpdate()
    }

    /// Recomputes the three ranges and returns what changed: Texture's
    /// `-[ASRangeController _updateVisibleNodeIndexPaths]`.
    public func update() -> RangeUpdate {
        needsUpdate = false
        // The direction: the scroll's, else the one kept from before.
        let sign = scrollSign
        if sign != 0 { forward = sign > 0 }
        let viewport = items(offset, offset + viewportLength)
        onScreen = viewport
        if viewport.isEmpty {
            // Nothing on screen (overscroll past the head or tail, or no items): Texture keeps the
            // ranges and the mode as they were and only takes the visible bit from what left the screen;
            // items inserted since the last update stay unmarked.
            return apply(visible: .empty, display: display, preload: preload, keepHoles: true)
        }
        // The mode: managed by the session unless one was set from outside for this update.
        var m = currentMode ?? .minimum
        if currentMode == nil || (!preserveMode && contentHasBeenScrolled && isVisible) {
            m = (currentMode == nil || !isVisible) ? .minimum : .full
        }
        currentMode = m
        preserveMode = false
        let at: Double
        if lazy && decelerating, let t = target { at = t } else { at = offset }
        let displayRange = interval(.display, mode: m, at: at, fwd: forward)
        let preloadRange = interval(.preload, mode: m, at: at, fwd: forward)
        // A lazy fling marks the target region plus what is on screen; the rows flown over in between
        // stay unmarked (two disjoint parts).
        func span(_ range: IndexInterval) -> RangeSpan { at == offset ? RangeSpan(range.hull(viewport)) : RangeSpan(range, viewport) }
        if isVisible {
            // Visible items have all three bits; others those of the ranges they are in. Display and
            // preload are independent sets.
            return apply(visible: viewport, display: span(displayRange), preload: span(preloadRange))
        }
        // An invisible session: the viewport's items get preload (and display unless lowMemory), the
        // display range's preload only, the preload range's nothing; none is visible.
        return apply(visible: .empty, display: m == .lowMemory ? .empty : RangeSpan(viewport),
                     preload: span(displayRange))
    }

    /// Forces the general diff (the one inserts need) on every update; tests compare it with the
    /// fast one.
    var alwaysGeneralDiff = false

    /// `keepHoles`: an update that computes no range (nothing on screen) leaves the ranges it does not
    /// change as they are, new items unmarked inside them.
    private func apply(visible v: IndexInterval, display d: RangeSpan, preload p: RangeSpan,
                       keepHoles: Bool = false) -> RangeUpdate {
        var u = RangeUpdate()
        // Most scroll steps move less than an item: nothing to diff.
        if v == visible && d == display && p == preload && (fresh.isEmpty || keepHoles) && carried.isEmpty { return u }
        // Distances are measured from the viewport's items, whether or not the session is visible.
        let onViewport = v.isEmpty ? items(offset, offset + viewportLength) : v
        let ref = onViewport.isEmpty ? (grid?.index(containing: offset) ?? tree.index(containing: offset)) : onViewport.lo
        let general = !fresh.isEmpty || alwaysGeneralDiff || !carried.isEmpty
        func diff(_ new: RangeSpan, _ old: RangeSpan, _ entering: RangeUpdate.List, _ leaving: RangeUpdate.List, _ bit: UInt8) {
            if keepHoles && new == old && carried.isEmpty {
                u.finish(entering)
                u.finish(leaving)
            } else if general {
                for i in enteringGeneral(new, old, ref: ref) where carried[i].map({ $0 & bit == 0 }) ?? true { u.append(i) }
                u.finish(entering)
                for i in leavingGeneral(old, new, ref: ref, bit: bit) { u.append(i) }
                u.finish(leaving)
            } else {
                appendNearest(&u, Pieces(new, minus: old), ref: ref)
                u.finish(entering)
                appendNearest(&u, Pieces(old, minus: new), ref: ref)
                u.finish(leaving)
            }
        }
        diff(RangeSpan(v), RangeSpan(visible), .enterVisible, .exitVisible, Carried.visible)
        diff(d, display, .enterDisplay, .exitDisplay, Carried.display)
        diff(p, preload, .enterPreload, .exitPreload, Carried.preload)
        if !keepHoles { fresh = [] }
        carried = [:]
        for k in u.range(.enterVisible) { seen.insert(u[k]) }
        for k in u.range(.enterPreload) where !v.contains(u[k]) { u.append(u[k]) }
        u.finish(.prefetch)
        for k in u.range(.exitPreload) where !seen.contains(u[k]) { u.append(u[k]) }
        u.finish(.cancelPrefetch)
        for k in u.range(.exitPreload) { seen.remove(u[k]) }
        visible = v
        display = d
        preload = p
        return u
    }

    /// The pieces of one span outside another: at most four disjoint intervals, ascending, kept
    /// inline (a scroll step's diff allocates nothing but its result).
    struct Pieces {
        private(set) var count = 0
        private var items = (IndexInterval.empty, IndexInterval.empty, IndexInterval.empty, IndexInterval.empty)

        init(_ x: RangeSpan, minus y: RangeSpan) {
            if x == y { return }
            subtract(x.a, y)
            subtract(x.b, y)
        }

        /// Adds `part` minus y.a minus y.b (y's parts are ascending and disjoint).
        private mutating func subtract(_ part: IndexInterval, _ y: RangeSpan) {
            var rest = part
            for k in 0..<2 {
                let q = k == 0 ? y.a : y.b
                if q.isEmpty || rest.isEmpty || q.hi <= rest.lo || q.lo >= rest.hi { continue }
                if q.lo > rest.lo { add(IndexInterval(rest.lo, q.lo)) }
                rest = q.hi < rest.hi ? IndexInterval(q.hi, rest.hi) : .empty
            }
            if !rest.isEmpty { add(rest) }
        }

        private mutating func add(_ x: IndexInterval) {
            withUnsafeMutableBytes(of: &items) { $0.baseAddress!.assumingMemoryBound(to: IndexInterval.self)[count] = x }
            count += 1
        }

        subscript(i: Int) -> IndexInterval {
            withUnsafeBytes(of: items) { $0.baseAddress!.assumingMemoryBound(to: IndexInterval.self)[i] }
        }
    }

    /// Appends the pieces' indices nearest the viewport first: those at or after `ref` ascending,
    /// those before it descending, merged by distance in points from the viewport [offset, offset + L)
    /// (rows differ in length, so counting rows would misorder them). No sort, no buffer.
    private func appendNearest(_ u: inout RangeUpdate, _ pieces: Pieces, ref: Int) {
        let n = pieces.count
        if n == 0 { return }
        // Cursors: `a` walks the pieces up from ref, `b` walks them down from ref - 1.
        var ap = 0, ai = 0
        func nextAfter() -> Int? {
            while ap < n {
                let x = pieces[ap]
                ai = max(ai, x.lo, ref)
                if ai < x.hi { return ai }
                ap += 1
            }
            return nil
        }
        var bp = n - 1, bi = Int.max
        func nextBefore() -> Int? {
            while bp >= 0 {
                let x = pieces[bp]
                bi = min(bi, x.hi - 1, ref - 1)
                if bi >= x.lo { return bi }
                bp -= 1
            }
            return nil
        }
        var after = nextAfter(), before = nextBefore()
        if before == nil {
            while let i = after { u.append(i); ai += 1; after = nextAfter() }
            return
        }
        if after == nil {
            while let j = before { u.append(j); bi -= 1; before = nextBefore() }
            return
        }
        let viewEnd = offset + viewportLength
        func da(_ i: Int?) -> Double { i.map { max(0, start($0) - viewEnd) } ?? .infinity }
        func db(_ j: Int?) -> Double { j.map { max(0, offset - end($0)) } ?? .infinity }
        var dA = da(after), dB = db(before)
        while after != nil || before != nil {
            if dA <= dB {
                u.append(after!); ai += 1; after = nextAfter(); dA = da(after)
            } else {
                u.append(before!); bi -= 1; before = nextBefore(); dB = db(before)
            }
        }
    }

    /// Indices of up to two disjoint intervals (plus fresh blocks), nearest the viewport first:
    /// those at or after it ascending, those before it descending, merged by distance. The diff
    /// used after inserts, where fresh blocks join the pieces.
    private func nearestGeneral(_ parts: [IndexInterval], ref: Int) -> [Int] {
        var after: [Int] = [], before: [Int] = []
        for part in parts where !part.isEmpty {
            for i in part.lo..<part.hi { if i >= ref { after.append(i) } else { before.append(i) } }
        }
        if before.isEmpty { return after.count > 1 && parts.count > 1 ? after.sorted() : after }
        before.sort(by: >)
        if after.count > 1 && parts.count > 1 { after.sort() }
        if after.isEmpty { return before }
        let viewEnd = offset + viewportLength
        var out: [Int] = []
        out.reserveCapacity(after.count + before.count)
        var a = 0, b = 0
        var da = max(0, start(after[0]) - viewEnd)
        var db = max(0, offset - end(before[0]))
        while a < after.count || b < before.count {
            if da <= db {
                out.append(after[a]); a += 1
                da = a < after.count ? max(0, start(after[a]) - viewEnd) : .infinity
            } else {
                out.append(before[b]); b += 1
                db = b < before.count ? max(0, offset - end(before[b])) : .infinity
            }
        }
        return out
    }

    private func enteringGeneral(_ new: RangeSpan, _ old: RangeSpan, ref: Int) -> [Int] {
        if new == old && fresh.isEmpty { return [] }
        // Fresh items outside the (shifted) old range are already in new - old; only those inside
        // it need adding.
        var parts = new.subtracting(old)
        for f in fresh { for x in new.intersection(f) { parts += old.intersection(x) } }
        return nearestGeneral(parts, ref: ref)
    }

    private func leavingGeneral(_ old: RangeSpan, _ new: RangeSpan, ref: Int, bit: UInt8) -> [Int] {
        // Moved items that were in the range and are not now leave it, wherever they were put.
        let moved = carried.isEmpty ? [] : carried.compactMap { $0.value & bit != 0 && !new.contains($0.key) ? $0.key : nil }
        if new == old && moved.isEmpty { return [] }
        let parts = new.isEmpty ? old.parts : old.subtracting(new)
        if moved.isEmpty {
            let out = nearestGeneral(parts, ref: ref)
            return fresh.isEmpty ? out : out.filter { !isFresh($0) }
        }
        // A moved item may also lie in old - new: list it once.
        var listed = Set<Int>()
        return nearestGeneral(parts + moved.map { IndexInterval($0, $0 + 1) }, ref: ref).filter {
            (!isFresh($0) || (carried[$0].map { $0 & bit != 0 } ?? false)) && listed.insert($0).inserted
        }
    }

    // MARK: Scroll stream

    /// Checks an offset against the content (with a viewport of bounce either side).
    public func checkOffset(_ x: Double, _ input: RangeInput = .offset) throws(RangeError) {
        guard x.isFinite else { throw .notFinite(input) }
        let maxOffset = max(0, contentLength - viewportLength) + viewportLength
        guard x >= -viewportLength, x <= maxOffset else {
            throw .outsideContent(input, value: x, min: -viewportLength, max: maxOffset)
        }
    }

    @inline(__always) private static func sign(_ x: Double) -> Int { x > 0 ? 1 : x < 0 ? -1 : 0 }

    /// Texture's `scrollViewWillBeginDragging:`: the content has been scrolled and the mode is `full`
    /// from the next update, whether or not the session is visible. `velocity` (points/ms, positive
    /// toward the tail), when given, is the motion's direction; otherwise the next offsets give it.
    public func willBeginDragging(velocity: Double? = nil) {
        dragging = true
        decelerating = false
        target = nil
        deceleratingSign = 0
        trackingSign = velocity.map(Self.sign) ?? 0
        contentHasBeenScrolled = true
        setModeFromOutside(.full)
    }

    /// A new offset. While dragging the direction is the velocity's sign when the client sends one,
    /// else the sign of the offset's change (Texture reads the pan gesture's velocity); decelerating
    /// it stays toward the target; at rest there is none. Velocity outside a drag is ignored.
    public func didScroll(to x: Double, velocity: Double? = nil) throws(RangeError) {
        try checkOffset(x)
        if let velocity, !velocity.isFinite { throw .notFinite(.velocity) }
        if dragging { trackingSign = velocity.map(Self.sign) ?? Self.sign(x - offset) }
        offset = x
        layout()
    }

    /// Predicts where a fling stops (deceleration 0.998 per ms: distance = v * 0.998 / 0.002) unless
    /// the caller gives the target; returns it. From here until `didEndDecelerating` the direction is
    /// toward the target (none when it is the offset: a release at rest), whatever the velocity says.
    public func willEndDragging(velocity: Double, target t: Double?) throws(RangeError) -> Double {
        guard dragging else { throw .outOfOrder(.willEndDragging, phase: phase) }
        guard velocity.isFinite else { throw .notFinite(.velocity) }
        if let t { try checkOffset(t, .targetOffset) }
        let predicted = t ?? (offset + velocity * 0.998 / 0.002)
        let clamped = min(max(predicted, 0), max(0, contentLength - viewportLength))
        target = clamped
        deceleratingSign = Self.sign(clamped - offset)
        dragging = false
        decelerating = true
        // A lazy session marks the target region now (Greenroom's option; Texture has none).
        if lazy { needsUpdate = true }
        return clamped
    }

    /// Whether `didEndDecelerating` is in order now (checked before anything moves).
    public func checkCanEndDecelerating() throws(RangeError) {
        guard decelerating || dragging else { throw .outOfOrder(.didEndDecelerating, phase: phase) }
    }

    public func didEndDecelerating() throws(RangeError) {
        try checkCanEndDecelerating()
        if lazy && decelerating { needsUpdate = true }
        dragging = false
        decelerating = false
        target = nil
        trackingSign = 0
        deceleratingSign = 0
    }

    /// Texture's `didMoveToWindow`: a change of visibility recomputes the ranges at once. Returns
    /// whether it changed.
    @discardableResult
    public func setVisible(_ v: Bool) -> Bool {
        guard v != isVisible else { return false }
        isVisible = v
        needsUpdate = true
        return true
    }

    public func setViewport(length: Double, cross: Double) {
        viewportLength = length
        viewportCross = cross
        layout()
    }

    /// Texture's `+[ASRangeController didReceiveMemoryWarning:]`: `visibleOnly` for a visible session,
    /// `lowMemory` for others, held for the next update (run at once by the caller); after it the
    /// session manages its mode again (`full` at the next update while visible and scrolled).
    /// A mode set by a nested session's parent (Texture: the outer range controller sets the inner one's
    /// interface state): held for the next update, and kept while the session is not visible.
    public func holdMode(_ m: RangeMode) { setModeFromOutside(m) }

    public func memoryWarning() {
        setModeFromOutside(isVisible ? .visibleOnly : .lowMemory)
    }

    // MARK: Batch fetching

    /// Texture's `ASDisplayShouldFetchBatchForContext`, with `prepend` for lists that grow at the head,
    /// and the ASDK preloading article's threshold strategies for comparison. `at`: the offset to judge (the target
    /// offset on willEndDragging). The direction is the scroll's now (`scrollSign`), not the one the
    /// ranges keep: at rest there is none, so a batch is never refused for pointing at the head.
    public func shouldBeginBatch(at x: Double? = nil) -> Bool { batchDecision(at: x) != nil }

    /// Which batch to begin now, if any: `false` appends (Texture's), `true` prepends (moving toward
    /// the head within `leadingScreens` of it, when the session was made with `prepend`).
    public func batchDecision(at x: Double? = nil) -> Bool? {
        guard batchInFlight == nil, leadingScreens > 0, viewportLength > 0 else { return nil }
        let L = viewportLength
        let total = contentLength
        if total < L { return false }
        guard isVisible else { return nil }
        let o = x ?? offset
        let towardHead = scrollSign < 0
        switch strategy {
        case .ranges:
            if towardHead { return prepend && o <= leadingScreens * L ? true : nil }
            return total - L - o <= leadingScreens * L ? false : nil
        case .threshold(let ratio):
            if towardHead { return nil }
            return (o + L) / total >= ratio ? false : nil
        case .dynamicThreshold(let ratio):
            if towardHead { return nil }
            let perPage = Double(firstPageItems)
            let page = Double(batchesDone)
            let needRead = perPage * ratio + page * perPage
            let totalItems = perPage * (page + 1)
            // The article's ratio: how far down the content the viewport's end is.
            return (o + L) / total >= needRead / totalItems ? false : nil
        }
    }

    public func beginBatch(context: String, prepends: Bool = false) {
        batchInFlight = context
        batchPrepends = prepends && prepend
    }

    /// Completes the batch in flight; its new items are appended (or prepended). Returns their
    /// flat insertion index.
    public func finishBatch(context: String, lengths: [Double], keys: [String]? = nil) throws(RangeError) -> Int {
        guard batchInFlight == context else {
            throw .notBatchInFlight(context: context, inFlight: batchInFlight)
        }
        let at = batchPrepends ? 0 : count
        let section = batchPrepends ? 0 : max(0, sectionCount - 1)
        let anchor = onScreen.isEmpty ? 0 : onScreen.lo, anchorStart = start(anchor)
        if !lengths.isEmpty {
            // Inserted first: lengths it refuses leave the batch in flight and nothing changed.
            _ = try insertWithoutLayout(section: section, row: batchPrepends ? 0 : sectionStarts[section + 1] - sectionStarts[section],
                                        lengths: lengths, keys: keys)
            if batchPrepends {
                // Content grew above: keep what is on screen, and where a fling will stop (a lazy fling
                // marks the same rows as before, not the new ones that now sit at the old target).
                let added = start(anchor + lengths.count) - anchorStart
                offset += added
                if let t = target { target = t + added }
            }
            layout()
        }
        batchInFlight = nil
        batchesDone += 1
        return at
    }

    // MARK: Inserts and deletes

    /// Inserts items before (section, row); returns the flat index. Ranges are shifted, not recomputed:
    /// call `updateIfNeeded()` after (they need an update when the items on screen changed).
    @discardableResult
    /// `keepOnScreen`: items inserted at or before the first item on screen move the offset down by their
    /// length, so what is on screen stays where it is (a chat that loads older messages above, a feed
    /// that receives new posts at the head), in the same update, as a prepending batch does.
    public func insert(section: Int, row: Int, lengths: [Double], keys: [String]? = nil,
                       keepOnScreen: Bool = false) throws(RangeError) -> Int {
        let firstOnScreen = onScreen.isEmpty ? nil : onScreen.lo
        let firstStart = firstOnScreen.map(start)
        let at = try insertWithoutLayout(section: section, row: row, lengths: lengths, keys: keys)
        if keepOnScreen, let first = firstOnScreen, let before = firstStart, at <= first {
            // Where the first item on screen is now, less where it was (a grid's rows may reflow).
            let added = start(first + lengths.count) - before
            offset += added
            if let t = target { target = t + added }
        }
        layout()
        return at
    }

    private func insertWithoutLayout(section: Int, row: Int, lengths: [Double], keys: [String]? = nil) throws(RangeError) -> Int {
        guard section >= 0, section < sectionCount else { throw .noSuchSection(section) }
        let size = sectionStarts[section + 1] - sectionStarts[section]
        guard row >= 0, row <= size else { throw .rowOutsideSection(row: row, rows: size) }
        guard lengths.count <= itemLimit - count else {
            throw .tooManyItems(limit: itemLimit, count: count)
        }
        let added = lengths.reduce(0, +)
        guard added.isFinite, (tree.total + added).isFinite, lengths.allSatisfy({ $0.isFinite && $0 >= 0 }) else {
            throw .lengthsNotFinite
        }
        try checkNewKeys(keys, count: lengths.count)
        if let grid, let l = grid.rowLength[section] ?? lengths.first, lengths.contains(where: { $0 != l }) {
            throw .notGridRow(expected: l)
        }
        let at = sectionStarts[section] + row
        tree.insert(lengths, tags: keys.map { $0.map { keyTable.add($0) } }, at: at)
        let k = lengths.count
        for s in (section + 1)..<sectionStarts.count { sectionStarts[s] += k }
        if grid != nil {
            if grid!.rowLength[section] == nil { grid!.rowLength[section] = lengths.first }
            grid!.rebuild(sectionStarts: sectionStarts)
        }
        shift(insertingAt: at, count: k)
        return at
    }

    /// New items' keys: required in a keyed session (one per item, unique among themselves and the
    /// session's), refused in an unkeyed one.
    func checkNewKeys(_ keys: [String]?, count: Int) throws(RangeError) {
        guard keyed else {
            if keys != nil { throw .keysNotKept }
            return
        }
        guard let keys else {
            if count == 0 { return }
            throw .keysRequired
        }
        guard keys.count == count else { throw .keyCount(keys: keys.count, items: count) }
        var given: [String: Int] = [:]
        for (k, key) in keys.enumerated() {
            if let first = given[key] { throw .duplicateKey(key, index: k, holder: .given(first)) }
            given[key] = k
            if let slot = keyTable.slot[key] { throw .duplicateKey(key, index: k, holder: .item(holder(of: slot))) }
        }
    }

    /// Removes one item by flat index; returns whether it sat in any range. Ranges are shifted.
    public func remove(flat at: Int) -> Bool {
        let wasInRange = preload.contains(at) || display.contains(at) || visible.contains(at)
        var s = path(at).section
        keyTable.remove(tree.tag(at: at))
        tree.remove(at: at)
        while s + 1 < sectionStarts.count { sectionStarts[s + 1] -= 1; s += 1 }
        grid?.rebuild(sectionStarts: sectionStarts)
        shift(insertingAt: at, count: -1)
        layout()
        return wasInRange
    }

    func shift(insertingAt at: Int, count k: Int) {
        visible = visible.shifted(insertingAt: at, count: k)
        display = display.shifted(insertingAt: at, count: k)
        preload = preload.shifted(insertingAt: at, count: k)
        // Items appearing between those on screen, or an item on screen deleted, change the set on
        // screen even when its bounds stay (UIKit's willDisplayCell / didEndDisplayingCell).
        if (k > 0 && at > onScreen.lo && at < onScreen.hi) || (k < 0 && onScreen.contains(at)) { needsUpdate = true }
        onScreen = onScreen.shifted(insertingAt: at, count: k)
        // New items inside a range are holes in it until the next update; those outside every range
        // are unmarked anyway and need no note (an idle feed's appends do not pile up here).
        let marked = preload.a.hull(preload.b).hull(display.a).hull(display.b).hull(visible)
        fresh = fresh.map { $0.shifted(insertingAt: at, count: k) }.filter { !$0.intersection(marked).isEmpty }
        if k > 0, !IndexInterval(at, at + k).intersection(marked).isEmpty { fresh.append(IndexInterval(at, at + k)) }
        if !carried.isEmpty {
            var shifted: [Int: UInt8] = [:]
            for (i, bits) in carried where !(k < 0 && i == at) { shifted[k >= 0 ? (i >= at ? i + k : i) : (i > at ? i - 1 : i)] = bits }
            carried = shifted
        }
        var moved = Set<Int>()
        for i in seen {
            if k >= 0 { moved.insert(i >= at ? i + k : i) } else if i != at { moved.insert(i > at ? i - 1 : i) }
        }
        seen = moved
    }

    /// The flat indices a span holds now, ascending: items inserted inside it since the last update
    /// are not in it yet.
    public func members(_ span: RangeSpan) -> [Int] {
        fresh.isEmpty ? span.indices : span.indices.filter { !isFresh($0) }
    }

    /// The state bits of a flat index.
    public func state(_ i: Int) -> (preload: Bool, display: Bool, visible: Bool) {
        if isFresh(i) { return (false, false, false) }
        return (preload.contains(i), display.contains(i), visible.contains(i))
    }
}
