import GreenroomCore
import GreenroomJSON
import GreenroomRPC

/// What a call may touch, and so where it runs and which calls it must keep its order with. The rule is
/// written down here, once, as sourcekit-lsp's `MessageHandlingDependencyTracker` writes down which LSP
/// messages may overlap: each method's type says what its calls touch (`HostMethod.dependency`), from
/// their params and the host as it is when the call is classified.
///
/// - `none`: the call runs no container hook and touches no container, stack, page, pool, timer or task
///   state. It runs where it is read, even while lane items are parked on a worker.
/// - `only(scopes)`: it goes through the call lane and keeps its order with the items that share a scope.
/// - `everything`: it goes through the lane and keeps its order with every item.
enum LaneDependency: Equatable {
    case none
    /// Anything: timers, idle passes, teardowns, shutdown, and every call not described more narrowly
    /// (a page, a pool's settings, a reset, the virtual clock...).
    case everything
    /// Only what these scopes name.
    case only(Set<LaneScope>)

    var isEverything: Bool { self == .everything }

    /// Whether an item with this dependency must keep its order with one with `other`.
    func isDependency(of other: LaneDependency) -> Bool {
        switch (self, other) {
        case (.none, _), (_, .none): false
        case (.everything, _), (_, .everything): true
        case (.only(let a), .only(let b)): !a.isDisjoint(with: b)
        }
    }
}

/// One thing a lane item touches.
enum LaneScope: Hashable {
    /// A container, by id: calls on it keep their order.
    case container(String)
    /// A stack, by id: calls on it keep their order.
    case stack(String)
    /// A page session, by id: calls on it keep their order.
    case page(String)
    /// A range session, by id: calls on it keep their order.
    case range(String)
    /// The code that runs a class's hooks, and that class's pools: a plugin (its worker serves one request
    /// at a time, so calls on any of its classes keep their order) or a scripted or built-in class.
    case runner(String)
}

/// A method of the host's protocol: its wire description (`RPCMethod`) and what its calls touch.
protocol HostMethod: RPCMethod {
    /// What a call touches. `params` decodes the call's params (nil when they do not decode: such a
    /// call depends on everything, keeps its place and fails there as it would have).
    static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency
}

extension HostMethod {
    static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { .everything }
}

/// A method whose calls may wait but that serves the calls the host knows cannot with a synchronous
/// handler (`MethodRegistry.register(_:encoded:waiting:)`).
protocol HostMethodRunningNow: HostMethod {
    /// Whether this call cannot wait (then it runs where it is read, with no task). `raw` is the call's
    /// params as sent (a method may read what it needs without decoding them all); `params` decodes
    /// them as for `dependency`. Params that do not decode run now, and fail there.
    static func runsNow(on host: Host, raw: JSONValue?, _ params: () -> Params?) -> Bool
}

extension Host {
    /// The scope of the code that runs `className`'s hooks.
    func runnerScope(of className: String) -> LaneScope {
        if let plugin = classes[className]?.pluginName { return .runner("plugin:" + plugin) }
        return .runner("class:" + className)
    }

    /// A container no stack, page, range or pool holds, and its class's runner; nil for anything else.
    func standaloneScopes(_ id: String) -> Set<LaneScope>? {
        guard let record = containers.containers[id], !record.isDestroyed, record.parent == .none else { return nil }
        return [.container(id), runnerScope(of: record.className)]
    }

    /// A stack and the runners of every container in it (a transition's hooks reach all of them); nil when
    /// it is not there or holds a page session's container (whose appearance reaches its pages).
    func stackScopes(_ id: String) -> Set<LaneScope>? {
        guard let s = containers.stacks[id], !s.isGreenRoom, !containers.presentations.presents(stack: id) else { return nil }
        var scopes: Set<LaneScope> = [.stack(id)]
        for item in s.items {
            guard pages.session(owning: item) == nil else { return nil }
            scopes.insert(runnerScope(of: item.className))
        }
        return scopes
    }

