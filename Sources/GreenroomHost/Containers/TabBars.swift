import GreenroomCore
import GreenroomJSON
import GreenroomRPC

/// Tab bars (UITabBarController), written as the host's other async flows are: every hook an `await`.
/// Switches are not animated: UIKit's tab switch has no transition of its own (docs/lifecycle.md
/// "Tab bars").
final class TabBars {
    unowned let containers: Containers
    private(set) var tabs: [String: TabsRecord] = [:]
    private var nextID = 1

    init(containers: Containers) { self.containers = containers }

    private var lifecycle: Lifecycle { containers.lifecycle }

    /// Performs `actions`, reporting every failure (the container is torn down; `childFailed` takes it
    /// out of its tab bar).
    private func step(_ actions: LifecycleActions) async { await containers.performReporting(actions) }

    /// The connection's tab bar `id` (-32002 naming `path` otherwise).
    func record(_ id: String, owner conn: HostConnection, path: String = "tabs") throws(RPCError) -> TabsRecord {
        try conn.owned(id, path, in: tabs, expected: "tabs") { $0.owner }
    }

    /// `tabs.create`: the children join in tab order, then the selected one appears if the window is shown.
    func create(size: Size, children: [ContainerRecord], selected: Int, hidden: Bool, owner: String) async -> TabsRecord {
        let t = TabsRecord(id: "t-\(nextID)", size: size, hidden: hidden, owner: owner)
        nextID += 1
        tabs[t.id] = t
        t.children = children
        t.selectedIndex = children.isEmpty ? 0 : selected
        for c in children {
            c.parent = .tabs(t.id)
            await step(lifecycle.willMove(c, toParent: t.id))
            await step(lifecycle.didMove(c, toParent: t.id))
        }
        if t.isShown, let c = t.selected { await appear(c, in: t) }
        return t
    }

    private func appear(_ c: ContainerRecord, in t: TabsRecord) async {
        await step(lifecycle.appear(c, animated: false, size: t.size, layout: .afterWillAppear))
    }

    /// UIKit's tab switch, not animated: the new child loads and begins appearing (with its layout), the
    /// old one disappears, then the new one has appeared.
    private func switchTabs(from old: ContainerRecord?, to new: ContainerRecord?, in t: TabsRecord) async {
        if let new, new.state != .appeared {
            await step(lifecycle.begin(new, appearing: true, animated: false, size: t.size, layout: .afterWillAppear))
        }
        // It failed as it began appearing and left the tab bar: the selection went elsewhere, and what is
        // selected now (the old child, still on screen, or another) is what must be shown.
        if let new, t.selected !== new {
            if let old, old !== t.selected { await step(lifecycle.disappear(old, animated: false)) }
            return await showSelected(t)
        }
        if let old, old !== new, old.state == .appeared || old.state == .appearing {
            await step(lifecycle.disappear(old, animated: false))
        }
        if let new, new.state == .appearing { await step(lifecycle.end(new, animated: false)) }
    }

    /// `tabs.select`.
    func select(_ t: TabsRecord, _ index: Int) async {
        guard index != t.selectedIndex else { return }
        await settlePresentations(on: t, [t.children[index]])
        let old = t.isShown ? t.selected : nil
        t.selectedIndex = index
        if t.isShown { await switchTabs(from: old, to: t.selected, in: t) }
    }

    /// `tabs.setContainers`: leaving first, then joining (Apple: the old ones are removed before the new
    /// ones are installed); the switch if the child on screen changes; then the did-calls.
    func setContainers(_ t: TabsRecord, _ list: [ContainerRecord], selected: Int?) async -> [ContainerRecord] {
        await settlePresentations(on: t)
        let old = t.children
        let oldShown = t.isShown ? t.selected : nil
        let joining = list.filter { c in !old.contains { $0 === c } }
        let leaving = old.filter { c in !list.contains { $0 === c } }
        let index = list.isEmpty ? 0 : selected ?? t.reselection(in: list)
        for c in leaving { await step(lifecycle.willMove(c, toParent: nil)) }
        for c in joining {
            c.parent = .tabs(t.id)
            await step(lifecycle.willMove(c, toParent: t.id))
        }
        t.children = list.filter { !$0.isFailed && !$0.isDestroyed }
        t.selectedIndex = t.children.isEmpty ? 0 : min(index, t.children.count - 1)
        let newShown = t.isShown ? t.selected : nil
        if oldShown !== newShown { await switchTabs(from: oldShown, to: newShown, in: t) }
        for c in leaving {
            if c.parent == .tabs(t.id) { c.parent = .none }
            await step(lifecycle.didMove(c, toParent: nil))
        }
        for c in joining { await step(lifecycle.didMove(c, toParent: t.id)) }
        return leaving
    }

