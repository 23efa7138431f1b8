import GreenroomCore
import GreenroomJSON
import GreenroomRPC

/// Rows as containers (`range.create {cells}`): UITableView's cells, MDTable's rows, Texture's cell nodes.
///
/// An item that enters the display range gets a container of the class its section's `reuseIdentifier`
/// names: from that identifier's reuse queue (UITableView's `dequeueReusableCell`; the cell that last showed
/// the item first, as RecyclerView's scrap is matched by position), else a template from
/// the prerender pool at the row's size (a hit), else a new one. It joins the session
/// (`willMoveToParent` / `didMoveToParent` with the session's id), is bound to the item's data with
/// `configure` unless it last showed that item at that data version (MDTable's `isDirty`), and loads and
/// lays out at the row's size. It appears when the item becomes visible and disappears when it stops
/// being visible; when the item leaves the display range (or is deleted) it goes back to its queue, or is
/// released (`willMoveToParent(null)`, `didMoveToParent(null)`, `deinit`) past `reuseLimit`. Each update's
/// `range` event says which container shows which item and whether it was reused.
final class RangeCells {
    let reuseLimit: Int
    /// Bound cells by flat index.
    var bound: [Int: ContainerRecord] = [:]
    /// Parked cells per class, the longest parked first.
    var queues: [String: [ContainerRecord]] = [:]
    /// Item data and its version, by flat index (sparse: items without data have version 0).
    var data: [Int: JSONValue] = [:]
    var versions: [Int: Int] = [:]
    /// What each cell was last configured with: the item's flat index and data version.
    var shown: [String: (flat: Int, version: Int)] = [:]
    /// Counters for `range.state`.
    var made = 0, reused = 0, fromPool = 0, configured = 0, skipped = 0, released = 0

    init(reuseLimit: Int) { self.reuseLimit = reuseLimit }

    var parked: Int { queues.values.reduce(0) { $0 + $1.count } }

    /// Moves every flat index `>= at` by `k` (inserts: k > 0; a delete: the item at `at` is gone first).
    func shift(from at: Int, by k: Int) { remap { $0 >= at ? $0 + k : $0 } }

    /// Moves every binding, datum and version to its item's new flat index (nil: the item is gone).
    func remap(_ newFlat: (Int) -> Int?) {
        func moved<V>(_ d: [Int: V]) -> [Int: V] {
            var out: [Int: V] = [:]
            for (f, v) in d { if let n = newFlat(f) { out[n] = v } }
            return out
        }
        bound = moved(bound)
        data = moved(data)
        versions = moved(versions)
        for (id, s) in shown { shown[id] = newFlat(s.flat).map { ($0, s.version) } }
    }
}

extension RangeSessions {
    /// The row size of flat index `f`: the viewport's cross size by the item's length.
    /// The size of item `f`'s cell: its length along the axis by the viewport's cross size (a grid's:
    /// by one column's width, the spacing between columns taken out).
    func rowSize(_ s: RangeSession, _ f: Int) -> Size {
        var cross = s.viewportCross
        if let g = s.grid { cross = (cross - g.spacing * Double(g.columns - 1)) / Double(g.columns) }
        let length = max(1, s.tree.length(at: f))
        cross = max(1, cross)
        return s.horizontal ? Size(width: length, height: cross) : Size(width: cross, height: length)
    }

    /// The class of the cells of flat index `f`'s section, when its reuse identifier names one.
    func cellClass(_ e: RangeEntry, _ f: Int) async -> ContainerClass? {
        let section = e.session.path(f).section
        guard section < e.sectionInfo.count, let name = e.sectionInfo[section].reuseIdentifier else { return nil }
        return classes[name]
    }

