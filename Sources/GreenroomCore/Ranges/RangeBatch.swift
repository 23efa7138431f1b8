/// An item's place: a section and a row in it (UIKit's index path).
public struct RangePath: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var section: Int
    public var row: Int
    public init(_ section: Int, _ row: Int) {
        self.section = section
        self.row = row
    }
    public static func < (a: RangePath, b: RangePath) -> Bool { (a.section, a.row) < (b.section, b.row) }
    public var description: String { "[\(section), \(row)]" }
}

/// Items given to an insert: their lengths and, in a keyed session, their keys.
public struct RangeItems: Equatable, Sendable {
    public var lengths: [Double]
    public var keys: [String]?
    public init(lengths: [Double], keys: [String]? = nil) {
        self.lengths = lengths
        self.keys = keys
    }
}

/// A section given to `insertSections`: its items and, optionally, its key.
public struct RangeSectionItems: Equatable, Sendable {
    public var items: RangeItems
    public var key: String?
    public init(items: RangeItems, key: String? = nil) {
        self.items = items
        self.key = key
    }
}

/// One update of a batch (UICollectionView's `performBatchUpdates`). Deletes, reloads, resizes and the
/// sources of moves name items and sections as they were before the batch; inserts and the
/// destinations of moves name them as they are after it.
public enum RangeBatchOp: Equatable, Sendable {
    case deleteItems([RangePath])
    case insertItems(at: RangePath, RangeItems)
    case moveItem(from: RangePath, to: RangePath)
    case reloadItems([RangePath])
    case setLengths([RangePath], [Double])
    case insertSections(at: Int, [RangeSectionItems])
    case deleteSections([Int])
    case moveSection(from: Int, to: Int)
}

/// Why a batch was refused: which update (its index in the batch), which of its members, and why.
/// Nothing changed. The host words it (CoreToWire.swift).
public struct RangeBatchError: Error, Equatable, Sendable {
    public enum Member: Equatable, Sendable {
        case paths(Int), at, from, to, lengths, keys(Int), sections(Int), whole
    }
    public enum Reason: Equatable, Sendable {
        /// A path (before the batch) that is not an item.
        case noSuchItem(RangePath)
        /// A section (before the batch) that does not exist.
        case noSuchSection(Int)
        /// An item or section an earlier update already deletes, moves, reloads or resizes.
        case alreadyUpdated(by: Int)
        /// An item of a section this batch deletes.
        case inDeletedSection(Int, by: Int)
        /// A destination after the batch outside its section (which will hold `rows`), or taken twice.
        case rowOutside(RangePath, rows: Int)
        case destinationTaken(RangePath, by: Int)
        /// An item inserted or moved into a section the batch inserts (it brings its own items).
        case intoInsertedSection(Int)
        /// A section destination outside `0..<sections` after the batch, or taken twice.
        case sectionOutside(Int, sections: Int)
        case sectionTaken(Int, by: Int)
        /// Lengths that are not finite and >= 0, or not one per item.
        case badLengths
        /// Keys: missing in a keyed session, given in an unkeyed one, not one per item, or a key
        /// another item has (`holder`: where it is before the batch, or the update inserting it).
        case keysRequired, keysNotKept, keyCount
        case duplicateKey(String, holder: KeyHolder)
        /// More items than the session may hold.
        case tooManyItems(limit: Int)
        /// Deleting every section (a session keeps at least one).
        case noSectionsLeft
        /// A grid's items have their section's row length (`expected`); a grid's rows are not resized.
        case notGridRow(expected: Double)
        case gridResize
    }
    /// Who holds a key already.
    public enum KeyHolder: Equatable, Sendable {
        case item(RangePath)
        case section(Int)
        case update(Int)
    }
    public var update: Int
    public var member: Member
    public var reason: Reason
    public init(update: Int, member: Member, reason: Reason) {
        self.update = update
        self.member = member
        self.reason = reason
    }
}

