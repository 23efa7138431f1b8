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
    let classes: [String]
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

/// Page sessions (docs/pages.md): binds Core's `PageSession` to containers, pools, events and methods.
public final class PageSessions: HostDomain, PageSessionDelegate, ContainerPages {
    unowned let host: Host
    var containers: Containers { host.containers }
    var sessions: [String: PageSessionEntry] = [:]
    private var nextSession = 1
    /// Session containers (in stacks) by container id.
    var sessionByContainer: [String: PageSessionEntry] = [:]
    /// Why the last page child could not be made (its init failed, or a limit): the -32004 or -32005
    /// the call answers.
    var childCreateError: RPCError?

    public init(host: Host) {
        self.host = host
        try? host.classes.register(PlainClass(name: "PageViewController"))
        host.containers.pages = self
    }

    var anyTracking: Bool { sessions.values.contains { $0.session.isTracking } }

    // MARK: PageSessionDelegate

    public func makeChild(_ session: PageSession, index: Int) throws(ContainerFailure) -> ContainerRecord {
        guard let e = sessions[session.id] else { throw ContainerFailure(container: session.id, hook: .initialize) }
        let cls = e.classes[index]
        let data = e.data[index]
        var c: ContainerRecord?
        var needsConfigure = false
        // Reuse mode: a parked child of the same class is re-configured with this page's data.
        if var queue = e.reuseQueue[cls], !queue.isEmpty {
            c = queue.removeFirst()  // a queue: the longest parked goes first (MJianshu)
            e.reuseQueue[cls] = queue
            needsConfigure = true
        } else if e.prerender, let conn = host.connection(id: e.owner) {
            // Children from the prerender pool of their class at the page size; the pool refills after.
            let pool = containers.pools.poolForShow(className: cls, size: session.pageSize)
            let taken = containers.pools.take(from: pool, owner: conn)
            if let warm = taken {
                pool.hits += 1
                c = warm
                needsConfigure = data != nil
                containers.pools.poolEvent("hit", pool, warm, to: conn, ["session": .string(session.id), "index": .int(index)])
            } else {
                pool.misses += 1
                containers.pools.poolEvent("miss", pool, nil, to: conn, ["session": .string(session.id), "index": .int(index)])
            }
            containers.pools.refill(pool, afterHit: taken != nil, cause: conn)
        }
        let child: ContainerRecord
        if let c {
            child = c
        } else {
            guard let klass = host.classes[cls] else { throw ContainerFailure(container: "\(session.id)[\(index)]", hook: .initialize) }
            do throws(RPCError) {
                child = try containers.create(klass, owner: e.owner, data: data, parent: .page(session: session.id, index: index))
            } catch {
                // Its init failed (already torn down) or the host refused it (a limit): the reply says which.
                childCreateError = error
                throw ContainerFailure(container: "\(session.id)[\(index)]", hook: .initialize)
            }
        }
        child.parent = .page(session: session.id, index: index)
        try containers.perform(containers.lifecycle.willMove(child, toParent: session.id))
        try containers.perform(containers.lifecycle.didMove(child, toParent: session.id))
        if needsConfigure, let data {
            do { _ = try containers.configure(child, data: data) } catch {
                throw ContainerFailure(container: child.id, hook: .configure)
            }
        }
        return child
    }

    public func releaseChild(_ session: PageSession, _ child: ContainerRecord, index: Int) {
        try? containers.perform(containers.lifecycle.willMove(child, toParent: nil))
        try? containers.perform(containers.lifecycle.didMove(child, toParent: nil))
        // Its deinit still says which page it was (teardown clears the parent afterwards).
        containers.teardown(child)
    }

    public func recycleChild(_ session: PageSession, _ child: ContainerRecord, index: Int) {
        guard let e = sessions[session.id] else { return releaseChild(session, child, index: index) }
        child.parent = .page(session: session.id, index: -1)
        e.reuseQueue[child.className, default: []].append(child)
    }

    public func pageEvent(_ session: PageSession, _ kind: PageTransitionEvent, from: Int, to: Int, completed: Bool?) {
        guard let e = sessions[session.id] else { return }
        let target = host.connection(id: e.owner)
        guard host.events.wants("page", owner: target) else { return }
        var f: JSONObject = ["session": .string(session.id), "kind": .string(kind.wireName), "from": .int(from), "to": .int(to)]
        if let completed { f["completed"] = .bool(completed) }
        host.events.emit("page", owner: target, f)
    }