    /// Applies one update to the cells: what stopped being visible disappears, what left the display range
    /// (or was `removed`) goes back to its queue, what entered it is bound, what became visible appears.
    /// Returns the `cells` member of the update's `range` event (nil: nothing changed).
    func applyCells(_ e: RangeEntry, _ u: RangeUpdate, removedCells: [(path: JSONValue, cell: ContainerRecord)],
                    rebind: [Int] = []) async -> JSONValue? {
        guard let cells = e.cells else { return nil }
        let s = e.session
        let containers = self.containers
        var boundJSON: [JSONValue] = [], unboundJSON: [JSONValue] = []
        for f in u.exitVisible {
            guard let c = cells.bound[f], !c.isFailed, !c.isDestroyed else { continue }
            if await containers.failure(performing: containers.lifecycle.disappear(c)) != nil { await forgetCell(e, c) }
        }
        for (path, c) in removedCells { unboundJSON.append(await unbind(e, c, path: path)) }
        // A reloaded item's cell lets go and the item is bound again, as UIKit replaces a reloaded cell
        // (the same cell usually comes back from the queue, configured with the item's new version).
        var again: [Int] = []
        for f in rebind where !u.exitDisplay.contains(f) {
            guard let c = cells.bound.removeValue(forKey: f) else { continue }
            unboundJSON.append(await unbind(e, c, path: pathJSON(s, f)))
            again.append(f)
        }
        for f in u.exitDisplay {
            guard let c = cells.bound.removeValue(forKey: f) else { continue }
            unboundJSON.append(await unbind(e, c, path: pathJSON(s, f)))
        }
        for f in u.enterDisplay where cells.bound[f] == nil {
            if let b = await bind(e, f) { boundJSON.append(b) }
        }
        for f in again where cells.bound[f] == nil && s.state(f).display {
            guard let b = await bind(e, f) else { continue }
            boundJSON.append(b)
            if s.state(f).visible, let c = cells.bound[f], !u.enterVisible.contains(f),
               await containers.failure(performing: containers.lifecycle.appear(c, size: rowSize(s, f))) != nil { await forgetCell(e, c) }
        }
        for f in u.enterVisible {
            guard let c = cells.bound[f], !c.isFailed, !c.isDestroyed else { continue }
            if await containers.failure(performing: containers.lifecycle.appear(c, size: rowSize(s, f))) != nil { await forgetCell(e, c) }
        }
        guard !boundJSON.isEmpty || !unboundJSON.isEmpty else { return nil }
        return ["bound": .array(boundJSON), "unbound": .array(unboundJSON)]
    }

    /// A cell for item `f`: queued, pooled or new; joined, configured and laid out. Nil when its class
    /// is unknown or one of its hooks failed (it is torn down, and the call's reply says so).
    private func bind(_ e: RangeEntry, _ f: Int) async -> JSONValue? {
        guard let cells = e.cells, let cls = await cellClass(e, f), let conn = e.connection else { return nil }
        let s = e.session
        let containers = self.containers
        let size = rowSize(s, f)
        var source = "new"
        var c: ContainerRecord
        if var queue = cells.queues[cls.name], !queue.isEmpty {
            // The parked cell that last showed this very item, if any (RecyclerView's scrap, matched by
            // position: rebinding it may skip `configure`); else the one parked longest.
            let i = queue.firstIndex { cells.shown[$0.id]?.flat == f } ?? 0
            c = queue.remove(at: i)
            cells.queues[cls.name] = queue
            source = "queue"
            cells.reused += 1
        } else {
            let pool = containers.pools.poolForShow(className: cls.name, size: size)
            if let warm = await containers.pools.take(from: pool, owner: conn) {
                pool.hits += 1
                containers.pools.poolEvent("hit", pool, warm, to: conn, ["session": .string(s.id)])
                await containers.pools.refill(pool, afterHit: true, cause: conn)
                c = warm
                source = "pool"
                cells.fromPool += 1
            } else {
                do throws(RPCError) { c = try await containers.create(cls, owner: e.owner, data: nil) } catch { return nil }
                cells.made += 1
            }
            c.parent = .cell(session: s.id)
            do throws(ContainerFailure) {
                try await containers.perform(containers.lifecycle.willMove(c, toParent: s.id))
                try await containers.perform(containers.lifecycle.didMove(c, toParent: s.id))
            } catch {
                await forgetCell(e, c)
                return nil
            }
        }
        cells.bound[f] = c
        let version = cells.versions[f] ?? 0
        var didConfigure = false
        if let last = cells.shown[c.id], last.flat == f, last.version == version {
            cells.skipped += 1  // MDTable's isDirty: the same row at the same data
        } else if let data = cells.data[f] {
            do throws(RPCError) { _ = try await containers.configure(c, data: data) } catch {
                cells.bound[f] = nil
                cells.shown[c.id] = nil
                return nil
            }
            cells.shown[c.id] = (f, version)
            cells.configured += 1
            didConfigure = true
        }
        if await containers.failure(performing: containers.lifecycle.loadIfNeeded(c, size: size)) != nil {
            await forgetCell(e, c)
            return nil
        }
        return ["path": pathJSON(s, f), "container": .string(c.id), "source": .string(source),
                "reused": .bool(source != "new"), "configured": .bool(didConfigure)]
    }

