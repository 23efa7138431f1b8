import GreenroomCore
import GreenroomJSON
import GreenroomRPC

/// Keys, sections and batches on the wire: decoding `range.create`'s keyed sections and
/// `range.performBatchUpdates`' updates (every member checked, its JSON path named), and applying a
/// batch to the session, its cells and its events.
extension RangeSessions {
    /// One section object: its lengths, item keys, own key, reuse identifier and header.
    static func section(_ s: JSONObject, path: String) throws(RPCError)
        -> (lengths: [Double], keys: [String]?, key: String?, info: RangeSectionInfo) {
        let known = ["count", "itemLength", "lengths", "reuseIdentifier", "keys", "key", "header"]
        for key in s.keys where !known.contains(key) {
            throw .invalidParams(path: "\(path)\(key)", "unknown member (known: \(known.joined(separator: ", ")))")
        }
        let lengths = try Self.lengths(s, path: path)
        var reuse: String?
        if let id = s["reuseIdentifier"] {
            guard let name = id.stringValue else { throw .invalidParams(path: "\(path)reuseIdentifier", "expected string") }
            reuse = name
        }
        let keys = try s["keys"].map { v throws(RPCError) in try Self.keyList(v, path: "\(path)keys") }
        if let keys, keys.count != lengths.count {
            throw .invalidParams(path: "\(path)keys", "has \(keys.count) keys for \(lengths.count) items")
        }
        var key: String?
        if let k = s["key"] {
            guard let name = k.stringValue, !name.isEmpty, name.utf8.count <= 256 else {
                throw .invalidParams(path: "\(path)key", "must be a string of 1 to 256 bytes")
            }
            key = name
        }
        var header: SectionHeader?
        if let h = s["header"] {
            guard case .object(let o) = h else { throw .invalidParams(path: "\(path)header", "expected object, got \(h.typeName)") }
            for k in o.keys where k != "sticky" { throw .invalidParams(path: "\(path)header.\(k)", "unknown member (known: sticky)") }
            header = SectionHeader(sticky: try o["sticky"].map { v throws(RPCError) in try Bool.decodeParam(v, path: "\(path)header.sticky") } ?? false)
        }
        return (lengths, keys, key, RangeSectionInfo(reuseIdentifier: reuse, header: header))
    }

    /// `layout: {columns, spacing?}`, checked, and every section's items of one length (the row's).
    static func gridLayout(_ o: JSONObject?, sections: [[Double]], single: Bool) throws(RPCError) -> (columns: Int, spacing: Double)? {
        guard let o else { return nil }
        for key in o.keys where key != "columns" && key != "spacing" {
            throw .invalidParams(path: "layout.\(key)", "unknown member (known: columns, spacing)")
        }
        let columns = try Int.decodeParam(o["columns"] ?? .null, path: "layout.columns")
        guard columns >= 1, columns <= 1000 else { throw .invalidParams(path: "layout.columns", "must be between 1 and 1000") }
        let spacing = try o["spacing"].map { v throws(RPCError) in try Double.decodeParam(v, path: "layout.spacing") } ?? 0
        guard spacing >= 0, spacing.isFinite else { throw .invalidParams(path: "layout.spacing", "must be a finite number >= 0") }
        for (i, lengths) in sections.enumerated() {
            guard let l = lengths.first, lengths.contains(where: { $0 != l }) else { continue }
            throw .invalidParams(path: single ? "lengths" : "sections[\(i)].lengths",
                                 "a grid's items in one section have one length, the row's (give count and itemLength)")
        }
        return (columns, spacing)
    }

    /// A list of item keys: strings of 1 to 256 bytes (uniqueness is checked where they meet others).
    static func keyList(_ v: JSONValue, path: String) throws(RPCError) -> [String] {
        let keys = try [String].decodeParam(v, path: path)
        for (j, k) in keys.enumerated() where k.isEmpty || k.utf8.count > 256 {
            throw .invalidParams(path: "\(path)[\(j)]", "a key is a string of 1 to 256 bytes")
        }
        return keys
    }