    /// A presentation or dismissal still running over the tab bar completes first, as any transition on
    /// what a call changes.
    private func settlePresentations(on t: TabsRecord, _ also: [ContainerRecord] = []) async {
        await containers.presentations.settle(touching: Set(([t.selected].compactMap { $0 } + also).map(\.id) + [t.id]))
    }

    /// `tabs.resize`: the selected child is told and lays out again (the others when they are next
    /// selected), then what the tab bar presents (`Containers.resizeWindow`).
    func resize(_ t: TabsRecord, to size: Size) async throws(RPCError) {
        let shown = t.isHidden ? [] : t.selected.map { [$0] } ?? []
        try await containers.resizeWindow(t.id, root: shown, hidden: t.isHidden, from: t.size, to: size) {
            t.size = size
            guard t.isShown, let c = t.selected, c.state == .appeared || c.state == .appearing else { return }
            await step(lifecycle.layout(c, size: size))
        }
    }

    /// `tabs.setHidden`: the selected child disappears or appears.
    func setHidden(_ t: TabsRecord, _ hidden: Bool) async {
        guard t.isHidden != hidden else { return }
        t.isHidden = hidden
        guard let c = t.selected, !t.isCovered else { return }
        if hidden { await step(lifecycle.disappear(c)) } else { await appear(c, in: t) }
    }

    /// `tabs.destroy` (and a connection closing): what it presents goes first, then the selected child and
    /// the others in tab order are torn down. Returns them in that order.
    func destroy(_ t: TabsRecord) async -> [ContainerRecord] {
        await containers.presentations.windowWillBeDestroyed(t.id)
        var order = t.children
        if let s = t.selected, let i = order.firstIndex(where: { $0 === s }) { order.insert(order.remove(at: i), at: 0) }
        t.children = []
        for c in order { await containers.teardown(c) }
        tabs[t.id] = nil
        return order
    }

    /// A child failed and is about to be torn down: it leaves its tab bar at once. Returns the tab bar
    /// whose newly selected child must appear after the teardown (it was the one on screen).
    func childFailed(_ c: ContainerRecord) -> TabsRecord? {
        guard case .tabs(let id) = c.parent, let t = tabs[id], let i = t.children.firstIndex(where: { $0 === c }) else { return nil }
        let wasShown = t.isShown && t.selectedIndex == i
        t.children.remove(at: i)
        if i < t.selectedIndex || t.selectedIndex >= t.children.count { t.selectedIndex = max(0, t.selectedIndex - 1) }
        return wasShown ? t : nil
    }

    /// After a failed child's teardown, the tab bar's new selected child appears.
    func showSelected(_ t: TabsRecord) async {
        if t.isShown, let c = t.selected, c.state != .appeared { await appear(c, in: t) }
    }

    func connectionClosed(_ id: String) async {
        for t in tabs.values.sorted(by: { $0.id < $1.id }) where t.owner == id { _ = await destroy(t) }
    }

    func info(_ t: TabsRecord) -> JSONValue {
        [
            "tabs": .string(t.id),
            "width": .double(t.size.width),
            "height": .double(t.size.height),
            "hidden": .bool(t.isHidden),
            "covered": .bool(t.isCovered),
            "containers": .array(t.children.map { .string($0.id) }),
            "selected": .int(t.selectedIndex),
            "selectedContainer": t.selected.map { .string($0.id) } ?? .null,
        ]
    }
}