    /// A cell leaves its item: brought to rest, then parked in its queue, or released past the limit.
    private func unbind(_ e: RangeEntry, _ c: ContainerRecord, path: JSONValue) async -> JSONValue {
        guard let cells = e.cells else { return .null }
        let containers = self.containers
        var queued = false
        if !c.isFailed, !c.isDestroyed {
            if await containers.failure(performing: containers.lifecycle.disappear(c)) != nil {
                await forgetCell(e, c)  // its failure is the call's; it is torn down
            } else if (cells.queues[c.className]?.count ?? 0) < cells.reuseLimit {
                cells.queues[c.className, default: []].append(c)
                queued = true
            } else {
                await releaseCell(e, c)
            }
        } else if !c.isDestroyed {
            await forgetCell(e, c)
        }
        return ["path": path, "container": .string(c.id), "queued": .bool(queued)]
    }

    /// Detaches and deinits a cell (`willMoveToParent(null)`, `didMoveToParent(null)`, `deinit`).
    func releaseCell(_ e: RangeEntry, _ c: ContainerRecord) async {
        let containers = self.containers
        e.cells?.shown[c.id] = nil
        e.cells?.released += 1
        try? await containers.perform(containers.lifecycle.willMove(c, toParent: nil))
        try? await containers.perform(containers.lifecycle.didMove(c, toParent: nil))
        await containers.teardown(c)
    }

    /// A cell whose hook failed: out of the session's books, then torn down (its failure is the call's).
    func forgetCell(_ e: RangeEntry, _ c: ContainerRecord) async {
        if let cells = e.cells {
            for (f, b) in cells.bound where b === c { cells.bound[f] = nil }
            for (k, q) in cells.queues { cells.queues[k] = q.filter { $0 !== c } }
            cells.shown[c.id] = nil
        }
        if !c.isDestroyed { _ = await containers.fail(c) }
    }

    /// A cell failed elsewhere (`Containers.fail`): it leaves its session's books.
    func cellFailed(_ c: ContainerRecord) {
        guard case .cell(let sid) = c.parent, let e = sessions[sid], let cells = e.cells else { return }
        for (f, b) in cells.bound where b === c { cells.bound[f] = nil }
        for (k, q) in cells.queues { cells.queues[k] = q.filter { $0 !== c } }
        cells.shown[c.id] = nil
    }

    /// Every cell of the session, bound or parked, released (the session ends).
    func releaseAllCells(_ e: RangeEntry) async {
        guard let cells = e.cells else { return }
        for f in cells.bound.keys.sorted() { if let c = cells.bound[f], !c.isDestroyed { await releaseCell(e, c) } }
        for k in cells.queues.keys.sorted() { for c in cells.queues[k]! where !c.isDestroyed { await releaseCell(e, c) } }
        cells.bound = [:]
        cells.queues = [:]
    }

    /// Parked cells go on a memory warning (UITableView keeps none it does not show).
    func purgeQueues(_ e: RangeEntry) async -> Int {
        guard let cells = e.cells else { return 0 }
        var n = 0
        for k in cells.queues.keys.sorted() { for c in cells.queues[k]! where !c.isDestroyed { await releaseCell(e, c); n += 1 } }
        cells.queues = [:]
        return n
    }

    func cellsState(_ e: RangeEntry) -> JSONValue {
        guard let cells = e.cells else { return .null }
        return [
            "reuseLimit": .int(cells.reuseLimit),
            "bound": .array(cells.bound.keys.sorted().map { f in ["path": pathJSON(e.session, f), "container": .string(cells.bound[f]!.id)] }),
            "parked": .object(JSONObject(cells.queues.keys.sorted().map { (key: $0, value: .int(cells.queues[$0]!.count)) })),
            "made": .int(cells.made), "reused": .int(cells.reused), "fromPool": .int(cells.fromPool),
            "configured": .int(cells.configured), "skipped": .int(cells.skipped), "released": .int(cells.released),
        ]
    }
}
