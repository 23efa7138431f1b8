import GreenroomCore
import GreenroomJSON
import GreenroomRPC

/// A section's header: a sticky one stays pinned at the top while its section is on screen
/// (UICollectionViewFlowLayout's `sectionHeadersPinToVisibleBounds`, UITableView's plain-style headers,
/// React Native's `stickyHeaderIndices`).
struct SectionHeader: Equatable {
    var sticky: Bool
}

/// What the host keeps per section.
struct RangeSectionInfo: Equatable {
    var reuseIdentifier: String?
    var header: SectionHeader?
}

final class RangeEntry {
    let session: RangeSession
    let owner: String
    /// The owning connection (its sessions are destroyed when it closes; weak all the same).
    weak var connection: HostConnection?
    /// What the host keeps per section: its reuse identifier (MDTable's templates, the cells' class) and
    /// its header, if any. They follow their sections through batches.
    var sectionInfo: [RangeSectionInfo] {
        didSet { hasHeaders = sectionInfo.contains { $0.header != nil } }
    }
    private(set) var hasHeaders = false
    /// Which sections' headers were visible and pinned at the last update (sessions with headers only).
    var headerState: (visible: [Int], pinned: [Int]) = ([], [])
    /// Rows as containers (`cells`), when asked for.
    var cells: RangeCells?
    /// Viewability thresholds and their state (`viewability`), when asked for (RangeViewability.swift).
    var viewability: RangeViewability?
    /// A nested session's parent, its state last applied, and (for a parent) its children by row.
    var parent: RangeParent?
    /// A row child's row: the parent's flat index, kept as the parent's rows move.
    var parentRow = 0
    var lastNestedState: NestedState?
    var nested: [Int: [RangeEntry]] = [:]
    /// The scroll stream's reply, encoded once per (mode, direction): it rarely changes.
    var streamReply: (mode: RangeMode, forward: Bool, json: EncodedJSON)?
    init(session: RangeSession, owner: HostConnection, sectionInfo: [RangeSectionInfo]) {
        self.session = session
        self.owner = owner.id
        self.connection = owner
        self.sectionInfo = sectionInfo
        hasHeaders = sectionInfo.contains { $0.header != nil }
    }
}

/// What a call changed beyond what the ranges say: deleted items that were in a range (paths before
/// the change, and keys), their cells, moved items that were in a range, and cells to bind afresh (a
/// reload, or a move into a section of another cell class).
struct RangeChangeNotes {
    var removed: [(path: JSONValue, key: String?)] = []
    var removedCells: [(path: JSONValue, cell: ContainerRecord)] = []
    var moved: [JSONValue] = []
    var rebind: [Int] = []
    var isEmpty: Bool { removed.isEmpty && removedCells.isEmpty && moved.isEmpty && rebind.isEmpty }
}

/// Range (prefetch) sessions (docs/ranges.md): binds Core's `RangeSession` to methods and events.
public final class RangeSessions: HostDomain {
    // What range sessions use of the host, given when they are made. The host owns them all and
    // outlives the range sessions; `unowned(unsafe)` spares the scroll stream an atomic retain per read.
    unowned(unsafe) let classes: ClassRegistry
    unowned(unsafe) let containers: Containers
    unowned(unsafe) let events: EventRouter
    unowned(unsafe) let pages: PageSessions
    private let clock: HostClock
    let timers: HostTimers
    /// A session started or stopped tracking (the host pauses default-mode idle tasks meanwhile).
    let trackingChanged: () -> Void
    var now: Double { clock.nowMs }
    var sessions: [String: RangeEntry] = [:] {
        didSet { last = nil }
    }
    /// Nested sessions hanging from pages, by page session.
    var pageChildren: [String: [RangeEntry]] = [:]
    /// The session the last call named: a scroll stream names the same one again and again.
    private var last: RangeEntry?
    private var nextSession = 1
    private var nextBatch = 1

    init(classes: ClassRegistry, containers: Containers, events: EventRouter, pages: PageSessions, clock: HostClock,
         timers: HostTimers, trackingChanged: @escaping () -> Void) {
        self.classes = classes
        self.containers = containers
        self.events = events
        self.pages = pages
        self.clock = clock
        self.timers = timers
        self.trackingChanged = trackingChanged
    }

    var anyTracking: Bool { sessions.values.contains { $0.session.isTracking } }
    /// Whether any session has cells (its range calls run hooks). Asked of every range call while plugins
    /// run in workers: a count, not a walk of the sessions.
    var hasCells: Bool { sessionsWithCells > 0 }
    var sessionsWithCells = 0
    /// Whether any session is nested in another's row (its parent's range calls reach it), a count too.
    var hasNesting: Bool { sessionsInRows > 0 }
    var sessionsInRows = 0