/// What a batch did, for the host's events, cells and replies: all of it as one update.
public struct RangeBatchResult: Sendable {
    /// Deleted items (with those of deleted sections), flat index and path before the batch, and
    /// whether each was in a range; their keys in a keyed session.
    public var deleted: [(flat: Int, path: RangePath, inRange: Bool, key: String?)] = []
    /// Moved items (with those of moved sections): flat index and path before, flat index after, and
    /// whether the item was in a range.
    public var moved: [(from: Int, fromPath: RangePath, to: Int, inRange: Bool)] = []
    /// Inserted items' flat indices after the batch (with those of inserted sections), ascending.
    public var inserted: [Int] = []
    /// Reloaded and resized items' flat indices after the batch.
    public var reloaded: [Int] = []
    public var resized: [Int] = []
    /// Where each section after the batch came from: an old section's index, or nil for an inserted one.
    public var sectionSources: [Int?] = []
    /// Old flat indices that left their place (deleted or moved), ascending, and new flat indices
    /// placed by the batch (inserted or moved), ascending: enough to map any other item.
    var removedOld: [Int] = []
    var placedNew: [Int] = []
    var movedTo: [Int: Int] = [:]

    /// Where the item at old flat index `old` is after the batch; nil when it was deleted.
    /// O(log changes).
    public func newFlat(_ old: Int) -> Int? {
        if let m = movedTo[old] { return m }
        let removedBefore = Self.countLess(removedOld, old)
        if removedBefore < removedOld.count && removedOld[removedBefore] == old { return nil }
        let mid = old - removedBefore
        // The survivors keep their order: the k-th placed item (ascending) pushes every survivor whose
        // rank among survivors is >= placedNew[k] - k.
        var lo = 0, hi = placedNew.count
        while lo < hi {
            let m = (lo + hi) / 2
            if placedNew[m] - m <= mid { lo = m + 1 } else { hi = m }
        }
        return mid + lo
    }

    static func countLess(_ a: [Int], _ x: Int) -> Int {
        var lo = 0, hi = a.count
        while lo < hi {
            let m = (lo + hi) / 2
            if a[m] < x { lo = m + 1 } else { hi = m }
        }
        return lo
    }
}

/// The client keys of a session's items: each keyed item's tree node carries its key's slot.
struct RangeKeyTable {
    private(set) var names: [String] = []
    private(set) var slot: [String: Int32] = [:]
    private var free: [Int32] = []

    mutating func add(_ key: String) -> Int32 {
        if let s = free.popLast() {
            names[Int(s)] = key
            slot[key] = s
            return s
        }
        names.append(key)
        slot[key] = Int32(names.count - 1)
        return Int32(names.count - 1)
    }

    mutating func remove(_ s: Int32) {
        guard s >= 0 else { return }
        slot[names[Int(s)]] = nil
        names[Int(s)] = ""
        free.append(s)
    }

    func name(_ s: Int32) -> String? { s >= 0 ? names[Int(s)] : nil }
    func contains(_ key: String) -> Bool { slot[key] != nil }
}

extension RangeSession {
    /// The key of the item at flat index `f` (nil in an unkeyed session): O(log n).
    public func key(_ f: Int) -> String? { keyTable.name(tree.tag(at: f)) }

    /// Where the item whose key is in `slot` is: a linear look, for the error that names it.
    func holder(of slot: Int32) -> RangePath {
        path(of: tree.allTags().firstIndex(of: slot) ?? 0)
    }

    public func path(of f: Int) -> RangePath {
        let p = path(f)
        return RangePath(p.section, p.row)
    }

    /// The range bits of flat index `f` now, as `Carried` bits.
    private func bits(_ f: Int) -> UInt8 {
        let st = state(f)
        return (st.visible ? Carried.visible : 0) | (st.display ? Carried.display : 0)
            | (st.preload ? Carried.preload : 0) | (seen.contains(f) ? Carried.seen : 0)
    }

    /// Applies a whole batch at once, as UIKit's `performBatchUpdates` does: deletes, reloads, resizes and
    /// move sources by the paths before it, inserts and move destinations by the paths after it.
    /// Checked in full first: a refused batch changes nothing. The ranges are shifted by identity
    /// (moved items keep their states); call `updateIfNeeded()` after. O((changes + moved sections'
    /// items) log n).
    public func performBatch(_ updates: [RangeBatchOp]) throws(RangeBatchError) -> RangeBatchResult {
        let plan = try BatchPlan(self, updates)
        return apply(plan)
    }

