import GreenroomCore
import GreenroomJSON
import GreenroomRPC

/// What a nested session hangs from: a row of another range session (a carousel in a feed's row) or a
/// page of a page session (a list on a page).
enum RangeParent {
    case row(session: String)
    case page(session: String, index: Int)
}

/// Where a nested session's parent is, as Texture's outer range controller tells an inner one through
/// the interface state of the node it powers: on screen (the child is visible), in the preload range but
/// off screen (the child preloads what it will show first, in `minimum` mode), or farther (`lowMemory`:
/// it displays nothing and keeps only its own first screen preloaded).
enum NestedState: Equatable {
    case visible, preloaded, away
}

/// Nested sessions (`range.create {parent}` / `{page}`): their visibility and mode follow their parent
/// row or page, they move with it through inserts, deletes and batches, and they end with it.
extension RangeSessions {
    /// The parent a `range.create` names, checked (the caller's session, an existing row or page) before
    /// anything is made.
    func nestedParent(_ parent: JSONObject?, page: JSONObject?, owner conn: HostConnection) throws(RPCError) -> RangeParent? {
        if parent != nil, page != nil { throw .invalidParams(path: "page", "give parent or page, not both") }
        if let o = parent {
            for key in o.keys where key != "session" && key != "item" {
                throw .invalidParams(path: "parent.\(key)", "unknown member (known: session, item)")
            }
            guard let id = o["session"]?.stringValue else { throw .invalidParams(path: "parent.session", "is required (a range session id)") }
            let item = try Self.indexPath(o["item"], path: "parent.item")
            let e = try conn.owned(id, "parent.session", in: sessions, expected: "range session") { $0.owner }
            guard e.session.flatIndex(section: item.section, row: item.row) != nil else {
                throw .invalidParams(path: "parent.item", "\(item) is not an item of \(id)")
            }
            return .row(session: id)
        }
        if let o = page {
            for key in o.keys where key != "session" && key != "index" {
                throw .invalidParams(path: "page.\(key)", "unknown member (known: session, index)")
            }
            guard let id = o["session"]?.stringValue else { throw .invalidParams(path: "page.session", "is required (a page session id)") }
            let index = try Int.decodeParam(o["index"] ?? .null, path: "page.index")
            let count = try pages.pageCount(id, owner: conn, path: "page.session")
            guard index >= 0, index < count else { throw .invalidParams(path: "page.index", "\(index) is out of range (0..<\(count))") }
            return .page(session: id, index: index)
        }
        return nil
    }

    /// Hangs a new session from its parent: a row's children are kept by the row's flat index, a page's
    /// by the page session. Returns the state the child starts in.
    func attach(_ child: RangeEntry, to parent: RangeParent, item: RangePath?) {
        child.parent = parent
        switch parent {
        case .row(let id):
            sessionsInRows += 1
            guard let p = sessions[id], let item, let f = p.session.flatIndex(section: item.section, row: item.row) else { return }
            p.nested[f, default: []].append(child)
            child.parentRow = f
        case .page(let id, _):
            pageChildren[id, default: []].append(child)
        }
    }

    /// Where `child`'s parent is now.
    func nestedState(_ child: RangeEntry) -> NestedState {
        switch child.parent {
        case .row(let id)?:
            guard let p = sessions[id] else { return .away }
            return Self.rowState(p.session, child.parentRow)
        case .page(let id, let index)?:
            switch pages.pageAppearance(id, index: index) {
            case .appeared?, .appearing?: return .visible
            case .some: return .preloaded
            case nil: return .away
            }
        case nil:
            return .visible
        }
    }

    /// Applies `state` to the child's session: visible, or invisible in `minimum` (preloading) or
    /// `lowMemory` mode (Texture: an outer controller sets the inner one's interface state; a controller
    /// that is not visible uses the minimum mode; one whose node left the preload range drops to
    /// lowMemory). `announce`: recompute and send the child's events now.
    func setNested(_ child: RangeEntry, _ state: NestedState, announce: Bool) async {
        let s = child.session
        child.lastNestedState = state
        let becameVisible = state == .visible && !s.isVisible
        switch state {
        case .visible:
            // The parent's hold ends: the mode a visible session of its own would have (minimum until
            // it is scrolled, full after).
            if s.setVisible(true) { s.holdMode(s.contentHasBeenScrolled ? .full : .minimum) }
        case .preloaded:
            s.setVisible(false)
            s.holdMode(.minimum)
        case .away:
            s.setVisible(false)
            s.holdMode(.lowMemory)
        }
        if announce { await refresh(child, checkBatch: becameVisible && !s.dragging) }
    }