    /// A page session and the runners of every class its pages use; nil when it is not there, when its
    /// own container sits in a stack (a push over it reaches its pages), or when range sessions are
    /// nested in its pages (a page change binds and releases their cells).
    func pageScopes(_ id: String) -> Set<LaneScope>? {
        guard let e = pages.sessions[id], e.ownContainer == nil, ranges?.pageChildren[id]?.isEmpty ?? true else { return nil }
        var scopes: Set<LaneScope> = [.page(id)]
        for name in Set(e.classes) { scopes.insert(runnerScope(of: name)) }
        return scopes
    }

    /// The runners of the classes a `class` or `pages` param names; nil when one is not a class.
    func pageClassScopes(_ className: String?, _ specs: [JSONObject]?) -> Set<LaneScope>? {
        var names: [String] = className.map { [$0] } ?? []
        for spec in specs ?? [] {
            guard case .string(let name)? = spec["class"] else { return nil }
            names.append(name)
        }
        var scopes: Set<LaneScope> = []
        for name in Set(names) {
            guard classes[name] != nil else { return nil }
            scopes.insert(runnerScope(of: name))
        }
        return scopes
    }

    /// What a line read from a connection depends on: a batch, an unknown method and params that do not
    /// normalise depend on everything.
    func laneDependency(of read: RPCProcessor<HostConnection>.ReadLine) -> LaneDependency {
        switch read {
        case .single(.request(let method, _, let raw)): laneDependency(method: method, params: raw)
        case .single(.invalid), .failed: .none
        case .batch(let entries):
            entries.allSatisfy {
                if case .request(let method, _, let raw) = $0 { laneDependency(method: method, params: raw) == .none } else { true }
            } ? .none : .everything
        }
    }

    /// What a call of `method` with `params` depends on (nil params: only what needs none is told apart).
    func laneDependency(method: String, params raw: JSONValue?) -> LaneDependency {
        guard let classify = Self.classifiers[method] else { return .everything }
        let dependency = classify(self, raw)
        // Under the virtual clock a noted method's reply says what the call left waiting, counted around
        // it: nothing may run beside it while it is parked. (A call that touches nothing never parks.)
        if dependency != .none, virtualClock != nil, Self.notedNames.contains(method) { return .everything }
        return dependency
    }

    private static let notedNames = Set(notedMethods.map { $0.name })

    /// Whether a call of a method that may wait and has a synchronous handler cannot wait.
    func runsNow(method: String, params raw: JSONValue?) -> Bool {
        // A stream names the same method line after line: the last one's decider is kept.
        if lastNowDecider?.method != method { lastNowDecider = (method, Self.nowDeciders[method]) }
        return lastNowDecider?.decide?(self, raw) ?? false
    }

    /// Decodes a call's params for a classifier (nil when they do not decode).
    private static func decoded<M: HostMethod>(_ m: M.Type, _ host: Host, _ raw: JSONValue?) -> M.Params? {
        guard let raw, let params = try? host.processor.registry[M.name]?.normalise(raw) else { return nil }
        return try? M.Params.decode(params)
    }

    private static let nowDeciders: [String: @Sendable (Host, JSONValue?) -> Bool] = {
        func decider<M: HostMethodRunningNow>(_ m: M.Type) -> @Sendable (Host, JSONValue?) -> Bool {
            { host, raw in M.runsNow(on: host, raw: raw) { decoded(M.self, host, raw) } }
        }
        var all: [String: @Sendable (Host, JSONValue?) -> Bool] = [:]
        for case let m as any HostMethodRunningNow.Type in ProtocolCatalog.methods { all[m.name] = decider(m) }
        return all
    }()

    private static let classifiers: [String: @Sendable (Host, JSONValue?) -> LaneDependency] = {
        func classifier<M: HostMethod>(_ m: M.Type) -> @Sendable (Host, JSONValue?) -> LaneDependency {
            { host, raw in M.dependency(on: host) { decoded(M.self, host, raw) } }
        }
        var all: [String: @Sendable (Host, JSONValue?) -> LaneDependency] = [:]
        for m in ProtocolCatalog.methods { all[m.name] = classifier(m) }
        return all
    }()
}

