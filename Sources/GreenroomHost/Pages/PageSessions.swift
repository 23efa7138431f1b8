import GreenroomCore
import GreenroomJSON
import GreenroomRPC

/// One page session as the host keeps it: the Core session plus what pages are made of.
final class PageSessionEntry {
    /// Set while `destroy` tears it down: its own container's last events no longer reach the pages.
    var isDestroying = false
    let session: PageSession
    let owner: String
    /// Class and business data per page index (data is cached per index, MJianshu).
    var classes: [String]
    var data: [Int: JSONValue]
    let prerender: Bool
    /// The session's own container when it sits in a stack (its appearance is forwarded).
    var ownContainer: ContainerRecord?
    /// Reuse mode: parked children by class.
    var reuseQueue: [String: [ContainerRecord]] = [:]

    init(session: PageSession, owner: String, classes: [String], data: [Int: JSONValue], prerender: Bool) {
        self.session = session
        self.owner = owner
        self.classes = classes
        self.data = data
        self.prerender = prerender
    }
}

/// Page sessions (docs/pages.md): binds Core's `PageSession` to containers, pools, events and methods;
/// `PageDriver.swift` runs its operations.
public final class PageSessions: HostDomain, ContainerPages {
    // What page sessions use of the host, given when they are made.
    unowned let classes: ClassRegistry
    unowned let containers: Containers
    unowned let events: EventRouter
    unowned let connections: ConnectionTable
    let dispatcher: IdleTasks
    /// A session started or stopped tracking (the host pauses default-mode idle tasks meanwhile).
    let trackingChanged: () -> Void
    /// The range sessions, whose nested sessions hang from pages (made after the page sessions). Not
    /// `weak`: a weak reference gives its object a side table, and every retain of the range sessions
    /// (each scroll call makes some) would then take the slow path. The host owns both.
    unowned(unsafe) var ranges: RangeSessions?
    var sessions: [String: PageSessionEntry] = [:]
    private var nextSession = 1
    /// Session containers (in stacks) by container id.
    var sessionByContainer: [String: PageSessionEntry] = [:]

    init(classes: ClassRegistry, containers: Containers, events: EventRouter, connections: ConnectionTable,
         dispatcher: IdleTasks, trackingChanged: @escaping () -> Void) {
        self.classes = classes
        self.containers = containers
        self.events = events
        self.connections = connections
        self.dispatcher = dispatcher
        self.trackingChanged = trackingChanged
        try? classes.register(PlainClass(name: "PageViewController"))
        containers.pages = self
    }

    var anyTracking: Bool { sessions.values.contains { $0.session.isTracking } }

    // MARK: ContainerPages

    func pageInfo(of c: ContainerRecord) -> JSONValue? {
        if case .page(let s, let i) = c.parent { return ["session": .string(s), "index": .int(i)] }
        if let e = sessionByContainer[c.id] { return ["session": .string(e.session.id)] }
        return nil
    }

    func session(owning c: ContainerRecord) -> String? { sessionByContainer[c.id]?.session.id }

    func stackWillBeDestroyed(_ s: StackRecord) async {
        // A destroyed stack takes the page sessions in it along (UIKit releases the page view
        // controller with its navigation stack): children first, then the session's container.
        let inStack = Set(s.items.map(\.id))
        for e in sessions.values.sorted(by: { $0.session.id < $1.session.id }) {
            if let own = e.ownContainer, inStack.contains(own.id) { await destroy(e) }
        }
    }

    func childFailed(_ c: ContainerRecord) {
        if case .page(let sid, _) = c.parent, let e = sessions[sid] {
            e.session.forget(c)
            e.reuseQueue = e.reuseQueue.mapValues { $0.filter { $0 !== c } }
        }
    }

    /// The session's own container appeared or disappeared in its stack: the current page follows.
    func appearanceHookRan(on c: ContainerRecord, _ hook: Hook, animated: Bool) async {
        // A session being destroyed no longer forwards (its children are already released).
        guard let e = sessionByContainer[c.id], !e.isDestroying else { return }
        let op: PageOperation
        switch hook {
        case .viewWillAppear: op = e.session.forwardBegin(appearing: true, animated: animated)
        case .viewWillDisappear: op = e.session.forwardBegin(appearing: false, animated: animated)
        case .viewDidAppear, .viewDidDisappear: op = e.session.forwardEnd(animated: animated)
        default: return
        }
        // The page failed, not the session's container: the page is torn down now (it must not stay
        // listed, appeared, to fail the next call) and the call that moved the stack reports it.
        if case .child(let failure)? = await drive(op, in: e) { await tearDown(failure) }
    }

    // MARK: HostDomain

    public func register(into r: inout MethodRegistry<HostConnection>) { registerPageMethods(into: &r) }

    public func reset(caller: HostConnection) -> JSONObject {
        if sessions.isEmpty { nextSession = 1 }
        return [:]
    }

    public func connectionClosed(_ connection: HostConnection) async {
        for e in sessions.values.sorted(by: { $0.session.id < $1.session.id }) where e.owner == connection.id {
            await destroy(e)
        }
    }

    public func memoryWarning(level: String, caller: HostConnection?) async -> JSONObject {
        var released = 0, notified = 0
        for e in sessions.values.sorted(by: { $0.session.id < $1.session.id }) {
            for (_, queue) in e.reuseQueue { for c in queue { await releaseChild(c); released += 1 } }
            e.reuseQueue = [:]
            let purge = e.session.purgeForMemoryWarning()
            released += purge.purged.count
            await drive(purge, in: e)
            for i in e.session.children.keys.sorted() {
                guard let c = e.session.children[i] else { continue }  // loaded or not, as in UIKit
                await containers.notifyMemoryWarning(c, level: level)
                notified += 1
            }
        }
        return ["pageChildrenReleased": .int(released), "pageChildrenNotified": .int(notified)]
    }

    public func addStats(to stats: inout JSONObject) {
        var sessionsStats = stats["sessions"]?.objectValue ?? JSONObject()
        sessionsStats["page"] = .int(sessions.count)
        sessionsStats["pageTracking"] = .int(sessions.values.filter { $0.session.isTracking }.count)
        stats["sessions"] = .object(sessionsStats)
    }

    /// The page count of the caller's page session `id` (-32002 naming `path` otherwise): for a range
    /// session nested in one of its pages.
    func pageCount(_ id: String, owner: HostConnection, path: String) throws(RPCError) -> Int {
        try owner.owned(id, path, in: sessions, expected: "page session") { $0.owner }.session.count
    }

    /// The appearance of page `index`'s child, nil when the page has none loaded (or no such session).
    func pageAppearance(_ id: String, index: Int) -> Appearance? {
        sessions[id]?.session.children[index]?.state
    }

    func destroy(_ e: PageSessionEntry) async {
        e.isDestroying = true
        dispatcher.cancel(key: "preload:\(e.session.id)")
        await drive(e.session.destroy(), in: e)
        for (_, queue) in e.reuseQueue { for c in queue { await releaseChild(c) } }
        e.reuseQueue = [:]
        if let own = e.ownContainer {
            await containers.release(own)  // its events still name the session
            sessionByContainer[own.id] = nil
        }
        sessions[e.session.id] = nil
        await ranges?.pageSessionEnded(e.session.id)
        trackingChanged()
    }

    func makeSessionID() -> String {
        defer { nextSession += 1 }
        return "p-\(nextSession)"
    }
}