    /// A new session's keys: all sections' or none (a section without items may leave them out), unique
    /// across sections; section keys unique among sections. Nil: an unkeyed session.
    static func sessionKeys(_ items: [[String]?], counts: [Int], _ sectionKeys: [String?], single: Bool) throws(RPCError) -> [[String]]? {
        guard items.contains(where: { $0 != nil }) else { return nil }
        func place(_ i: Int, _ j: Int) -> String { single ? "keys[\(j)]" : "sections[\(i)].keys[\(j)]" }
        var seen: [String: String] = [:]
        var out: [[String]] = []
        for (i, keys) in items.enumerated() {
            guard let keys else {
                guard counts[i] == 0 else { throw .invalidParams(path: "sections[\(i)].keys", "is required: other sections' items have keys") }
                out.append([])
                continue
            }
            for (j, k) in keys.enumerated() {
                if let other = seen[k] { throw .invalidParams(path: place(i, j), "\"\(k)\" is already \(other)'s key") }
                seen[k] = place(i, j)
            }
            out.append(keys)
        }
        var seenSections: [String: Int] = [:]
        for (i, k) in sectionKeys.enumerated() {
            guard let k else { continue }
            if let other = seenSections[k] { throw .invalidParams(path: "sections[\(i)].key", "\"\(k)\" is already sections[\(other)].key") }
            seenSections[k] = i
        }
        return out
    }

    static func indexPath(_ v: JSONValue?, path: String) throws(RPCError) -> RangePath {
        let p = try [Int].decodeParam(v ?? .null, path: path)
        guard p.count == 2 else { throw .invalidParams(path: path, "expected an index path [section, row]") }
        return RangePath(p[0], p[1])
    }

    /// One update of a batch, every member checked. `data`: a cell session's data for inserted items;
    /// `reuse`: the reuse identifiers of inserted sections.
    static func batchUpdate(_ u: JSONObject, path: String) throws(RPCError)
        -> (op: RangeBatchOp, data: [JSONValue]?, sections: [RangeSectionInfo]?) {
        guard let name = u["op"]?.stringValue else {
            throw .invalidParams(path: "\(path)op", "is required: deleteItems, insertItems, moveItem, reloadItems, setLengths, insertSections, deleteSections or moveSection")
        }
        let members: [String]
        switch name {
        case "deleteItems", "reloadItems": members = ["paths"]
        case "insertItems": members = ["at", "lengths", "keys", "data"]
        case "moveItem", "moveSection": members = ["from", "to"]
        case "setLengths": members = ["paths", "lengths"]
        case "insertSections": members = ["at", "sections"]
        case "deleteSections": members = ["sections"]
        default:
            throw .invalidParams(path: "\(path)op", "unknown op \"\(name)\" (deleteItems, insertItems, moveItem, reloadItems, setLengths, insertSections, deleteSections, moveSection)")
        }
        for key in u.keys where key != "op" && !members.contains(key) {
            throw .invalidParams(path: "\(path)\(key)", "unknown member of \(name) (known: \(members.joined(separator: ", ")))")
        }
        func paths() throws(RPCError) -> [RangePath] {
            guard case .array(let list)? = u["paths"], !list.isEmpty else { throw .invalidParams(path: "\(path)paths", "expected a non-empty array of index paths") }
            var out: [RangePath] = []
            for (k, v) in list.enumerated() { out.append(try indexPath(v, path: "\(path)paths[\(k)]")) }
            return out
        }
        switch name {
        case "deleteItems": return (.deleteItems(try paths()), nil, nil)
        case "reloadItems": return (.reloadItems(try paths()), nil, nil)
        case "setLengths":
            let ps = try paths()
            let ls = try lengths(["lengths": u["lengths"] ?? .null], path: path)
            guard ls.count == ps.count else { throw .invalidParams(path: "\(path)lengths", "has \(ls.count) lengths for \(ps.count) paths") }
            return (.setLengths(ps, ls), nil, nil)
        case "insertItems":
            let at = try indexPath(u["at"], path: "\(path)at")
            guard u["lengths"] != nil else { throw .invalidParams(path: "\(path)lengths", "is required (at least one length)") }
            let ls = try lengths(["lengths": u["lengths"]!], path: path)
            guard !ls.isEmpty else { throw .invalidParams(path: "\(path)lengths", "is required (at least one length)") }
            let keys = try u["keys"].map { v throws(RPCError) in try keyList(v, path: "\(path)keys") }
            if let keys, keys.count != ls.count { throw .invalidParams(path: "\(path)keys", "has \(keys.count) keys for \(ls.count) items") }
            var data: [JSONValue]?
            if let d = u["data"] {
                guard case .array(let values) = d else { throw .invalidParams(path: "\(path)data", "expected array, got \(d.typeName)") }
                guard values.count <= ls.count else { throw .invalidParams(path: "\(path)data", "has \(values.count) entries for \(ls.count) items") }
                data = values
            }
            return (.insertItems(at: at, RangeItems(lengths: ls, keys: keys)), data, nil)
        case "moveItem":
            return (.moveItem(from: try indexPath(u["from"], path: "\(path)from"), to: try indexPath(u["to"], path: "\(path)to")), nil, nil)
        case "moveSection":
            return (.moveSection(from: try Int.decodeParam(u["from"] ?? .null, path: "\(path)from"),
                                 to: try Int.decodeParam(u["to"] ?? .null, path: "\(path)to")), nil, nil)
        case "deleteSections":
            let list = try [Int].decodeParam(u["sections"] ?? .null, path: "\(path)sections")
            guard !list.isEmpty else { throw .invalidParams(path: "\(path)sections", "must not be empty") }
            return (.deleteSections(list), nil, nil)
        default:  // insertSections
            let at = try Int.decodeParam(u["at"] ?? .null, path: "\(path)at")
            guard case .array(let list)? = u["sections"], !list.isEmpty else {
                throw .invalidParams(path: "\(path)sections", "expected a non-empty array of sections")
            }
            var specs: [RangeSectionItems] = []
            var infos: [RangeSectionInfo] = []
            for (k, v) in list.enumerated() {
                guard case .object(let o) = v else { throw .invalidParams(path: "\(path)sections[\(k)]", "expected object, got \(v.typeName)") }
                let sec = try section(o, path: "\(path)sections[\(k)].")
                specs.append(RangeSectionItems(items: RangeItems(lengths: sec.lengths, keys: sec.keys), key: sec.key))
                infos.append(sec.info)
            }
            return (.insertSections(at: at, specs), nil, infos)
        }
    }