// MARK: What each method touches (the others touch everything)

extension RPCDiscover { static func dependency(on host: Host, _ params: () -> NoParams?) -> LaneDependency { .none } }
extension HostPing { static func dependency(on host: Host, _ params: () -> NoParams?) -> LaneDependency { .none } }
extension HostAuth { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { .none } }
extension EventsSubscribe { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { .none } }
extension EventsUnsubscribe { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { .none } }
// A report of counters: answered while calls wait, so that a monitor sees them waiting.
extension HostStats { static func dependency(on host: Host, _ params: () -> NoParams?) -> LaneDependency { .none } }
extension HostInfo { static func dependency(on host: Host, _ params: () -> NoParams?) -> LaneDependency { .none } }
extension ClockNow { static func dependency(on host: Host, _ params: () -> NoParams?) -> LaneDependency { .none } }
extension TasksAdd { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { .none } }
extension TasksCancel { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { .none } }

/// A range stream call runs the hooks of its session's cells, and of nothing else. While no session has
/// cells it touches nothing. Otherwise: a session with no cells, neither nested in another nor holding
/// nested ones, touches nothing either; one with cells, the session and its cells' classes' code; a
/// nested one (a page or row change of the parent binds and releases the children's cells) touches
/// everything.
private func rangeStream(_ host: Host, _ session: () -> String?) -> LaneDependency {
    guard let ranges = host.ranges, ranges.hasCells else { return .none }
    guard let id = session(), let e = ranges.sessions[id], e.parent == nil, e.nested.isEmpty else { return .everything }
    guard e.cells != nil else { return .none }
    var scopes: Set<LaneScope> = [.range(id)]
    for info in e.sectionInfo { if let name = info.reuseIdentifier { scopes.insert(host.runnerScope(of: name)) } }
    return .only(scopes)
}
extension RangeWillBeginDragging { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { rangeStream(host) { params()?.session } } }
extension RangeDidScroll: HostMethodRunningNow {
    static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { rangeStream(host) { params()?.session } }
    /// A scroll step on a session with no cells and no nested sessions runs no hook.
    static func runsNow(on host: Host, raw: JSONValue?, _ params: () -> Params?) -> Bool {
        guard let ranges = host.ranges, ranges.hasCells || ranges.hasNesting else { return true }
        guard let id = session(raw) ?? params()?.session, let e = ranges.sessions[id] else { return true }
        return RangeSessions.canRefreshNow(e)
    }
    /// The session named by params given as an object is read without decoding them (every step of a
    /// stream asks, while any session has cells or nested sessions).
    static func session(_ raw: JSONValue?) -> String? {
        if case .object(let o)? = raw, case .string(let id)? = o["session"] { return id }
        return nil
    }
}
extension RangeWillEndDragging { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { rangeStream(host) { params()?.session } } }
extension RangeDidEndDecelerating { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { rangeStream(host) { params()?.session } } }
extension RangeSetVisible { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { rangeStream(host) { params()?.session } } }
extension RangeSetViewport { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { rangeStream(host) { params()?.session } } }
extension RangeInsertItems { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { rangeStream(host) { params()?.session } } }
extension RangeDeleteItems { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { rangeStream(host) { params()?.session } } }
extension RangeBatchFetchDone { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { rangeStream(host) { params()?.session } } }
extension RangeState { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { rangeStream(host) { params()?.session } } }

extension ContainerCreate {
    /// The container it makes is new (no other call can name it yet): only its class's runner.
    static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency {
        guard let p = params(), host.classes[p.className] != nil else { return .everything }
        return .only([host.runnerScope(of: p.className)])
    }
}

extension ContainerConfigure {
    static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency {
        params().flatMap { host.standaloneScopes($0.container) }.map { .only($0) } ?? .everything
    }
}