    private func apply(_ plan: BatchPlan) -> RangeBatchResult {
        var result = RangeBatchResult()
        result.sectionSources = plan.sectionSources
        // Old states of moved items, taken before anything moves.
        var carriedBits: [Int: UInt8] = [:]
        for (old, _) in plan.movedOldToNew { carriedBits[old] = bits(old) }
        var movedTags: [Int: Int32] = [:], movedLengths: [Int: Double] = [:], movedPaths: [Int: RangePath] = [:]
        for (old, _) in plan.movedOldToNew {
            movedTags[old] = tree.tag(at: old)
            movedLengths[old] = tree.length(at: old)
            movedPaths[old] = path(of: old)
        }
        // Removals, highest first: deleted items give their key back; moved ones keep theirs.
        for old in plan.removedOld.reversed() {
            if plan.movedOldToNew[old] == nil {
                let inRange = preload.contains(old) || display.contains(old) || visible.contains(old)
                let tag = tree.tag(at: old)
                result.deleted.append((old, path(of: old), inRange, keyTable.name(tag)))
                keyTable.remove(tag)
            }
            tree.remove(at: old)
            shift(insertingAt: old, count: -1)
        }
        result.deleted.reverse()
        // Placements, lowest first, at their final flat index.
        var carriedNew: [Int: UInt8] = [:]
        for (flat, source) in plan.placements {
            switch source {
            case .new(let length, let key):
                let tag = key.map { keyTable.add($0) } ?? -1
                tree.insert([length], tags: [tag], at: flat)
                result.inserted.append(flat)
            case .moved(let old):
                tree.insert([movedLengths[old]!], tags: [movedTags[old]!], at: flat)
                result.moved.append((old, movedPaths[old]!, flat, carriedBits[old]! & 7 != 0))
                carriedNew[flat] = carriedBits[old]
            }
            shift(insertingAt: flat, count: 1)
        }
        for (f, b) in carriedNew where b != 0 {
            carried[f] = b
            if b & Carried.seen != 0 { seen.insert(f) }
            // A moved item in a range changes what the ranges hold: an update is due.
            needsUpdate = true
        }
        sectionStarts = plan.newSectionStarts
        sectionKeys = plan.newSectionKeys
        if var g = grid {
            // Row lengths follow their sections; a section that gained its first items takes theirs.
            g.rowLength = plan.sectionSources.enumerated().map { j, source in
                source.flatMap { g.rowLength[$0] } ?? (sectionStarts[j] < sectionStarts[j + 1] ? tree.length(at: sectionStarts[j]) : nil)
            }
            for j in g.rowLength.indices where g.rowLength[j] == nil && sectionStarts[j] < sectionStarts[j + 1] {
                g.rowLength[j] = tree.length(at: sectionStarts[j])
            }
            g.rebuild(sectionStarts: sectionStarts)
            grid = g
        }
        result.removedOld = plan.removedOld
        result.placedNew = plan.placements.map(\.flat)
        result.movedTo = plan.movedOldToNew
        for (old, length) in plan.resizedOld {
            let f = result.newFlat(old)!
            tree.setLength(length, at: f)
            result.resized.append(f)
        }
        result.reloaded = plan.reloadedOld.map { result.newFlat($0)! }
        result.resized.sort()
        result.reloaded.sort()
        layout()
        return result
    }
}

/// A batch checked against the session and turned into flat operations: removals by old flat index,
/// placements by new flat index, and the sections after it. Building it changes nothing.
private struct BatchPlan {
    enum Source { case new(Double, String?), moved(Int) }
    var removedOld: [Int] = []
    var placements: [(flat: Int, source: Source)] = []
    var movedOldToNew: [Int: Int] = [:]
    var reloadedOld: [Int] = []
    var resizedOld: [(Int, Double)] = []
    var sectionSources: [Int?] = []
    var newSectionStarts: [Int] = []
    var newSectionKeys: [String?] = []

    /// What happens to an item named before the batch.
    private enum ItemFate { case deleted, movedOut, reloaded, resized }

