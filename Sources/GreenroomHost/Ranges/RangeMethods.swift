import GreenroomCore
import GreenroomJSON
import GreenroomRPC

extension RangeSessions {
    /// Lengths from `count` + `itemLength` or `lengths`, checked finite and >= 0.
    static func lengths(_ o: JSONObject, path: String) throws(RPCError) -> [Double] {
        if let l = o["lengths"], !l.isNull {
            guard case .array(let items) = l else { throw .invalidParams(path: "\(path)lengths", "expected array, got \(l.typeName)") }
            var out: [Double] = []
            out.reserveCapacity(items.count)
            for (i, v) in items.enumerated() {
                guard let d = v.doubleValue, d.isFinite, d >= 0 else {
                    throw .invalidParams(path: "\(path)lengths[\(i)]", "must be a finite number >= 0")
                }
                out.append(d)
            }
            if let c = o["count"], !c.isNull, c.intValue != out.count {
                throw .invalidParams(path: "\(path)count", "does not match lengths (\(out.count))")
            }
            guard out.reduce(0, +).isFinite else { throw .invalidParams(path: "\(path)lengths", "add up to more than a finite content length") }
            return out
        }
        let count = try o["count"].map { v throws(RPCError) in try Int.decodeParam(v, path: "\(path)count") } ?? 0
        guard count >= 0, count <= RangeSession.maxItems else { throw .invalidParams(path: "\(path)count", "must be between 0 and 10000000") }
        let length = try o["itemLength"].map { v throws(RPCError) in try Double.decodeParam(v, path: "\(path)itemLength") } ?? 44
        guard length >= 0 else { throw .invalidParams(path: "\(path)itemLength", "must be >= 0") }
        guard (length * Double(count)).isFinite else { throw .invalidParams(path: "\(path)itemLength", "times count is not a finite content length") }
        return Array(repeating: length, count: count)
    }

    static func tuning(_ o: JSONObject?) throws(RPCError) -> RangeTuning {
        var t = RangeTuning.texture
        guard let o else { return t }
        for (modeName, value) in o.members {
            guard let mode = RangeMode(rawValue: modeName) else {
                throw .invalidParams(path: "tuning.\(modeName)", "unknown mode (modes: full, minimum, visibleOnly, lowMemory)")
            }
            guard case .object(let types) = value else { throw .invalidParams(path: "tuning.\(modeName)", "expected object") }
            for (typeName, b) in types.members {
                guard let type = RangeType(rawValue: typeName) else {
                    throw .invalidParams(path: "tuning.\(modeName).\(typeName)", "unknown range type (display, preload)")
                }
                guard case .object(let bo) = b else { throw .invalidParams(path: "tuning.\(modeName).\(typeName)", "expected object") }
                var buffer = t.buffer(mode, type)
                for key in bo.keys where key != "leading" && key != "trailing" {
                    throw .invalidParams(path: "tuning.\(modeName).\(typeName).\(key)", "unknown member (leading, trailing)")
                }
                for side in ["leading", "trailing"] {
                    guard let v = bo[side] else { continue }
                    let path = "tuning.\(modeName).\(typeName).\(side)"
                    let screens = try Double.decodeParam(v, path: path)
                    guard screens >= 0, screens <= 1000 else { throw .invalidParams(path: path, "must be between 0 and 1000 screens") }
                    if side == "leading" { buffer.leading = screens } else { buffer.trailing = screens }
                }
                t.buffers[mode, default: [:]][type] = buffer
            }
        }
        return t
    }

    func viewport(_ v: JSONObject, _ name: String = "viewport") throws(RPCError) -> (width: Double, height: Double) {
        for key in v.keys where key != "width" && key != "height" {
            throw .invalidParams(path: "\(name).\(key)", "unknown member (width, height)")
        }
        guard let w = v["width"]?.doubleValue, w > 0, w.isFinite else { throw .invalidParams(path: "\(name).width", "must be a number > 0") }
        guard let h = v["height"]?.doubleValue, h > 0, h.isFinite else { throw .invalidParams(path: "\(name).height", "must be a number > 0") }
        return (w, h)
    }