    /// The connection's range session `id` (-32002 naming `session` otherwise); the last one looked up is
    /// kept, as a scroll stream names the same session call after call.
    func entry(_ id: String, owner: HostConnection) throws(RPCError) -> RangeEntry {
        if let last, last.connection === owner, id == last.session.id {
            return last
        }
        let e = try owner.owned(id, "session", in: sessions, expected: "range session") { $0.owner }
        last = e
        return e
    }

    private static let rangeTopic = EventRouter.mask([RangeTopic.topic]), prefetchTopic = EventRouter.mask([PrefetchTopic.topic])

    /// Runs a range session's call; its refusal becomes the reply's error (CoreToWire.swift).
    @inline(__always)
    func mapped<T>(_ body: () throws(RangeError) -> T) throws(RPCError) -> T {
        try mappingErrors(RPCError.init, body)
    }

    func pathJSON(_ s: RangeSession, _ flat: Int) -> JSONValue {
        let p = s.path(flat)
        return [.int(p.section), .int(p.row)]
    }

    static func pathJSON(_ p: RangePath) -> JSONValue { [.int(p.section), .int(p.row)] }

    func paths(_ s: RangeSession, _ flats: [Int]) -> JSONValue { .array(flats.map { pathJSON(s, $0) }) }

    /// A keyed session's keys of `flats` (nil in an unkeyed one).
    func keys(_ s: RangeSession, _ flats: [Int]) -> JSONValue? {
        s.keyed ? .array(flats.map { .string(s.key($0) ?? "") }) : nil
    }

    /// `{visible, display, preload}` key lists beside path lists (a keyed session's).
    func keyLists(_ s: RangeSession, visible: [Int], display: [Int], preload: [Int]) -> JSONValue {
        ["preload": keys(s, preload) ?? [], "display": keys(s, display) ?? [], "visible": keys(s, visible) ?? []]
    }

    /// Recomputes the ranges if they need it (the items on screen, the mode or the visibility changed)
    /// and sends what changed: one `range` event and `prefetch` events; then a `batch` event when a
    /// fetch should begin (`checkBatch`, judged at `batchOffset`; `decided`: judged earlier in the call).
    /// A session's cells are bound and released on the way, and its nested sessions follow their rows.
    func refresh(_ e: RangeEntry, checkBatch: Bool, batchOffset: Double? = nil, decided: Bool? = nil,
                 notes: RangeChangeNotes = RangeChangeNotes()) async {
        // Viewability is judged at every call that moves or changes what is on screen, ranges changed or not.
        defer { if e.viewability != nil { evaluateViewability(e) } }
        guard let change = changes(e, checkBatch: checkBatch, decided: decided, notes: notes) else { return }
        let cellsJSON = e.cells == nil ? nil : await applyCells(e, change.update, removedCells: notes.removedCells, rebind: notes.rebind)
        send(e, change, cellsJSON: cellsJSON, checkBatch: checkBatch, batchOffset: batchOffset, decided: decided, notes: notes)
        if !e.nested.isEmpty && !change.update.isEmpty { await parentRowsChanged(e, change.update) }
    }

    /// `refresh` for a session that has no cells and holds no nested sessions: nothing it does can run a
    /// hook, so it runs where the call is read, with no task (the scroll stream's path, `canRefreshNow`).
    func refreshNow(_ e: RangeEntry, checkBatch: Bool) {
        defer { if e.viewability != nil { evaluateViewability(e) } }
        guard let change = changes(e, checkBatch: checkBatch, decided: nil, notes: RangeChangeNotes()) else { return }
        send(e, change, cellsJSON: nil, checkBatch: checkBatch, batchOffset: nil, decided: nil, notes: RangeChangeNotes())
    }

    /// Whether `refreshNow` can serve `e`.
    static func canRefreshNow(_ e: RangeEntry) -> Bool { e.cells == nil && e.nested.isEmpty }

    /// What a refresh found: the ranges' update, and the headers when they changed.
    struct Change {
        let update: RangeUpdate
        let headers: (visible: [Int], pinned: [Int])?
    }

    /// Updates the ranges; nil when there is nothing to send (most scroll steps change nothing: no event
    /// to route, no batch to judge).
    private func changes(_ e: RangeEntry, checkBatch: Bool, decided: Bool?, notes: RangeChangeNotes) -> Change? {
        let u = e.session.updateIfNeeded()
        var headersNow: (visible: [Int], pinned: [Int])?
        if e.hasHeaders {
            let h = headers(e)
            if h != e.headerState { headersNow = h }
        }
        if u.isEmpty && notes.isEmpty && !checkBatch && decided == nil && headersNow == nil { return nil }
        return Change(update: u, headers: headersNow)
    }