    init(_ s: RangeSession, _ updates: [RangeBatchOp]) throws(RangeBatchError) {
        let oldSections = s.sectionCount
        func rows(_ section: Int) -> Int { s.sectionStarts[section + 1] - s.sectionStarts[section] }
        func fail(_ u: Int, _ m: RangeBatchError.Member, _ r: RangeBatchError.Reason) -> RangeBatchError {
            RangeBatchError(update: u, member: m, reason: r)
        }
        func checkLengths(_ u: Int, _ l: [Double]) throws(RangeBatchError) {
            guard l.allSatisfy({ $0.isFinite && $0 >= 0 }), l.reduce(0, +).isFinite else { throw fail(u, .lengths, .badLengths) }
        }

        // Sections first: which old sections go (deleted or moved), and where sections land.
        var sectionFate: [Int: (update: Int, deleted: Bool)] = [:]
        var sectionDest: [Int: (update: Int, source: Int?, spec: RangeSectionItems?)] = [:]
        var insertedSectionCount = 0
        for (u, op) in updates.enumerated() {
            switch op {
            case .deleteSections(let list):
                for (k, sec) in list.enumerated() {
                    guard sec >= 0, sec < oldSections else { throw fail(u, .sections(k), .noSuchSection(sec)) }
                    if let other = sectionFate[sec] { throw fail(u, .sections(k), .alreadyUpdated(by: other.update)) }
                    sectionFate[sec] = (u, true)
                }
            case .moveSection(let from, _):
                guard from >= 0, from < oldSections else { throw fail(u, .from, .noSuchSection(from)) }
                if let other = sectionFate[from] { throw fail(u, .from, .alreadyUpdated(by: other.update)) }
                sectionFate[from] = (u, false)
            case .insertSections(_, let specs):
                insertedSectionCount += specs.count
            default: break
            }
        }
        let newSectionCount = oldSections - sectionFate.values.filter(\.deleted).count + insertedSectionCount
        if newSectionCount == 0, let u = updates.indices.last(where: { if case .deleteSections = updates[$0] { true } else { false } }) {
            throw fail(u, .whole, .noSectionsLeft)
        }
        for (u, op) in updates.enumerated() {
            switch op {
            case .moveSection(let from, let to):
                guard to >= 0, to < newSectionCount else { throw fail(u, .to, .sectionOutside(to, sections: newSectionCount)) }
                if let other = sectionDest[to] { throw fail(u, .to, .sectionTaken(to, by: other.update)) }
                sectionDest[to] = (u, from, nil)
            case .insertSections(let at, let specs):
                for (k, spec) in specs.enumerated() {
                    let to = at + k
                    guard at >= 0, to < newSectionCount else { throw fail(u, .at, .sectionOutside(to, sections: newSectionCount)) }
                    if let other = sectionDest[to] { throw fail(u, .at, .sectionTaken(to, by: other.update)) }
                    sectionDest[to] = (u, nil, spec)
                }
            default: break
            }
        }
        // The sections after the batch: placed ones at their indices, the old survivors in order around them.
        var survivors = (0..<oldSections).filter { sectionFate[$0] == nil }.makeIterator()
        var newSections: [(source: Int?, spec: RangeSectionItems?, moved: Bool)] = []
        for j in 0..<newSectionCount {
            if let d = sectionDest[j] { newSections.append((d.source, d.spec, d.source != nil)) } else { newSections.append((survivors.next()!, nil, false)) }
        }
        sectionSources = newSections.map(\.source)

        // Items named before the batch.
        var fate: [Int: (update: Int, fate: ItemFate)] = [:]
        var resizedToo: [Int: Int] = [:]
        func oldItem(_ u: Int, _ m: RangeBatchError.Member, _ p: RangePath, besides: ItemFate? = nil) throws(RangeBatchError) -> Int {
            guard let f = s.flatIndex(section: p.section, row: p.row) else { throw fail(u, m, .noSuchItem(p)) }
            if let sf = sectionFate[p.section], sf.deleted { throw fail(u, m, .inDeletedSection(p.section, by: sf.update)) }
            // A resize and a move may name the same item (the length is the one it moves with);
            // every other pair is a mistake.
            if let other = fate[f], besides == nil || other.fate != besides! { throw fail(u, m, .alreadyUpdated(by: other.update)) }
            if let r = resizedToo[f] { throw fail(u, m, .alreadyUpdated(by: r)) }
            return f
        }
        // Destinations after the batch, per new section: row -> (update, source).
        var dests: [Int: [Int: (update: Int, source: Source)]] = [:]
        var destOrder: [(update: Int, member: RangeBatchError.Member, path: RangePath)] = []
        var keyOwners: [String: RangeBatchError.KeyHolder] = [:]
        var sectionKeyOwners: [String: Int] = [:]
        var addedItems = 0
        func checkKeys(_ u: Int, _ items: RangeItems) throws(RangeBatchError) {
            guard s.keyed else {
                if items.keys != nil { throw fail(u, .keys(0), .keysNotKept) }
                return
            }
            guard let keys = items.keys else {
                if items.lengths.isEmpty { return }
                throw fail(u, .whole, .keysRequired)
            }
            guard keys.count == items.lengths.count else { throw fail(u, .keys(0), .keyCount) }
            for (k, key) in keys.enumerated() {
                if let h = keyOwners[key] { throw fail(u, .keys(k), .duplicateKey(key, holder: h)) }
                keyOwners[key] = .update(u)
            }
        }
        func destination(_ u: Int, _ m: RangeBatchError.Member, _ p: RangePath, _ src: Source) throws(RangeBatchError) {
            guard p.section >= 0, p.section < newSectionCount else { throw fail(u, m, .sectionOutside(p.section, sections: newSectionCount)) }
            if newSections[p.section].source == nil { throw fail(u, m, .intoInsertedSection(p.section)) }
            guard p.row >= 0 else { throw fail(u, m, .rowOutside(p, rows: 0)) }
            if let other = dests[p.section]?[p.row] { throw fail(u, m, .destinationTaken(p, by: other.update)) }
            dests[p.section, default: [:]][p.row] = (u, src)
            destOrder.append((u, m, p))
        }
        for (u, op) in updates.enumerated() {
            switch op {
            case .deleteItems(let paths):
                for (k, p) in paths.enumerated() { fate[try oldItem(u, .paths(k), p)] = (u, .deleted) }
            case .reloadItems(let paths):
                for (k, p) in paths.enumerated() { let f = try oldItem(u, .paths(k), p); fate[f] = (u, .reloaded); reloadedOld.append(f) }
            case .setLengths(let paths, let lengths):
                guard lengths.count == paths.count else { throw fail(u, .lengths, .badLengths) }
                try checkLengths(u, lengths)
                for (k, p) in paths.enumerated() {
                    let f = try oldItem(u, .paths(k), p, besides: .movedOut)
                    if fate[f] == nil { fate[f] = (u, .resized) } else { resizedToo[f] = u }
                    resizedOld.append((f, lengths[k]))
                }
            case .moveItem(let from, _):
                let f = try oldItem(u, .from, from, besides: .resized)
                if let sf = sectionFate[from.section], !sf.deleted { throw fail(u, .from, .alreadyUpdated(by: sf.update)) }
                if let r = fate[f] { resizedToo[f] = r.update }
                fate[f] = (u, .movedOut)
            case .insertItems(_, let items):
                guard !items.lengths.isEmpty else { throw fail(u, .lengths, .badLengths) }
                try checkLengths(u, items.lengths)
                addedItems += items.lengths.count
                guard addedItems <= s.itemLimit - s.count else { throw fail(u, .lengths, .tooManyItems(limit: s.itemLimit)) }
            case .insertSections(_, let specs):
                for (k, spec) in specs.enumerated() {
                    try checkLengths(u, spec.items.lengths)
                    addedItems += spec.items.lengths.count
                    guard addedItems <= s.itemLimit - s.count else { throw fail(u, .sections(k), .tooManyItems(limit: s.itemLimit)) }
                    if let key = spec.key {
                        if let h = sectionKeyOwners[key] { throw fail(u, .sections(k), .duplicateKey(key, holder: .update(h))) }
                        sectionKeyOwners[key] = u
                    }
                }
            default: break
            }
        }
        // Keys: new ones against each other, then against the items that stay.
        for (u, op) in updates.enumerated() {
            switch op {
            case .insertItems(_, let items): try checkKeys(u, items)
            case .insertSections(_, let specs):
                for spec in specs { try checkKeys(u, spec.items) }
            default: break
            }
        }
        if s.keyed {
            // Keys of deleted items are free again within the batch.
            var gone = Set<Int32>()
            for (f, x) in fate where x.fate == .deleted { gone.insert(s.tree.tag(at: f)) }
            for sec in 0..<oldSections where sectionFate[sec]?.deleted == true {
                for f in s.sectionStarts[sec]..<s.sectionStarts[sec + 1] { gone.insert(s.tree.tag(at: f)) }
            }
            for (u, op) in updates.enumerated() {
                var lists: [[String]] = []
                if case .insertItems(_, let items) = op { lists = [items.keys ?? []] }
                if case .insertSections(_, let specs) = op { lists = specs.map { $0.items.keys ?? [] } }
                for keys in lists {
                    for (k, key) in keys.enumerated() {
                        guard let slot = s.keyTable.slot[key], !gone.contains(slot) else { continue }
                        throw fail(u, .keys(k), .duplicateKey(key, holder: .item(s.holder(of: slot))))
                    }
                }
            }
        }
        for (u, op) in updates.enumerated() {
            if case .insertSections(_, let specs) = op {
                for (k, spec) in specs.enumerated() {
                    guard let key = spec.key else { continue }
                    if let j = s.sectionKeys.firstIndex(of: key), sectionFate[j]?.deleted != true {
                        throw fail(u, .sections(k), .duplicateKey(key, holder: .section(j)))
                    }
                }
            }
        }
        for (u, op) in updates.enumerated() {
            switch op {
            case .insertItems(let at, let items):
                for (k, l) in items.lengths.enumerated() {
                    try destination(u, .at, RangePath(at.section, at.row + k), .new(l, items.keys?[k]))
                }
            case .moveItem(let from, let to):
                try destination(u, .to, to, .moved(s.flatIndex(section: from.section, row: from.row)!))
            default: break
            }
        }
        // A grid: items go in at their section's row length, and rows keep theirs.
        if let g = s.grid {
            var pending: [Int: Double] = [:]  // row lengths of sections that were empty, as the batch sets them
            for (u, op) in updates.enumerated() {
                switch op {
                case .setLengths:
                    throw fail(u, .lengths, .gridResize)
                case .insertSections(_, let specs):
                    for (k, spec) in specs.enumerated() {
                        if let l = spec.items.lengths.first, spec.items.lengths.contains(where: { $0 != l }) {
                            throw fail(u, .sections(k), .notGridRow(expected: l))
                        }
                    }
                case .insertItems(let at, let items):
                    guard at.section >= 0, at.section < newSections.count, let source = newSections[at.section].source,
                          let l = g.rowLength[source] ?? pending[at.section] ?? items.lengths.first else { continue }
                    if items.lengths.contains(where: { $0 != l }) { throw fail(u, .lengths, .notGridRow(expected: l)) }
                    pending[at.section] = l
                default:
                    break
                }
            }
        }
        // Each section's size after the batch, and every destination inside it.
        // (Items leaving a section are counted from the updates, not by walking it: O(changes).)
        var leaving = [Int](repeating: 0, count: oldSections)
        for (f, x) in fate where x.fate == .deleted || x.fate == .movedOut { leaving[s.path(f).section] += 1 }
        var sizes: [Int] = []
        for (j, ns) in newSections.enumerated() {
            if let spec = ns.spec { sizes.append(spec.items.lengths.count); continue }
            let o = ns.source!
            sizes.append(rows(o) - leaving[o] + (dests[j]?.count ?? 0))
        }
        for d in destOrder where d.path.row >= sizes[d.path.section] {
            throw fail(d.update, d.member, .rowOutside(d.path, rows: sizes[d.path.section]))
        }
        // Flat operations. Removed: deleted and moved-out items, and every item of deleted and moved sections.
        var removed = Set<Int>()
        for (f, x) in fate where x.fate == .deleted || x.fate == .movedOut { removed.insert(f) }
        for (sec, _) in sectionFate { for f in s.sectionStarts[sec]..<s.sectionStarts[sec + 1] { removed.insert(f) } }
        removedOld = removed.sorted()
        // Placed: destinations in every section, and every item of moved and inserted sections.
        var start = 0
        newSectionStarts = [0]
        newSectionKeys = []
        for (j, ns) in newSections.enumerated() {
            let size = sizes[j]
            if let spec = ns.spec {
                for (k, l) in spec.items.lengths.enumerated() { placements.append((start + k, .new(l, spec.items.keys?[k]))) }
                newSectionKeys.append(spec.key)
            } else {
                let o = ns.source!
                newSectionKeys.append(o < s.sectionKeys.count ? s.sectionKeys[o] : nil)
                let fixed = dests[j] ?? [:]
                if ns.moved {
                    // The whole section moves: its staying items fill the rows no destination takes.
                    var staying = (s.sectionStarts[o]..<s.sectionStarts[o + 1]).filter {
                        fate[$0]?.fate != .deleted && fate[$0]?.fate != .movedOut
                    }.makeIterator()
                    for r in 0..<size {
                        if let d = fixed[r] { placements.append((start + r, d.source)) } else { placements.append((start + r, .moved(staying.next()!))) }
                    }
                } else {
                    for (r, d) in fixed { placements.append((start + r, d.source)) }
                }
            }
            start += size
            newSectionStarts.append(start)
        }
        placements.sort { $0.flat < $1.flat }
        for p in placements { if case .moved(let old) = p.source { movedOldToNew[old] = p.flat } }
    }
}