    func offset(_ x: Double?, _ e: RangeEntry) throws(RPCError) -> Double? {
        guard let x else { return nil }
        try mapped { () throws(RangeError) in try e.session.checkOffset(x) }
        return x
    }

    /// An optional `velocity` (points/ms, positive toward the tail), finite.
    func velocity(_ v: Double?) throws(RPCError) -> Double? {
        guard let v else { return nil }
        guard v.isFinite else { throw .invalidParams(path: "velocity", "must be a finite number") }
        return v
    }

    /// A scroll step's move (`range.didScroll`).
    private func scrolled(_ e: RangeEntry, _ p: RangeDidScroll.Params) throws(RPCError) {
        let v = try velocity(p.velocity)
        try mapped { () throws(RangeError) in try e.session.didScroll(to: p.offset, velocity: v) }
    }

    func registerRangeMethods(into r: inout MethodRegistry<HostConnection>) {
        r.register(RangeCreate.self) { [unowned self] conn, p async throws(RPCError) in
            var sections: [[Double]] = []
            var infos: [RangeSectionInfo] = []
            var itemKeys: [[String]?] = []
            var sectionKeys: [String?] = []
            if let list = p.sections {
                guard p.count == nil && p.lengths == nil && p.keys == nil else {
                    throw .invalidParams(path: "sections", "give sections or count/lengths/keys, not both")
                }
                for (i, s) in list.enumerated() {
                    let section = try Self.section(s, path: "sections[\(i)].")
                    sections.append(section.lengths)
                    itemKeys.append(section.keys)
                    sectionKeys.append(section.key)
                    infos.append(section.info)
                }
                guard !sections.isEmpty else { throw .invalidParams(path: "sections", "must not be empty") }
            } else {
                var section = JSONObject()
                if let count = p.count { section["count"] = .int(count) }
                if let itemLength = p.itemLength { section["itemLength"] = .double(itemLength) }
                if let lengths = p.lengths { section["lengths"] = lengths }
                if let keys = p.keys { section["keys"] = .array(keys.map { .string($0) }) }
                let only = try Self.section(section, path: "")
                sections = [only.lengths]
                itemKeys = [only.keys]
                sectionKeys = [nil]
            }
            let keys = try Self.sessionKeys(itemKeys, counts: sections.map(\.count), sectionKeys, single: p.sections == nil)
            guard sections.reduce(0, { $0 + $1.count }) <= RangeSession.maxItems else { throw .invalidParams(path: "count", "at most 10000000 items") }
            let vp = try viewport(p.viewport)
            let horizontal = p.axis == "horizontal"
            let tuning = try Self.tuning(p.tuning)
            var leading = 2.0, prepend = false
            if let b = p.batch {
                for key in b.keys where key != "leadingScreens" && key != "prepend" {
                    throw .invalidParams(path: "batch.\(key)", "unknown member (leadingScreens, prepend)")
                }
                if let v = b["leadingScreens"] { leading = try Double.decodeParam(v, path: "batch.leadingScreens") }
                if let v = b["prepend"] { prepend = try Bool.decodeParam(v, path: "batch.prepend") }
            }
            var strategy = BatchStrategy.ranges
            if let s = p.strategy {
                switch s {
                case .string("ranges"): strategy = .ranges
                case .string("threshold"): strategy = .threshold(0.7)
                case .string("dynamicThreshold"): strategy = .dynamicThreshold(0.7)
                case .object(let o):
                    for key in o.keys where key != "name" && key != "ratio" {
                        throw .invalidParams(path: "strategy.\(key)", "unknown member (name, ratio)")
                    }
                    let name = o["name"]?.stringValue ?? ""
                    let ratio = try o["ratio"].map { v throws(RPCError) in try Double.decodeParam(v, path: "strategy.ratio") } ?? 0.7
                    guard ratio > 0, ratio <= 1 else { throw .invalidParams(path: "strategy.ratio", "must be in (0, 1]") }
                    switch name {
                    case "ranges": strategy = .ranges
                    case "threshold": strategy = .threshold(ratio)
                    case "dynamicThreshold": strategy = .dynamicThreshold(ratio)
                    default: throw .invalidParams(path: "strategy.name", "must be ranges, threshold or dynamicThreshold")
                    }
                default:
                    throw .invalidParams(path: "strategy", "must be \"ranges\", \"threshold\", \"dynamicThreshold\" or {name, ratio}")
                }
            }
            // Every param is decoded before the session exists: a refused create leaves nothing behind
            // (no session, no event, no id used up).
            let lazy = p.lazy ?? false
            let visible = p.visible ?? true
            let templates = p.templates ?? false
            var cellOptions: RangeCells?
            if let c = p.cells {
                for key in c.keys where key != "reuseLimit" {
                    throw .invalidParams(path: "cells.\(key)", "unknown member (known: reuseLimit)")
                }
                let limit = try c["reuseLimit"].map { v throws(RPCError) in try Int.decodeParam(v, path: "cells.reuseLimit") } ?? 8
                guard limit >= 0, limit <= 1000 else { throw .invalidParams(path: "cells.reuseLimit", "must be between 0 and 1000") }
                guard infos.contains(where: { $0.reuseIdentifier.map { classes[$0] != nil } ?? false }) else {
                    throw .invalidParams(path: "cells", "no section's reuseIdentifier names a class: cells need one")
                }
                cellOptions = RangeCells(reuseLimit: limit)
            }
            let total = sections.reduce(0, { $0 + $1.count })
            if let d = p.data {
                guard cellOptions != nil else { throw .invalidParams(path: "data", "item data is for cells: give cells too") }
                guard d.count <= total else { throw .invalidParams(path: "data", "has \(d.count) entries for \(total) items") }
            }
            let viewability = try Self.viewabilityThresholds(p.viewability)
            let grid = try Self.gridLayout(p.layout, sections: sections, single: p.sections == nil)
            if p.visible != nil, p.parent != nil || p.page != nil {
                throw .invalidParams(path: "visible", "a nested session's visibility follows its parent: give parent/page or visible, not both")
            }
            // The parent is looked up last: every param above is checked first.
            let parent = try nestedParent(p.parent, page: p.page, owner: conn)
            let session = RangeSession(id: makeID(), sections: sections,
                                       viewportLength: horizontal ? vp.width : vp.height,
                                       viewportCross: horizontal ? vp.height : vp.width, horizontal: horizontal,
                                       tuning: tuning, leadingScreens: leading, prepend: prepend, strategy: strategy,
                                       lazy: lazy, visible: visible, keys: keys, sectionKeys: sectionKeys, grid: grid)
            let e = RangeEntry(session: session, owner: conn,
                               sectionInfo: infos.isEmpty ? Array(repeating: RangeSectionInfo(), count: sections.count) : infos)
            if let cells = cellOptions {
                for (i, d) in (p.data ?? []).enumerated() { cells.data[i] = d }
                e.cells = cells
            }
            e.viewability = viewability.map(RangeViewability.init)
            sessions[session.id] = e
            if e.cells != nil { sessionsWithCells += 1 }
            if let parent {
                attach(e, to: parent, item: try? Self.indexPath(p.parent?["item"], path: "parent.item"))
                await setNested(e, nestedState(e), announce: false)
            }
            await refresh(e, checkBatch: true)
            var reply = summary(e)
            if templates { reply["templatesQueued"] = .int(await queueTemplates(e, cause: conn)) }
            return .object(reply)
        }
        r.register(RangeWillBeginDragging.self) { [unowned self] conn, p async throws(RPCError) in
            let e = try entry(p.session, owner: conn)
            let x = try offset(p.offset, e)
            let v = try velocity(p.velocity)
            e.session.willBeginDragging(velocity: v)
            // Where the drag starts: a layout, no motion yet (the velocity's, when sent).
            if let x { try mapped { () throws(RangeError) in try e.session.didScroll(to: x, velocity: v ?? 0) } }
            trackingChanged()
            await refresh(e, checkBatch: false)
            return .object(summary(e))
        }
        // Texture's scrollViewDidScroll: batch fetching is judged only when visible and not dragging
        // (decelerating or programmatic). A session with cells or nested sessions binds cells as it
        // scrolls (its steps may wait); any other runs each step where it is read, with no task.
        r.register(RangeDidScroll.self, encoded: { [unowned self] conn, p throws(RPCError) in
            let e = try entry(p.session, owner: conn)
            guard RangeSessions.canRefreshNow(e) else {
                throw RPCError(.internalError, "Internal error: a scroll step that binds cells was not taken to run in a task",
                               ["session": .string(p.session)])
            }
            try scrolled(e, p)
            refreshNow(e, checkBatch: !e.session.dragging && e.session.isVisible)
            return streamReply(e)
        }, waiting: { [unowned self] conn, p async throws(RPCError) in
            let e = try entry(p.session, owner: conn)
            try scrolled(e, p)
            await refresh(e, checkBatch: !e.session.dragging && e.session.isVisible)
            return streamReply(e)
        })
        r.register(RangeWillEndDragging.self) { [unowned self] conn, p async throws(RPCError) in
            let e = try entry(p.session, owner: conn)
            // Every param is checked before anything moves: bad input changes nothing.
            let v = p.velocity
            let t = p.targetOffset
            if let t {
                try mappingErrors({ _ in .invalidParams(path: "targetOffset", "\(t) is outside the content") }) { () throws(RangeError) in
                    try e.session.checkOffset(t)
                }
            }
            let x = try offset(p.offset, e)
            guard e.session.dragging else {
                throw RPCError(RangeError.outOfOrder(.willEndDragging, phase: e.session.phase))
            }
            if let x { try mapped { () throws(RangeError) in try e.session.didScroll(to: x) } }
            let target = try mapped { () throws(RangeError) in try e.session.willEndDragging(velocity: v, target: t) }
            trackingChanged()
            // Judged at the target, toward it (Texture's scrollViewWillEndDragging).
            await refresh(e, checkBatch: true, batchOffset: target)
            return ["session": .string(e.session.id), "targetOffset": .double(target)]
        }
        r.register(RangeDidEndDecelerating.self) { [unowned self] conn, p async throws(RPCError) in
            let e = try entry(p.session, owner: conn)
            let x = try offset(p.offset, e)
            var decided: Bool?
            try mapped { () throws(RangeError) in
                try e.session.checkCanEndDecelerating()  // out of order: nothing moves
                if let x {
                    // The motion's last step: a didScroll while still decelerating (judged toward the target).
                    try e.session.didScroll(to: x)
                    if !e.session.dragging && e.session.isVisible { decided = e.session.batchDecision() }
                }
                let wasDragging = e.session.dragging
                try e.session.didEndDecelerating()
                // A drag ended here without range.willEndDragging: judged as a release at rest (UIKit
                // always calls willEndDragging, where Texture judges).
                if wasDragging { decided = e.session.batchDecision() }
            }
            trackingChanged()
            await refresh(e, checkBatch: false, decided: decided)
            return .object(summary(e))
        }
        r.register(RangeSetVisible.self) { [unowned self] conn, p async throws(RPCError) in
            let e = try entry(p.session, owner: conn)
            let changed = e.session.setVisible(p.visible)
            // Texture's didMoveToWindow: once on screen, a batch is judged with the leading screens.
            await refresh(e, checkBatch: changed && e.session.isVisible && !e.session.dragging)
            return .object(summary(e))
        }
        r.register(RangeSetViewport.self) { [unowned self] conn, p async throws(RPCError) in
            // Every member given is checked, the one that is used or not, before the session is looked up.
            let vp: (width: Double, height: Double)
            if p.viewport != nil, p.width != nil || p.height != nil {
                throw .invalidParams(path: p.width != nil ? "width" : "height", "give viewport or width and height, not both")
            }
            if let v = p.viewport { vp = try viewport(v) } else {
                guard let width = p.width else { throw .invalidParams(path: "width", "is required") }
                guard let height = p.height else { throw .invalidParams(path: "height", "is required") }
                let s = try Containers.size(width: width, height: height)
                vp = (s.width, s.height)
            }
            let e = try entry(p.session, owner: conn)
            let h = e.session.horizontal
            e.session.setViewport(length: h ? vp.width : vp.height, cross: h ? vp.height : vp.width)
            await refresh(e, checkBatch: false)
            return .object(summary(e))
        }
        r.register(RangeInsertItems.self) { [unowned self] conn, p async throws(RPCError) in
            let at = p.at
            guard at.count == 2 else { throw .invalidParams(path: "at", "expected an index path [section, row]") }
            let lengths = try Self.lengths(["lengths": p.lengths], path: "")
            guard !lengths.isEmpty else { throw .invalidParams(path: "lengths", "is required (at least one length)") }
            if let d = p.data, d.count > lengths.count {
                throw .invalidParams(path: "data", "has \(d.count) entries for \(lengths.count) items")
            }
            let e = try entry(p.session, owner: conn)
            if p.data != nil, e.cells == nil { throw .invalidParams(path: "data", "item data is for a session with cells") }
            let flat = try mapped { () throws(RangeError) in try e.session.insert(section: at[0], row: at[1], lengths: lengths, keys: p.keys,
                                                                                  keepOnScreen: p.keepOnScreen ?? false) }
            await itemsInserted(e, at: flat, count: lengths.count)
            for (i, d) in (p.data ?? []).enumerated() { e.cells?.data[flat + i] = d }
            // Texture re-checks after a data change with changes, unless dragging.
            await refresh(e, checkBatch: !e.session.dragging)
            return .object(summary(e))
        }
        r.register(RangeDeleteItems.self) { [unowned self] conn, p async throws(RPCError) in
            let e = try entry(p.session, owner: conn)
            let list = p.paths
            var flats: [Int] = []
            for (i, path) in list.enumerated() {
                guard path.count == 2, let f = e.session.flatIndex(section: path[0], row: path[1]) else {
                    throw .invalidParams(path: "paths[\(i)]", "\(path) is not an item")
                }
                flats.append(f)
            }
            guard Set(flats).count == flats.count else { throw .invalidParams(path: "paths", "lists an item twice") }
            var notes = RangeChangeNotes()
            // Highest first, so the paths of the rest stay valid while deleting.
            for f in flats.sorted(by: >) {
                let path = pathJSON(e.session, f)
                await itemRemoved(e, flat: f, path: path, notes: &notes)
                let key = e.session.key(f)
                if e.session.remove(flat: f) { notes.removed.append((path, key)) }
            }
            await refresh(e, checkBatch: !e.session.dragging, notes: notes)
            return .object(summary(e))
        }
        r.register(RangeBatchFetchDone.self) { [unowned self] conn, p async throws(RPCError) in
            let lengths = try Self.lengths(["lengths": p.lengths ?? .array([])], path: "")
            let e = try entry(p.session, owner: conn)
            let context = p.context
            let at = try mapped { () throws(RangeError) in try e.session.finishBatch(context: context, lengths: lengths, keys: p.keys) }
            // A prepended batch moves everything kept by item down with its item.
            await itemsInserted(e, at: at, count: lengths.count)
            // An exhausted backend (no items) gets no re-check: Texture runs none after a change with
            // zero changes, so a finished list does not ask again and again.
            await refresh(e, checkBatch: !lengths.isEmpty && !e.session.dragging)
            return .object(summary(e))
        }
        r.register(RangeState.self) { [unowned self] conn, p throws(RPCError) in
            let e = try entry(p.session, owner: conn)
            let s = e.session
            if let list = p.paths {
                var items: [JSONValue] = []
                for (i, path) in list.enumerated() {
                    guard path.count == 2, let f = s.flatIndex(section: path[0], row: path[1]) else {
                        throw .invalidParams(path: "paths[\(i)]", "\(path) is not an item")
                    }
                    let st = s.state(f)
                    var item: JSONObject = ["path": pathJSON(s, f), "preload": .bool(st.preload), "display": .bool(st.display), "visible": .bool(st.visible)]
                    if let key = s.key(f) { item["key"] = .string(key) }
                    items.append(.object(item))
                }
                return ["mode": .string(s.mode.rawValue), "direction": .string(s.direction.wireName), "items": .array(items)]
            }
            var state: JSONObject = ["mode": .string(s.mode.rawValue), "direction": .string(s.direction.wireName),
                                     "visible": paths(s, s.members(RangeSpan(s.visible))),
                                     "display": paths(s, s.members(s.display)),
                                     "preload": paths(s, s.members(s.preload))]
            if s.keyed {
                state["keys"] = keyLists(s, visible: s.members(RangeSpan(s.visible)), display: s.members(s.display), preload: s.members(s.preload))
            }
            if e.cells != nil { state["cells"] = cellsState(e) }
            if !e.nested.isEmpty { state["nested"] = nestedState(of: e) }
            if e.hasHeaders { state["headers"] = headersJSON(headers(e)) }
            if let viewable = viewableState(e) { state["viewable"] = viewable }
            return .object(state)
        }
        r.register(RangeSetItemData.self) { [unowned self] conn, p async throws(RPCError) in
            guard !p.items.isEmpty, p.items.count <= 100_000 else { throw .invalidParams(path: "items", "must have 1 to 100000 entries") }
            // Every item is checked before anything changes: its shape first, then whether it is an item.
            var given: [(path: [Int], data: JSONValue, version: Int?)] = []
            for (i, item) in p.items.enumerated() {
                for key in item.keys where !["path", "data", "version"].contains(key) {
                    throw .invalidParams(path: "items[\(i)].\(key)", "unknown member (known: path, data, version)")
                }
                let path = try [Int].decodeParam(item["path"] ?? .null, path: "items[\(i)].path")
                guard path.count == 2 else { throw .invalidParams(path: "items[\(i)].path", "expected an index path [section, row]") }
                guard let data = item["data"] else { throw .invalidParams(path: "items[\(i)].data", "is required") }
                let version = try item["version"].map { v throws(RPCError) in try Int.decodeParam(v, path: "items[\(i)].version") }
                if let version, version < 0 { throw .invalidParams(path: "items[\(i)].version", "must be >= 0") }
                given.append((path, data, version))
            }
            let e = try entry(p.session, owner: conn)
            guard let cells = e.cells else {
                throw .invalidState("Range session \(e.session.id) has no cells: item data is for cells (range.create {cells})",
                                    ["session": .string(e.session.id)])
            }
            var changes: [(flat: Int, data: JSONValue, version: Int?)] = []
            for (i, item) in given.enumerated() {
                guard let f = e.session.flatIndex(section: item.path[0], row: item.path[1]) else {
                    throw .invalidParams(path: "items[\(i)].path", "\(item.path) is not an item")
                }
                changes.append((f, item.data, item.version))
            }
            var rebound: [JSONValue] = []
            for change in changes {
                cells.data[change.flat] = change.data
                // No version given: the data changed (the row is dirty).
                cells.versions[change.flat] = change.version ?? ((cells.versions[change.flat] ?? 0) + 1)
                guard let c = cells.bound[change.flat], !c.isDestroyed,
                      cells.shown[c.id].map({ $0.flat != change.flat || $0.version != cells.versions[change.flat] }) ?? true
                else { continue }
                let output = try await containers.configure(c, data: change.data)
                cells.shown[c.id] = (change.flat, cells.versions[change.flat] ?? 0)
                cells.configured += 1
                rebound.append(["path": pathJSON(e.session, change.flat), "container": .string(c.id), "output": output])
            }
            return ["session": .string(e.session.id), "items": .int(changes.count), "rebound": .array(rebound)]
        }
        r.register(RangePerformBatchUpdates.self) { [unowned self] conn, p async throws(RPCError) in
            guard !p.updates.isEmpty, p.updates.count <= 100_000 else { throw .invalidParams(path: "updates", "must have 1 to 100000 entries") }
            var ops: [RangeBatchOp] = []
            var data: [(update: Int, values: [JSONValue])] = []
            var infos: [Int: [RangeSectionInfo]] = [:]
            for (i, u) in p.updates.enumerated() {
                let decoded = try Self.batchUpdate(u, path: "updates[\(i)].")
                ops.append(decoded.op)
                if let d = decoded.data { data.append((i, d)) }
                if let r = decoded.sections { infos[i] = r }
            }
            let e = try entry(p.session, owner: conn)
            if !data.isEmpty, e.cells == nil { throw .invalidParams(path: "updates[\(data[0].update)].data", "item data is for a session with cells") }
            return .object(try await applyBatch(e, ops, data: data, sections: infos))
        }
        r.register(RangeApplySnapshot.self) { [unowned self] conn, p async throws(RPCError) in
            // Params first: an empty list is refused before the session is looked at.
            guard !p.sections.isEmpty else { throw .invalidParams(path: "sections", "lists no section (a session has at least one)") }
            var given: [(keys: [String], lengths: [Double]?)] = []
            var seen: [String: String] = [:]
            for (i, sec) in p.sections.enumerated() {
                for key in sec.keys where key != "keys" && key != "lengths" {
                    throw .invalidParams(path: "sections[\(i)].\(key)", "unknown member (known: keys, lengths)")
                }
                let keys = try [String].decodeParam(sec["keys"] ?? .null, path: "sections[\(i)].keys")
                for (j, k) in keys.enumerated() {
                    let here = "sections[\(i)].keys[\(j)]"
                    guard !k.isEmpty, k.utf8.count <= 256 else { throw .invalidParams(path: here, "a key is 1 to 256 bytes") }
                    if let other = seen[k] { throw .invalidParams(path: here, "\"\(k)\" is already \(other)") }
                    seen[k] = here
                }
                var lengths: [Double]?
                if let l = sec["lengths"] {
                    lengths = try Self.lengths(["lengths": l], path: "sections[\(i)].")
                    guard lengths!.count == keys.count else {
                        throw .invalidParams(path: "sections[\(i)].lengths", "has \(lengths!.count) lengths for \(keys.count) keys")
                    }
                }
                given.append((keys, lengths))
            }
            let e = try entry(p.session, owner: conn)
            let s = e.session
            guard s.keyed else {
                throw .invalidState("Range session \(s.id) has no keys: a snapshot is for a keyed session (range.create {keys})", ["session": .string(s.id)])
            }
            guard given.count == s.sectionCount else {
                throw .invalidParams(path: "sections", "has \(given.count) sections; the session has \(s.sectionCount) (change sections with range.performBatchUpdates)")
            }
            for (i, g) in given.enumerated() where g.lengths == nil {
                if let j = g.keys.firstIndex(where: { !s.hasKey($0) }) {
                    throw .invalidParams(path: "sections[\(i)].lengths", "is required: keys[\(j)] (\"\(g.keys[j])\") is new")
                }
            }
            let ops = s.snapshotUpdates(given)
            guard !ops.isEmpty else {
                var reply = summary(e)
                reply["applied"] = ["deleted": 0, "inserted": 0, "moved": 0, "reloaded": 0, "resized": 0]
                return .object(reply)
            }
            return .object(try await applyBatch(e, ops, data: [], sections: [:]))
        }
        r.register(RangeDestroy.self) { [unowned self] conn, p async throws(RPCError) in
            let e = try entry(p.session, owner: conn)
            await end(e)
            trackingChanged()
            return ["session": .string(e.session.id), "destroyed": true]
        }
    }
}