    /// Sends a refresh's events (`cellsJSON`: the cells bound and released meanwhile).
    private func send(_ e: RangeEntry, _ change: Change, cellsJSON: JSONValue?, checkBatch: Bool, batchOffset: Double?,
                      decided: Bool?, notes: RangeChangeNotes) {
        let s = e.session
        let u = change.update
        let target = e.connection
        if let h = change.headers { e.headerState = h }
        if (!u.isEmpty || !notes.removed.isEmpty || !notes.moved.isEmpty || cellsJSON != nil || change.headers != nil),
           events.wants(mask: Self.rangeTopic, owner: target) {
            var f: JSONObject = [
                "session": .string(s.id), "mode": .string(s.mode.rawValue), "direction": .string(s.direction.wireName),
                "enter": ["preload": paths(s, u.enterPreload), "display": paths(s, u.enterDisplay), "visible": paths(s, u.enterVisible)],
                "exit": ["preload": paths(s, u.exitPreload), "display": paths(s, u.exitDisplay), "visible": paths(s, u.exitVisible)],
            ]
            if !notes.removed.isEmpty { f["removed"] = .array(notes.removed.map(\.path)) }
            if !notes.moved.isEmpty { f["moved"] = .array(notes.moved) }
            if s.keyed {
                var k: JSONObject = [
                    "enter": keyLists(s, visible: u.enterVisible, display: u.enterDisplay, preload: u.enterPreload),
                    "exit": keyLists(s, visible: u.exitVisible, display: u.exitDisplay, preload: u.exitPreload),
                ]
                if !notes.removed.isEmpty { k["removed"] = .array(notes.removed.map { .string($0.key ?? "") }) }
                f["keys"] = .object(k)
            }
            if let cellsJSON { f["cells"] = cellsJSON }
            if let parent = parentJSON(e) { f["parent"] = parent }
            if let h = change.headers { f["headers"] = headersJSON(h) }
            events.emit(RangeTopic.self, owner: target, f)
        }
        if events.wants(mask: Self.prefetchTopic, owner: target) {
            func prefetch(_ kind: String, _ list: [Int]) {
                guard !list.isEmpty else { return }
                var f: JSONObject = ["session": .string(s.id), "kind": .string(kind), "paths": paths(s, list)]
                if let k = keys(s, list) { f["keys"] = k }
                events.emit(PrefetchTopic.self, owner: target, f)
            }
            prefetch("prefetchItems", u.prefetch)
            prefetch("cancelPrefetching", u.cancelPrefetch)
        }
        if let prepends = decided ?? (checkBatch ? s.batchDecision(at: batchOffset) : nil) {
            let context = "b-\(nextBatch)"
            nextBatch += 1
            s.beginBatch(context: context, prepends: prepends)
            events.emit(BatchTopic.self, owner: target, ["session": .string(s.id), "context": .string(context),
                                               "kind": "willBeginBatchFetch", "prepend": .bool(s.batchPrepends)])
        }
    }

    /// Items were inserted before flat index `at`: what is kept by item (cells and their data, viewable
    /// marks, nested sessions) moves with its item.
    func itemsInserted(_ e: RangeEntry, at: Int, count k: Int) async {
        guard k > 0 else { return }
        e.cells?.shift(from: at, by: k)
        viewabilityInserted(e, at: at, count: k)
        await parentRowsMoved(e) { $0 >= at ? $0 + k : $0 }
    }

    /// Item `f` is about to be deleted (`path`: where it is): its cell lets go (in the update's event),
    /// its viewable marks end, its nested sessions end, and the rest move up. Highest first.
    func itemRemoved(_ e: RangeEntry, flat f: Int, path: JSONValue, notes: inout RangeChangeNotes) async {
        await itemsRemapped(e, { $0 == f ? nil : $0 > f ? $0 - 1 : $0 }, oldPath: { _ in path }, notes: &notes)
    }

    /// The items moved (`newFlat`: where an item is now, nil when deleted; `oldPath`: a deleted item's
    /// path before): cells, viewable marks and nested sessions follow, and deleted items' go.
    func itemsRemapped(_ e: RangeEntry, _ newFlat: (Int) -> Int?, oldPath: (Int) -> JSONValue, notes: inout RangeChangeNotes) async {
        if let cells = e.cells {
            for f in cells.bound.keys.sorted() where newFlat(f) == nil {
                notes.removedCells.append((oldPath(f), cells.bound.removeValue(forKey: f)!))
            }
            cells.remap(newFlat)
        }
        viewabilityRemapped(e, newFlat, oldPath: oldPath)
        await parentRowsMoved(e, newFlat)
    }