extension RangeSession {
    public func hasKey(_ key: String) -> Bool { keyTable.contains(key) }

    /// The updates that turn a keyed session's items into `sections` (every section's keys in their new
    /// order, with lengths for new keys): keys left out are deleted, new ones inserted, and kept items
    /// moved only when they change section or fall outside the longest run of items already in order
    /// in their section (a longest increasing subsequence: the fewest moves). A kept item whose given
    /// length differs is resized. O(n log n) in the snapshot's size.
    public func snapshotUpdates(_ sections: [(keys: [String], lengths: [Double]?)]) -> [RangeBatchOp] {
        var old: [String: RangePath] = [:]
        old.reserveCapacity(count)
        let tags = tree.allTags()
        var sec = 0
        for (f, t) in tags.enumerated() {
            while sec + 1 < sectionStarts.count && sectionStarts[sec + 1] <= f { sec += 1 }
            if let k = keyTable.name(t) { old[k] = RangePath(sec, f - sectionStarts[sec]) }
        }
        var updates: [RangeBatchOp] = []
        var kept = Set<String>()
        var resizes: [(RangePath, Double)] = []
        for (i, section) in sections.enumerated() {
            // Kept items from this same section, by new row: their old rows; the longest increasing run stays.
            var sameRows: [(newRow: Int, oldRow: Int)] = []
            for (j, key) in section.keys.enumerated() {
                if let p = old[key] {
                    kept.insert(key)
                    if p.section == i { sameRows.append((j, p.row)) }
                    if let l = section.lengths?[j], l != tree.length(at: sectionStarts[p.section] + p.row) { resizes.append((p, l)) }
                }
            }
            let staying = Set(Self.longestIncreasing(sameRows.map(\.oldRow)).map { sameRows[$0].newRow })
            var run: (at: Int, lengths: [Double], keys: [String])?
            func flush() {
                if let r = run { updates.append(.insertItems(at: RangePath(i, r.at), RangeItems(lengths: r.lengths, keys: r.keys))) }
                run = nil
            }
            for (j, key) in section.keys.enumerated() {
                if let p = old[key] {
                    flush()
                    if !staying.contains(j) || p.section != i { updates.append(.moveItem(from: p, to: RangePath(i, j))) }
                } else {
                    let l = section.lengths?[j] ?? 0
                    if run != nil { run!.lengths.append(l); run!.keys.append(key) } else { run = (j, [l], [key]) }
                }
            }
            flush()
        }
        let gone = old.filter { !kept.contains($0.key) }.map(\.value).sorted()
        if !gone.isEmpty { updates.append(.deleteItems(gone)) }
        if !resizes.isEmpty { updates.append(.setLengths(resizes.map(\.0), resizes.map(\.1))) }
        return updates
    }

    /// Indices of a longest strictly increasing subsequence of `a` (patience sorting): O(n log n).
    static func longestIncreasing(_ a: [Int]) -> [Int] {
        var tails: [Int] = [], prev = [Int](repeating: -1, count: a.count)
        for (i, x) in a.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi {
                let m = (lo + hi) / 2
                if a[tails[m]] < x { lo = m + 1 } else { hi = m }
            }
            if lo > 0 { prev[i] = tails[lo - 1] }
            if lo == tails.count { tails.append(i) } else { tails[lo] = i }
        }
        var out: [Int] = []
        var k = tails.last ?? -1
        while k >= 0 { out.append(k); k = prev[k] }
        return out.reversed()
    }
}
