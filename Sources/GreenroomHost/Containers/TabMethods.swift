import GreenroomCore
import GreenroomJSON
import GreenroomRPC

extension Containers {
    /// The tabs a `containers` param names: this connection's, each once, each in no parent but `keep`
    /// (the tab bar they may already be in) and off screen.
    private func tabChildren(_ ids: [String], keep: TabsRecord?, owner conn: HostConnection) throws(RPCError) -> [ContainerRecord] {
        var seen: [String: Int] = [:]
        var list: [ContainerRecord] = []
        for (i, id) in ids.enumerated() {
            let path = "containers[\(i)]"
            if let first = seen[id] {
                throw .invalidParams(path: path, "\(id) is already at containers[\(first)]; a container is a tab at most once")
            }
            seen[id] = i
            let c = try container(id, path: path, owner: conn)
            if let keep, c.parent == .tabs(keep.id) {
                list.append(c)
                continue
            }
            try requireFree(c, as: "a tab", path: path)
            list.append(c)
        }
        return list
    }

    private static func tabIndex(_ i: Int?, path: String, count: Int) throws(RPCError) {
        guard let i else { return }
        guard count == 0 ? i == 0 : (0..<count).contains(i) else {
            throw .invalidParams(path: path, count == 0 ? "must be 0 when there are no tabs" : "must be between 0 and \(count - 1)")
        }
    }

    func registerTabMethods(into r: inout MethodRegistry<HostConnection>) {
        r.register(TabsCreate.self) { [unowned self] conn, p async throws(RPCError) in
            let size = try Self.size(width: p.width, height: p.height)
            let list = try tabChildren(p.containers, keep: nil, owner: conn)
            try Self.tabIndex(p.selected, path: "selected", count: p.containers.count)
            let t = await tabBars.create(size: size, children: list, selected: p.selected ?? 0, hidden: p.hidden ?? false, owner: conn.id)
            return tabBars.info(t)
        }
        r.register(TabsSelect.self) { [unowned self] conn, p async throws(RPCError) in
            let t = try tabBars.record(p.tabs, owner: conn)
            guard t.children.indices.contains(p.index) else {
                throw .invalidParams(path: "index", t.children.isEmpty ? "the tab bar has no tabs" : "must be between 0 and \(t.children.count - 1)")
            }
            await tabBars.select(t, p.index)
            return tabBars.info(t)
        }
        r.register(TabsSetContainers.self) { [unowned self] conn, p async throws(RPCError) in
            let t = try tabBars.record(p.tabs, owner: conn)
            let list = try tabChildren(p.containers, keep: t, owner: conn)
            try Self.tabIndex(p.selected, path: "selected", count: p.containers.count)
            _ = await tabBars.setContainers(t, list, selected: p.selected)
            return tabBars.info(t)
        }
        r.register(TabsSetHidden.self) { [unowned self] conn, p async throws(RPCError) in
            let t = try tabBars.record(p.tabs, owner: conn)
            if let r = presentations.byPresenter[t.id], p.hidden != t.isHidden {
                throw .invalidState("Tab bar \(t.id) presents \(r.presented.id): dismiss it before hiding the window",
                                    ["tabs": .string(t.id), "presented": .string(r.presented.id)])
            }
            await tabBars.setHidden(t, p.hidden)
            return tabBars.info(t)
        }
        r.register(TabsResize.self) { [unowned self] conn, p async throws(RPCError) in
            let size = try Self.size(width: p.width, height: p.height)
            let t = try tabBars.record(p.tabs, owner: conn)
            try await tabBars.resize(t, to: size)
            return tabBars.info(t)
        }
        r.register(TabsInfo.self) { [unowned self] conn, p throws(RPCError) in
            tabBars.info(try tabBars.record(p.tabs, owner: conn))
        }
        r.register(TabsDestroy.self) { [unowned self] conn, p async throws(RPCError) in
            let t = try tabBars.record(p.tabs, owner: conn)
            let gone = await tabBars.destroy(t)
            return ["tabs": .string(t.id), "destroyed": true, "released": .array(gone.map { .string($0.id) })]
        }
    }
}