    /// The sections whose headers show now, and the sticky ones pinned: a plain header shows while its
    /// section's first item is visible; a sticky one while any of its items is, pinned once its first item
    /// has scrolled past the viewport's start. O(sections on screen).
    func headers(_ e: RangeEntry) -> (visible: [Int], pinned: [Int]) {
        let s = e.session
        let v = s.visible
        guard !v.isEmpty else { return ([], []) }
        var visible: [Int] = [], pinned: [Int] = []
        for sec in s.path(v.lo).section...s.path(v.hi - 1).section {
            guard sec < e.sectionInfo.count, let h = e.sectionInfo[sec].header else { continue }
            let first = s.sectionStarts[sec]
            guard first < s.sectionStarts[sec + 1] else { continue }  // an empty section shows no items
            if v.contains(first) {
                visible.append(sec)
            } else if h.sticky {
                visible.append(sec)
                pinned.append(sec)
            }
        }
        return (visible, pinned)
    }

    func headersJSON(_ h: (visible: [Int], pinned: [Int])) -> JSONValue {
        ["visible": .array(h.visible.map { .int($0) }), "pinned": .array(h.pinned.map { .int($0) })]
    }

    /// `{"session", "mode", "direction"}`, re-encoded only when mode or direction change.
    func streamReply(_ e: RangeEntry) -> EncodedJSON {
        let s = e.session
        if let r = e.streamReply, r.mode == s.mode, r.forward == s.forward { return r.json }
        let json = EncodedJSON(["session": .string(s.id), "mode": .string(s.mode.rawValue), "direction": .string(s.direction.wireName)])
        e.streamReply = (s.mode, s.forward, json)
        return json
    }

    func summary(_ e: RangeEntry) -> JSONObject {
        let s = e.session
        return [
            "session": .string(s.id),
            "count": .int(s.count),
            "sections": .int(s.sectionCount),
            "contentLength": .double(s.contentLength),
            "offset": .double(s.offset),
            "mode": .string(s.mode.rawValue),
            "direction": .string(s.direction.wireName),
            "phase": .string(s.phase.wireName),
            "visible": .bool(s.isVisible),
            "batchInFlight": s.batchInFlight.map { .string($0) } ?? .null,
        ]
    }

    // MARK: HostDomain

    public func register(into r: inout MethodRegistry<HostConnection>) { registerRangeMethods(into: &r) }

    public func reset(caller: HostConnection) -> JSONObject {
        if sessions.isEmpty {
            nextSession = 1
            nextBatch = 1
        }
        return [:]
    }

    public func connectionClosed(_ connection: HostConnection) async {
        for (_, e) in sessions.sorted(by: { $0.key < $1.key }) where e.owner == connection.id { await end(e) }
        trackingChanged()
    }

    public func memoryWarning(level: String, caller: HostConnection?) async -> JSONObject {
        for e in sessions.values.sorted(by: { $0.session.id < $1.session.id }) {
            _ = await purgeQueues(e)
            e.session.memoryWarning()
            await refresh(e, checkBatch: false)
        }
        return ["rangeSessions": .int(sessions.count)]
    }

    public func addStats(to stats: inout JSONObject) {
        var s = stats["sessions"]?.objectValue ?? JSONObject()
        s["range"] = .int(sessions.count)
        s["rangeTracking"] = .int(sessions.values.filter { $0.session.isTracking }.count)
        stats["sessions"] = .object(s)
    }

    func makeID() -> String {
        defer { nextSession += 1 }
        return "r-\(nextSession)"
    }

    /// The MDTable article's template preloading: one warm container per reuse identifier that names a class,
    /// at the size its rows have (the viewport's cross size by the length of the first row of the first
    /// section that uses it), as default-mode idle tasks (they wait while any session tracks).
    func queueTemplates(_ e: RangeEntry, cause: HostConnection) async -> Int {
        var queued = 0
        let containers = self.containers
        let s = e.session
        var seen = Set<String>()
        for (section, info) in e.sectionInfo.enumerated() {
            guard let id = info.reuseIdentifier, classes[id] != nil, !seen.contains(id) else { continue }
            let first = s.sectionStarts[section]
            guard first < s.sectionStarts[section + 1] else { continue }  // an empty section says no size
            seen.insert(id)
            let size = rowSize(s, first)
            let pool = containers.pools.poolForShow(className: id, size: size)
            if pool.idle.count + pool.warming == 0 { await queued += containers.pools.queueWarmups(pool, count: 1, cause: cause) }
        }
        return queued
    }
}