    /// Applies a checked batch: the session, then its sections' info and cells (deleted items' cells
    /// let go, the rest follow their items, reloaded ones bind again), then one update with its events.
    /// Returns the reply: the summary with `applied`.
    func applyBatch(_ e: RangeEntry, _ ops: [RangeBatchOp], data: [(update: Int, values: [JSONValue])],
                    sections: [Int: [RangeSectionInfo]]) async throws(RPCError) -> JSONObject {
        let s = e.session
        let oldInfo = e.sectionInfo
        let r = try mappingErrors(RPCError.init) { () throws(RangeBatchError) in try s.performBatch(ops) }
        var notes = RangeChangeNotes()
        var oldPaths: [Int: JSONValue] = [:]
        for d in r.deleted { oldPaths[d.flat] = Self.pathJSON(d.path) }
        for d in r.deleted where d.inRange { notes.removed.append((oldPaths[d.flat]!, d.key)) }
        for m in r.moved where m.inRange {
            notes.moved.append(["from": Self.pathJSON(m.fromPath), "to": pathJSON(s, m.to)])
        }
        // Sections' info follows its sections; inserted ones' comes from their updates.
        var insertedAt: [Int: RangeSectionInfo] = [:]
        for (u, op) in ops.enumerated() {
            if case .insertSections(let at, let specs) = op {
                for k in 0..<specs.count { insertedAt[at + k] = sections[u]?[k] ?? RangeSectionInfo() }
            }
        }
        e.sectionInfo = r.sectionSources.enumerated().map { j, source in
            if let o = source { return o < oldInfo.count ? oldInfo[o] : RangeSectionInfo() }
            return insertedAt[j] ?? RangeSectionInfo()
        }
        await itemsRemapped(e, r.newFlat, oldPath: { oldPaths[$0] ?? .null }, notes: &notes)
        if let cells = e.cells {
            for d in data {
                guard case .insertItems(let at, _) = ops[d.update] else { continue }
                for (k, v) in d.values.enumerated() {
                    if let f = s.flatIndex(section: at.section, row: at.row + k) { cells.data[f] = v }
                }
            }
            for f in r.reloaded {
                cells.versions[f] = (cells.versions[f] ?? 0) + 1
                if cells.bound[f] != nil { notes.rebind.append(f) }
            }
            // A cell moved into a section of another class binds afresh.
            for m in r.moved {
                if let c = cells.bound[m.to], let cls = await cellClass(e, m.to), cls.name != c.className { notes.rebind.append(m.to) }
            }
        }
        await refresh(e, checkBatch: !s.dragging, notes: notes)
        var reply = summary(e)
        reply["applied"] = ["deleted": .int(r.deleted.count), "inserted": .int(r.inserted.count), "moved": .int(r.moved.count),
                            "reloaded": .int(r.reloaded.count), "resized": .int(r.resized.count)]
        return reply
    }
}