extension ContainerRelease {
    static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency {
        params().flatMap { host.standaloneScopes($0.container) }.map { .only($0) } ?? .everything
    }
}

extension ShowRendered {
    /// Its class's pool and runner (a hit, a miss's create, the configure), and the stack it pushes onto.
    static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency {
        guard let p = params(), host.classes[p.className] != nil else { return .everything }
        // Presenting reaches the presenter's chain and window.
        if case .object? = p.present { return .everything }
        var scopes: Set<LaneScope> = [host.runnerScope(of: p.className)]
        if let id = p.stack {
            guard let stack = host.stackScopes(id) else { return .everything }
            scopes.formUnion(stack)
        }
        return .only(scopes)
    }
}

extension StackCreate {
    /// A new, empty stack: nothing another call could name yet.
    static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { .only([]) }
}

extension StackPush {
    static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency {
        guard let p = params(), let stack = host.stackScopes(p.stack), let pushed = host.standaloneScopes(p.container)
        else { return .everything }
        return .only(stack.union(pushed))
    }
}

/// A call on one stack's containers only.
private func onStack(_ host: Host, _ id: String?) -> LaneDependency {
    id.flatMap { host.stackScopes($0) }.map { .only($0) } ?? .everything
}
extension StackPop { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onStack(host, params()?.stack) } }
extension StackPopToRoot { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onStack(host, params()?.stack) } }
extension StackBeginInteractivePop { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onStack(host, params()?.stack) } }
extension StackUpdateInteractivePop { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onStack(host, params()?.stack) } }
extension StackFinishInteractivePop { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onStack(host, params()?.stack) } }
extension StackCancelInteractivePop { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onStack(host, params()?.stack) } }
extension StackSetHidden { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onStack(host, params()?.stack) } }
extension StackResize { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onStack(host, params()?.stack) } }
extension StackInfo { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onStack(host, params()?.stack) } }

extension StackSetContainers {
    /// The stack, and each container it gets: one already in it, or one no other parent holds.
    static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency {
        guard let p = params(), var scopes = host.stackScopes(p.stack) else { return .everything }
        for id in p.containers {
            if case .stack(p.stack)? = host.containers.containers[id]?.parent { continue }
            guard let own = host.standaloneScopes(id) else { return .everything }
            scopes.formUnion(own)
        }
        return .only(scopes)
    }
}

/// A call on one page session's pages only.
private func onPage(_ host: Host, _ id: String?) -> LaneDependency {
    id.flatMap { host.pageScopes($0) }.map { .only($0) } ?? .everything
}
extension PageShow { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onPage(host, params()?.session) } }
extension PageWillBeginDragging { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onPage(host, params()?.session) } }
extension PageDidScroll { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onPage(host, params()?.session) } }
extension PageWillEndDragging { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onPage(host, params()?.session) } }
extension PageDidEndDragging { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onPage(host, params()?.session) } }
extension PageDidEndDecelerating { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onPage(host, params()?.session) } }
extension PageInfo { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onPage(host, params()?.session) } }
extension PageRemovePages { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onPage(host, params()?.session) } }
extension PageReloadPage { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onPage(host, params()?.session) } }
extension PageDestroy { static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency { onPage(host, params()?.session) } }

extension PageInsertPages {
    /// The session, and the runners of the classes its new pages use.
    static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency {
        guard let p = params(), let page = host.pageScopes(p.session),
              let added = host.pageClassScopes(p.className, p.pages) else { return .everything }
        return .only(page.union(added))
    }
}

extension PageCreate {
    /// A new session (no other call can name it yet): the runners of its pages' classes. One placed in
    /// a stack touches everything (its own container is pushed there).
    static func dependency(on host: Host, _ params: () -> Params?) -> LaneDependency {
        guard let p = params(), p.stack == nil, let scopes = host.pageClassScopes(p.className, p.pages) else { return .everything }
        return .only(scopes)
    }
}