    public func trackingChanged(_ session: PageSession) { host.updateTracking() }

    /// A child failed in deferred work (an animation's end): torn down, with no reply to carry it.
    public func childFailed(_ session: PageSession, _ failure: ContainerFailure) {
        if let c = containers.containers[failure.container], !c.isDestroyed { containers.fail(c) }
    }

    // MARK: ContainerPages

    func pageInfo(of c: ContainerRecord) -> JSONValue? {
        if case .page(let s, let i) = c.parent { return ["session": .string(s), "index": .int(i)] }
        if let e = sessionByContainer[c.id] { return ["session": .string(e.session.id)] }
        return nil
    }

    func session(owning c: ContainerRecord) -> String? { sessionByContainer[c.id]?.session.id }

    func stackWillBeDestroyed(_ s: StackRecord) {
        // A destroyed stack takes the page sessions in it along (UIKit releases the page view
        // controller with its navigation stack): children first, then the session's container.
        let inStack = Set(s.items.map(\.id))
        for e in sessions.values.sorted(by: { $0.session.id < $1.session.id }) {
            if let own = e.ownContainer, inStack.contains(own.id) { destroy(e) }
        }
    }

    func childFailed(_ c: ContainerRecord) {
        if case .page(let sid, _) = c.parent, let e = sessions[sid] {
            e.session.forget(c)
            e.reuseQueue = e.reuseQueue.mapValues { $0.filter { $0 !== c } }
        }
    }

    /// The session's own container appeared or disappeared in its stack: the current page follows.
    func appearanceHookRan(on c: ContainerRecord, _ hook: Hook, animated: Bool) {
        // A session being destroyed no longer forwards (its children are already released).
        guard let e = sessionByContainer[c.id], !e.isDestroying else { return }
        do throws(PageError) {
            switch hook {
            case .viewWillAppear: try e.session.forwardBegin(appearing: true, animated: animated)
            case .viewWillDisappear: try e.session.forwardBegin(appearing: false, animated: animated)
            case .viewDidAppear, .viewDidDisappear: try e.session.forwardEnd(animated: animated)
            default: break
            }
        } catch {
            // The page failed, not the session's container: the page is torn down now (it must not
            // stay listed, appeared, to fail the next call) and the call that moved the stack reports it.
            if case .child(let failure) = error { childFailed(e.session, failure) }
        }
    }

    // MARK: HostDomain

    public func register(into r: inout MethodRegistry<HostConnection>) { registerPageMethods(into: &r) }

    public func reset(caller: HostConnection) -> JSONObject {
        if sessions.isEmpty { nextSession = 1 }
        return [:]
    }

    public func connectionClosed(_ connection: HostConnection) {
        for e in sessions.values.sorted(by: { $0.session.id < $1.session.id }) where e.owner == connection.id {
            destroy(e)
        }
    }

    public func memoryWarning(level: String, caller: HostConnection?) -> JSONObject {
        var released = 0, notified = 0
        for e in sessions.values.sorted(by: { $0.session.id < $1.session.id }) {
            for (_, queue) in e.reuseQueue { for c in queue { releaseChild(e.session, c, index: -1); released += 1 } }
            e.reuseQueue = [:]
            released += e.session.purgeForMemoryWarning().count
            for i in e.session.children.keys.sorted() {
                guard let c = e.session.children[i] else { continue }  // loaded or not, as in UIKit
                containers.notifyMemoryWarning(c, level: level)
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

    func destroy(_ e: PageSessionEntry) {
        e.isDestroying = true
        e.session.destroy()
        for (_, queue) in e.reuseQueue { for c in queue { releaseChild(e.session, c, index: -1) } }
        e.reuseQueue = [:]
        if let own = e.ownContainer {
            containers.release(own)  // its events still name the session
            sessionByContainer[own.id] = nil
        }
        sessions[e.session.id] = nil
        host.updateTracking()
    }

    func makeSessionID() -> String {
        defer { nextSession += 1 }
        return "p-\(nextSession)"
    }
}