    /// The state of a child of row `f` of `p`.
    static func rowState(_ p: RangeSession, _ f: Int) -> NestedState {
        let st = p.state(f)
        return st.visible ? .visible : st.preload ? .preloaded : .away
    }

    /// After a parent's update: the children of the rows that entered or left the visible or preload
    /// range follow them. O(changes).
    func parentRowsChanged(_ e: RangeEntry, _ u: RangeUpdate) async {
        var rows = Set<Int>()
        for list in [u.enterVisible, u.exitVisible, u.enterPreload, u.exitPreload] {
            for f in list where e.nested[f] != nil { rows.insert(f) }
        }
        for f in rows.sorted() {
            let state = Self.rowState(e.session, f)
            for child in e.nested[f] ?? [] where sessions[child.session.id] === child && child.lastNestedState != state {
                await setNested(child, state, announce: true)
            }
        }
    }

    /// The parent's rows moved (`newFlat`: where a row is now, nil when deleted): children follow their
    /// rows; those of deleted rows end with them.
    func parentRowsMoved(_ e: RangeEntry, _ newFlat: (Int) -> Int?) async {
        guard !e.nested.isEmpty else { return }
        var moved: [Int: [RangeEntry]] = [:]
        for (f, children) in e.nested {
            if let n = newFlat(f) {
                moved[n, default: []] += children
                for c in children { c.parentRow = n }
            } else {
                for c in children { await end(c) }
            }
        }
        e.nested = moved
    }

    /// A page session ran an operation: its nested sessions follow their pages' appearance.
    func pageChanged(_ pageSession: String) async {
        guard let children = pageChildren[pageSession] else { return }
        for child in children where sessions[child.session.id] === child {
            let state = nestedState(child)
            if state != child.lastNestedState { await setNested(child, state, announce: true) }
        }
    }

    /// Pages were inserted or removed (`newIndex`: where a page is now, nil when removed).
    func pagesMoved(_ pageSession: String, _ newIndex: (Int) -> Int?) async {
        guard let children = pageChildren[pageSession] else { return }
        for child in children {
            guard case .page(let id, let index)? = child.parent else { continue }
            if let n = newIndex(index) { child.parent = .page(session: id, index: n) } else { await end(child) }
        }
        await pageChanged(pageSession)
    }

    /// The page session ended: its nested sessions end with it.
    func pageSessionEnded(_ pageSession: String) async {
        for child in pageChildren.removeValue(forKey: pageSession) ?? [] { await end(child) }
    }

    /// Ends a session: its cells released, its viewability timer gone, its nested sessions ended first,
    /// and it leaves its parent's books. No events (as `range.destroy`).
    func end(_ e: RangeEntry) async {
        guard sessions[e.session.id] === e else { return }
        for f in e.nested.keys.sorted() { for c in e.nested[f]! { await end(c) } }
        e.nested = [:]
        await releaseAllCells(e)
        endViewability(e)
        sessions[e.session.id] = nil
        if e.cells != nil { sessionsWithCells -= 1 }
        switch e.parent {
        case .row(let id)?:
            sessionsInRows -= 1
            if let p = sessions[id], let children = p.nested[e.parentRow] {
                let rest = children.filter { $0 !== e }
                p.nested[e.parentRow] = rest.isEmpty ? nil : rest
            }
        case .page(let id, _)?:
            pageChildren[id]?.removeAll { $0 === e }
            if pageChildren[id]?.isEmpty == true { pageChildren[id] = nil }
        case nil:
            break
        }
    }

    /// A nested session's parent for its `range` events: `{session, item}` (a row, where it is now) or
    /// `{page: {session, index}}`; nil for a session of its own.
    func parentJSON(_ e: RangeEntry) -> JSONValue? {
        switch e.parent {
        case .row(let id)?:
            guard let p = sessions[id] else { return nil }
            return ["session": .string(id), "item": pathJSON(p.session, e.parentRow)]
        case .page(let id, let index)?:
            return ["page": ["session": .string(id), "index": .int(index)]]
        case nil:
            return nil
        }
    }

    /// `range.state`'s `nested`: each child session by its parent row.
    func nestedState(of e: RangeEntry) -> JSONValue {
        .array(e.nested.keys.sorted().flatMap { f in
            e.nested[f]!.map { ["path": pathJSON(e.session, f), "session": .string($0.session.id)] as JSONValue }
        })
    }
}
