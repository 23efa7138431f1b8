import GreenroomCore
import GreenroomJSON
import GreenroomRPC

/// What containers and stacks need to know of page sessions: which containers are their pages or their
/// own, and when they must follow (a stack destroyed, a page failed, their own container appearing).
protocol ContainerPages: AnyObject {
    /// `{session, index}` for a page's child, `{session}` for a session's own container, else nil (events
    /// say it).
    func pageInfo(of c: ContainerRecord) -> JSONValue?
    /// The page session whose own container `c` is, if any (it is released with its session only).
    func session(owning c: ContainerRecord) -> String?
    /// A stack is about to be destroyed: page sessions sitting in it go with it, children first.
    func stackWillBeDestroyed(_ s: StackRecord) async
    /// A page's child failed and is about to be torn down: its session lets it go.
    func childFailed(_ c: ContainerRecord)
    /// An appearance hook ran on `c`: a session's own container makes its current page follow.
    func appearanceHookRan(on c: ContainerRecord, _ hook: Hook, animated: Bool) async
}

/// Containers and stacks: binds Core's lifecycle rules to class instances, events, connections and the
/// idle-task dispatcher. Its prerender pools (`pools`) are a part of their own.
public final class Containers: HostDomain {
    // What it works with, given by the host (which owns them all).
    let config: HostConfig
    let classes: ClassRegistry
    let events: EventRouter
    let timers: HostTimers
    let clock: HostClock
    let connections: ConnectionTable
    let processor: RPCProcessor<HostConnection>
    let lane: CallLane
    let dispatcher: IdleTasks
    /// Range sessions, told when a cell's hooks fail (set once they exist: they are made after this).
    unowned(unsafe) var ranges: RangeSessions?
    var now: Double { clock.nowMs }
    private(set) var containers: [String: ContainerRecord] = [:]
    private(set) var instances: [String: ContainerInstance] = [:]
    private(set) var stacks: [String: StackRecord] = [:]
    /// The prerender pools and their green rooms.
    public private(set) lazy var pools = PrerenderPools(containers: self)
    private var nextContainer = 1
    private var nextStack = 1
    /// The connection whose request scheduled a pooled container's warm-up: its events go there.
    var causes: [String: String] = [:]
    /// The last hook failure per container, for the -32004 reply.
    private var failures: [String: (hook: Hook, failure: HookFailure)] = [:]
    public private(set) var unbalancedTransitions = 0
    /// The page sessions, for the containers that are their pages or their own (set by `PageSessions`).
    weak var pages: (any ContainerPages)?

    public var defaultSize = Size(width: 375, height: 667)
    /// Host-wide budget for bytes scripted instances hold (`memoryBytes` times live instances, pooled
    /// or not): a script asks for memory, the host refuses past this (-32005).
    public var scriptedBudgetBytes: Int
    /// Bytes scripted instances hold now, and what each container holds of it.
    public private(set) var scriptedBytes = 0
    private var scriptedCharge: [String: Int] = [:]

    private var timerTokens: [Int: TimerID] = [:]
    /// Replies held until a container's viewDidAppear (`reply: "afterAppear"`), by container.
    private var appearReplies: [String: HeldAppearReply] = [:]

    struct HeldAppearReply {
        weak var connection: HostConnection?
        let id: JSONValue
        let result: JSONValue
        let startedAt: Double
    }
    private var nextToken = 1

    public let lifecycle = Lifecycle()
    /// Saves records' changes while an operation is planned (`planned`), to undo them if a hook failed.
    let journal = RecordJournal()
    var planStats = HookPlanStats()

    /// What the work being run set here: how its hooks run and the failures it collects (its journal
    /// recording is beside it in its `CallScope`). Each piece of work that may wait has its own, so another
    /// run meanwhile has its own.
    struct CallState {
        /// Whether hooks run as they come, are planned, or are replayed after a plan (HookPlanning.swift).
        var hookMode = HookMode.live
        /// Every hook that failed during the call being run, in order (nil outside a call: a timer on the
        /// real clock or an idle pass has no reply to carry its failures; their events say `failed`).
        var callFailures: [JSONValue]?
    }
    /// What the work being run set here, in its own scope.
    var running: CallState {
        get { events.scopes.current.containers }
        _modify { yield &events.scopes.current.containers }
    }
    lazy var stackOps = StackDriver(containers: self)
    /// Modal presentations over stacks and presented containers.
    private(set) lazy var presentations = Presentations(containers: self)
    /// Tab bars.
    private(set) lazy var tabBars = TabBars(containers: self)

    init(config: HostConfig, classes: ClassRegistry, events: EventRouter, timers: HostTimers, clock: HostClock,
         connections: ConnectionTable, processor: RPCProcessor<HostConnection>, lane: CallLane, dispatcher: IdleTasks) {
        self.config = config
        self.classes = classes
        self.events = events
        self.timers = timers
        self.clock = clock
        self.connections = connections
        self.processor = processor
        self.lane = lane
        self.dispatcher = dispatcher
        scriptedBudgetBytes = config.scriptedMemoryBudgetBytes
        // Each piece of work records its plans in its own scope.
        journal.current = { [scopes = events.scopes] in scopes.current.journal }
        try? classes.register(PlainClass(name: "Container"))
    }

    // MARK: Reporting failures in the reply of the call that caused them

    /// A hook failed: kept for the container's -32004 and for the reply of the call being run.
    private func recordFailure(_ c: ContainerRecord, _ hook: Hook, _ error: HookFailure) {
        failures[c.id] = (hook, error)
        config.logger.warning("hook failed; container torn down", metadata: [
            "container": "\(c.id)", "class": "\(c.className)", "hook": "\(hook.rawValue)",
            "plugin": "\(classes[c.className]?.pluginName ?? "-")", "reason": "\(error.message)"])
        running.callFailures?.append(.object(mergingData(error.data, [
            "container": .string(c.id), "class": .string(c.className), "hook": .string(hook.rawValue),
            "message": .string(error.message),
        ])))
    }

    /// Runs one call. Every hook that failed during it is in its reply, a -32004 naming the first
    /// failure with all of them in `data.failures`: a -32004 the call threw gets the list; a call that
    /// otherwise completed has its result in `data.result`, one that failed for another reason its
    /// error in `data.error`. Host-wide calls take the failures into their result instead
    /// (`takeCallFailures`).
    func reportingFailures(_ run: () async throws(RPCError) -> RPCResult) async throws(RPCError) -> RPCResult {
        running.callFailures = []
        defer { running.callFailures = nil }
        let outcome: Result<RPCResult, RPCError>
        do throws(RPCError) { outcome = .success(try await run()) } catch { outcome = .failure(error) }
        guard let failed = running.callFailures, let first = failed.first?.objectValue else { return try outcome.get() }
        let names = failed.compactMap { $0["container"]?.stringValue }.joined(separator: ", ")
        switch outcome {
        case .failure(var e) where e.code == .pluginFailed:
            e.data["failures"] = .array(failed)
            throw e
        case .failure(let e):
            // It failed for another reason too (a pop that found the stack emptied by the failure).
            var data = first
            data["failures"] = .array(failed)
            data["error"] = e.json
            throw RPCError(.pluginFailed, "\(Self.failureSentence(first)); torn down: \(names); and: \(e.message)", data)
        case .success(let result):
            var data = first
            data["failures"] = .array(failed)
            data["result"] = result.value
            throw RPCError(.pluginFailed, "\(Self.failureSentence(first)); torn down: \(names)", data)
        }
    }

    /// "Class.hook failed: why", without saying "Class.hook failed" twice when the plugin's own message
    /// already starts with it (the Article plugin's "Article.configure failed on purpose: ...").
    static func failureSentence(className: String, hook: String, message: String) -> String {
        message.hasPrefix("\(className).\(hook)") ? message : "\(className).\(hook) failed: \(message)"
    }

    private static func failureSentence(_ failure: JSONObject) -> String {
        failureSentence(className: failure["class"]?.stringValue ?? "?", hook: failure["hook"]?.stringValue ?? "?",
                        message: failure["message"]?.stringValue ?? "a hook failed")
    }

    /// Adds the failures of the call being run to its result as `failed` (when there are any): for
    /// host-wide calls (a memory warning, the virtual clock, idle tasks), which reach other connections'
    /// containers too and still completed.
    func takeCallFailures(into result: inout JSONObject) {
        guard let failed = running.callFailures, !failed.isEmpty else { return }
        running.callFailures = []
        result["failed"] = .array(failed)
    }

    // MARK: Performing lifecycle actions

    /// Performs Core's lifecycle actions in order: each hook runs and is emitted, each unbalanced call
    /// counted and emitted; a failing hook is fed back to the pass, which skips the container's later
    /// hooks (`LifecyclePass`). Throws the first failure.
    public func perform(_ actions: LifecycleActions) async throws(ContainerFailure) {
        var pass = LifecyclePass()
        while let action = pass.next(in: actions) {
            switch action {
            case .run(let hook, let c, let context): await pass.ran(action, ok: runHook(hook, on: c, context))
            case .unbalanced(let c, let call, let state): reportUnbalanced(c, call, state)
            }
        }
        if let failure = pass.failure { throw failure }
    }

    /// `perform`, its failure as a value: the answer to a Core machine's perform step (`.performed`).
    func failure(performing actions: LifecycleActions) async -> ContainerFailure? {
        do throws(ContainerFailure) {
            try await perform(actions)
            return nil
        } catch {
            return error
        }
    }

    /// Tears a container down (disappearing if on screen, then deinit). Never fails: deinit always runs.
    func teardown(_ c: ContainerRecord) async {
        try? await perform(lifecycle.teardown(c))
    }

    /// Runs `hook` on `c` and emits its `lifecycle` event; false when it failed. An appearance hook of a
    /// page session's own container is forwarded to its current page.
    private func runHook(_ hook: Hook, on c: ContainerRecord, _ context: HookContext) async -> Bool {
        var input = JSONObject()
        if let a = context.animated { input["animated"] = .bool(a) }
        if let s = context.size { input["size"] = Self.sizeJSON(s) }
        if let p = context.parent { input["parent"] = p.map { .string($0) } ?? .null }
        if isPlanning {
            // Listed to run later, assumed to succeed; its event is held until the plan's hooks ran.
            if plan(hook, on: c, input: input) { emitLifecycle(hook, c, context, failed: false) }
            return true
        }
        guard let instance = instances[c.id] else { return false }
        var ok = true
        do throws(HookFailure) {
            if let known = await knownOutcome(hook, on: c) { _ = try known.get() } else { _ = try await instance.run(hook, input: input) }
        } catch {
            recordFailure(c, hook, error)
            ok = false
        }
        emitLifecycle(hook, c, context, failed: !ok)
        if hook == .viewDidAppear, ok, appearReplies[c.id] != nil { releaseAppearReply(c) }
        if hook == .deinitialize { await finishDestroy(c) }
        if ok, let pages {
            switch hook {
            case .viewWillAppear, .viewDidAppear, .viewWillDisappear, .viewDidDisappear:
                await pages.appearanceHookRan(on: c, hook, animated: context.animated ?? false)
            default: break
            }
        }
        return ok
    }

    private func reportUnbalanced(_ c: ContainerRecord, _ call: AppearanceCall, _ state: Appearance) {
        guard !isPlanning else { return spoilPlan() }
        unbalancedTransitions += 1
        var fields = baseEvent(c, event: "unbalancedAppearanceTransition")
        fields["call"] = .string(call.wireName)
        fields["state"] = .string(state.rawValue)
        events.emit(LifecycleTopic.self, owner: eventTarget(c), fields)
    }

    /// Runs `action` after `ms` of host clock; the events it causes name the timer (`label`) and what
    /// scheduled it.
    public func schedule(afterMs ms: Double, label: String, _ action: @escaping () async -> Void) -> Int {
        // A timer is not held back by a plan: the operation runs live instead.
        guard !isPlanning else { spoilPlan(); return 0 }
        let token = nextToken
        nextToken += 1
        let cause = EventCause.timer(label, scheduledBy: events.currentCause)
        timerTokens[token] = timers.schedule(at: now + ms) { [weak self] in
            guard let self else { return }
            timerTokens[token] = nil
            await events.withCause(cause) { await action() }
        }
        return token
    }

    public func cancel(_ token: Int) {
        guard !isPlanning else { return spoilPlan() }
        if let id = timerTokens.removeValue(forKey: token) { timers.cancel(id) }
    }

    // MARK: Events

    /// The connection that receives a container's events: its owner, or the one that caused its warm-up.
    func eventTarget(_ c: ContainerRecord) -> HostConnection? {
        if let o = c.owner { return connections[o] }
        if let cause = causes[c.id] { return connections[cause] }
        return nil
    }

    func baseEvent(_ c: ContainerRecord, event: String) -> JSONObject {
        var f: JSONObject = ["container": .string(c.id), "class": .string(c.className), "event": .string(event),
                             "offscreen": .bool(c.isOffscreen)]
        if let page = pages?.pageInfo(of: c) { f["page"] = page }
        return f
    }

    private func emitLifecycle(_ hook: Hook, _ c: ContainerRecord, _ context: HookContext, failed: Bool) {
        let target = eventTarget(c)
        guard events.wants(LifecycleTopic.self, owner: target) else { return }
        var f = baseEvent(c, event: hook.rawValue)
        if let a = context.animated { f["animated"] = .bool(a) }
        if let s = context.size { f["size"] = Self.sizeJSON(s) }
        if let p = context.parent { f["parent"] = p.map { .string($0) } ?? .null }
        if failed { f["failed"] = true }
        events.emit(LifecycleTopic.self, owner: target, f)
    }

    static func sizeJSON(_ s: Size) -> JSONValue { ["width": .double(s.width), "height": .double(s.height)] }

    // MARK: Creating and destroying

    /// Creates a container (fresh: view not loaded) and runs `init` with `data`. A warm-up passes its
    /// green room, so that `init` too is reported offscreen, and the connection that caused it.
    /// The id the next `create` gives (so an owner can be known before its init event).
    var nextContainerID: String { "c-\(nextContainer)" }

    func create(_ cls: ContainerClass, owner: String?, data: JSONValue?, offscreenIn greenRoom: String? = nil,
                cause: String? = nil, parent: ContainerParent? = nil) async throws(RPCError) -> ContainerRecord {
        let asked = cls.isScripted ? (cls as? ScriptedClass)?.memoryBytes ?? 0 : 0
        if asked > 0, scriptedBytes + asked > scriptedBudgetBytes {
            throw RPCError(.limitExceeded, "A \(cls.name) holds \(asked) bytes; scripted instances hold \(scriptedBytes) of the host's \(scriptedBudgetBytes)-byte budget (--scripted-memory-budget-bytes)",
                           ["limit": "scriptedMemoryBytes", "max": .int(scriptedBudgetBytes), "budget": .int(scriptedBudgetBytes),
                            "used": .int(scriptedBytes), "asked": .int(asked), "class": .string(cls.name)])
        }
        let id = nextContainerID
        nextContainer += 1
        let instance: ContainerInstance
        do { instance = try await cls.makeInstance(containerID: id) } catch {
            throw RPCError(.pluginFailed, "Creating a \(cls.name) failed: \(error.message)",
                           mergingData(error.data, ["class": .string(cls.name), "hook": "init"]))
        }
        let c = ContainerRecord(id: id, className: cls.name, owner: owner, optionalHooks: cls.optionalHooks, uikit: config.uikit, journal: journal)
        containers[id] = c
        instances[id] = instance
        if asked > 0 {
            scriptedCharge[id] = asked
            scriptedBytes += asked
        }
        if let cause { causes[id] = cause }
        if let greenRoom { c.parent = .greenRoom(greenRoom) }
        // A page child's init already says which page it is for.
        if let parent { c.parent = parent }
        defer { if greenRoom != nil, !c.isDestroyed { c.parent = .none } }
        var input = JSONObject()
        if let data { input["data"] = data }
        do {
            _ = try await instance.run(.initialize, input: input)
            emitLifecycle(.initialize, c, HookContext(), failed: false)
        } catch {
            emitLifecycle(.initialize, c, HookContext(), failed: true)
            recordFailure(c, .initialize, error)
            throw await fail(c)
        }
        return c
    }

    /// Answers `call` (the request being run) once `c` has appeared (its `viewDidAppear` ran): the result
    /// then gets `transitionMs`, the host-clock time from the request to the appearance (the prerendering
    /// article's completion). At once when it already appeared. The caller refused batches first.
    func replyAfterAppear(_ c: ContainerRecord, _ result: JSONValue) -> JSONValue {
        guard c.state != .appeared, let call = processor.currentCall, let id = call.id else {
            return Self.withTransitionMs(result, 0)
        }
        let started = now
        _ = processor.holdReply { [weak self] held in
            self?.appearReplies[c.id] = HeldAppearReply(connection: call.context, id: id, result: held.value,
                                                        startedAt: started)
        }
        return result
    }

    private func releaseAppearReply(_ c: ContainerRecord) {
        guard let held = appearReplies.removeValue(forKey: c.id), let connection = held.connection else { return }
        connection.writeHeldReply(id: held.id, .success(Self.withTransitionMs(held.result, now - held.startedAt)))
    }

    /// A held reply whose container went before it appeared: the caller gets the failure that took it.
    private func failAppearReply(_ c: ContainerRecord) {
        guard let held = appearReplies.removeValue(forKey: c.id), let connection = held.connection else { return }
        let f = failures[c.id]
        let hook = f?.hook.rawValue ?? "deinit"
        connection.writeHeldReply(id: held.id, .failure(RPCError(
            .pluginFailed, "Container \(c.id) was torn down before it appeared" + (f.map { ": \(Self.failureSentence(className: c.className, hook: hook, message: $0.failure.message))" } ?? ""),
            mergingData(f?.failure.data ?? [:], ["container": .string(c.id), "class": .string(c.className), "hook": .string(hook)]))))
    }

    static func withTransitionMs(_ result: JSONValue, _ ms: Double) -> JSONValue {
        guard case .object(var o) = result else { return result }
        o["transitionMs"] = .double(ms)
        return .object(o)
    }

    private func finishDestroy(_ c: ContainerRecord) async {
        if appearReplies[c.id] != nil { failAppearReply(c) }
        await instances.removeValue(forKey: c.id)?.destroy()
        scriptedBytes -= scriptedCharge.removeValue(forKey: c.id) ?? 0
        containers[c.id] = nil
        causes[c.id] = nil
        pools.forget(c)
        failures[c.id] = nil
    }

    /// Takes a container out of wherever it is, balanced (used by release and by moves).
    func detach(_ c: ContainerRecord) async {
        switch c.parent {
        case .stack(let sid), .greenRoom(let sid):
            if let s = stackRecord(sid) { await stackOps.remove(c, from: s) }
        case .presentation:
            if let r = presentations.byPresented[c.id] { await presentations.dismissNow(r) }
        case .tabs(let id):
            if let t = tabBars.tabs[id] { _ = await tabBars.setContainers(t, t.children.filter { $0 !== c }, selected: nil) }
        case .page, .cell, .none:
            break
        }
    }

    func stackRecord(_ id: String) -> StackRecord? {
        if let s = stacks[id] { return s }
        return pools.greenRoom(id: id)
    }

    /// Releases a container: detached (disappearing if on screen), then deinit.
    func release(_ c: ContainerRecord) async {
        await detach(c)
        await teardown(c)
    }

    /// A hook failed: the container is torn down (no further hooks but deinit) and the caller gets
    /// -32004 with what failed.
    @discardableResult
    func fail(_ c: ContainerRecord) async -> RPCError {
        let f = failures[c.id]
        c.markFailed()
        // Out of its parent without hooks: a failed container runs nothing but deinit. Its events
        // still say where it was (offscreen in the green room) until it is gone.
        let parent = c.parent
        var revealed: StackRecord?
        var uncovered: (containers: [ContainerRecord], size: Size?) = ([], nil)
        var tabsToShow: TabsRecord?
        switch parent {
        case .stack(let sid), .greenRoom(let sid):
            if let s = stackRecord(sid) {
                // Only a top that was on screen (or on its way on or off it) uncovers the one below; a
                // newcomer that failed before it began appearing leaves the navigation it was part of to
                // bring the right top on.
                let wasShownTop = s.top === c && c.state != .disappeared
                await stackOps.discard(c, from: s)
                if wasShownTop && s.isShown { revealed = s }
            }
        case .page:
            // Its session must never hold (or end calls on) a torn-down container.
            pages?.childFailed(c)
        case .cell:
            ranges?.cellFailed(c)
        case .presentation:
            // What it presents is dismissed first; the presenter it covered comes back after its teardown.
            uncovered = await presentations.presentedWillFail(c)
        case .tabs:
            tabsToShow = tabBars.childFailed(c)
        default: break
        }
        c.parent = parent
        await teardown(c)
        c.parent = .none
        if let t = tabsToShow { await tabBars.showSelected(t) }
        for shown in uncovered.containers { await performReporting(lifecycle.appear(shown, size: uncovered.size, layout: .afterWillAppear)) }
        // The container it covered is the top of a shown stack again: it appears.
        if let s = revealed, let top = s.top {
            do throws(ContainerFailure) { try await perform(lifecycle.appear(top, size: s.size, layout: .afterWillAppear)) } catch { await deferredFailure(error) }
        }
        let hook = f?.hook.rawValue ?? "unknown"
        return RPCError(.pluginFailed, "\(Self.failureSentence(className: c.className, hook: hook, message: f?.failure.message ?? "hook failed")); container \(c.id) was torn down",
                        mergingData(f?.failure.data ?? [:], ["container": .string(c.id), "class": .string(c.className), "hook": .string(hook)]))
    }

    /// A container failed with no call of its own in flight (its plugin's worker ended): torn down
    /// exactly as when one of its hooks fails.
    func failOutOfBand(_ c: ContainerRecord, hook: Hook, _ failure: HookFailure) async {
        failures[c.id] = (hook, failure)
        await fail(c)
    }

    /// For failures in deferred work (animation ends): tear down, no reply to carry the error.
    lazy var deferredFailure: (ContainerFailure) async -> Void = { [unowned self] failure in
        if let c = self.containers[failure.container], !c.isDestroyed { await self.fail(c) }
    }

    /// Runs a Core operation; a hook failure becomes -32004 after its container is torn down.
    func guarded<T>(_ body: () async throws(ContainerFailure) -> T) async throws(RPCError) -> T {
        try await mappingErrors(rpc, body)
    }

    /// Tears the failed container down; its -32004.
    func rpc(_ failure: ContainerFailure) async -> RPCError {
        guard let c = containers[failure.container] else {
            return RPCError(.pluginFailed, "A hook failed", ["container": .string(failure.container), "hook": .string(failure.hook.rawValue)])
        }
        return await fail(c)
    }

    /// `configure` with business data; returns the hook's output.
    func configure(_ c: ContainerRecord, data: JSONValue) async throws(RPCError) -> JSONValue {
        guard let instance = instances[c.id] else { throw RPCError.unknownObject(c.id, expected: "container") }
        do {
            let out = try await instance.run(.configure, input: ["data": data])
            emitLifecycle(.configure, c, HookContext(), failed: false)
            return out ?? .null
        } catch {
            recordFailure(c, .configure, error)
            emitLifecycle(.configure, c, HookContext(), failed: true)
            throw await fail(c)
        }
    }

    func memoryBytes(_ c: ContainerRecord) -> Int { instances[c.id]?.memoryBytes ?? 0 }

    // MARK: Lookup with errors

    /// The connection's container `id` (-32002 naming `path` otherwise).
    func container(_ id: String, path: String = "container", owner: HostConnection) throws(RPCError) -> ContainerRecord {
        try owner.owned(id, path, in: containers, expected: "container") { $0.isDestroyed ? nil : $0.owner }
    }

    /// The connection's stack `id` (-32002 naming `path` otherwise).
    func stack(_ id: String, path: String = "stack", owner: HostConnection) throws(RPCError) -> StackRecord {
        try owner.owned(id, path, in: stacks, expected: "stack") { $0.owner }
    }

    func makeStack(size: Size, hidden: Bool, owner: String) -> StackRecord {
        let s = StackRecord(id: "s-\(nextStack)", size: size, hidden: hidden, owner: owner, journal: journal)
        nextStack += 1
        stacks[s.id] = s
        return s
    }

    func destroyStack(_ s: StackRecord) async {
        await stackOps.completeTransition(s)
        await presentations.windowWillBeDestroyed(s.id)
        await pages?.stackWillBeDestroyed(s)
        await stackOps.destroy(s)
        stacks[s.id] = nil
    }

    // MARK: HostDomain

    public func register(into r: inout MethodRegistry<HostConnection>) {
        registerClassMethods(into: &r)
        registerContainerMethods(into: &r)
        registerStackMethods(into: &r)
        registerPresentationMethods(into: &r)
        registerTabMethods(into: &r)
        pools.register(into: &r)
    }

    public func connectionClosed(_ connection: HostConnection) async {
        let id = connection.id
        // Deliver running animations first, so everything tears down balanced.
        for s in stacks.values where s.owner == id { await stackOps.completeTransition(s) }
        for s in stacks.values.sorted(by: { $0.id < $1.id }) where s.owner == id { await destroyStack(s) }
        await tabBars.connectionClosed(id)
        for c in containers.values.sorted(by: { $0.id < $1.id }) where c.owner == id && !c.isDestroyed {
            if case .page = c.parent { continue }  // page sessions tear their own children down
            await release(c)
        }
        for (cid, cause) in causes where cause == id { causes[cid] = nil }
    }

    /// Live (not destroyed) containers of a class, pooled ones included.
    func liveInstances(of className: String) -> [ContainerRecord] {
        containers.values.filter { $0.className == className && !$0.isDestroyed }.sorted { $0.id < $1.id }
    }

    public func reset(caller: HostConnection) async -> JSONObject {
        let (pooled, _) = await pools.purgePools(className: nil, reason: "reset", caller: caller, coolDown: false)
        let poolCount = pools.order.count
        pools.removePools(of: nil)
        let scripted = classes.scriptedNames
        for name in scripted { try? classes.unregisterScripted(name) }
        // Ids start again from 1 only when nothing that had one is left.
        if containers.values.allSatisfy(\.isDestroyed) { nextContainer = 1 }
        if stacks.isEmpty { nextStack = 1 }
        return ["pools": .int(poolCount), "pooledContainers": .int(pooled),
                "classesUndefined": .array(scripted.map { .string($0) })]
    }

    public func memoryWarning(level: String, caller: HostConnection?) async -> JSONObject {
        // Graded (docs/pools.md): a `warning` trims each pool to one idle container, a `critical` one
        // purges them all.
        let (count, bytes) = await pools.purgePools(className: nil, reason: "memoryWarning", caller: caller, coolDown: true,
                                              keep: level == "critical" ? 0 : 1)
        var notified = 0
        // Every live container, its view loaded or not: UIKit sends the warning to every view controller.
        for c in containers.values.sorted(by: { $0.id < $1.id }) where !c.isDestroyed && !c.isFailed {
            switch c.parent {
            case .greenRoom, .page: continue  // pooled ones were purged; page sessions handle their children
            default: break
            }
            await notifyMemoryWarning(c, level: level)
            notified += 1
        }
        return ["pooledContainers": .int(count), "pooledBytes": .int(bytes), "notifiedContainers": .int(notified)]
    }

    /// Runs `didReceiveMemoryWarning` on a live container.
    func notifyMemoryWarning(_ c: ContainerRecord, level: String) async {
        guard let instance = instances[c.id], !c.isDestroyed, !c.isFailed else { return }
        do {
            _ = try await instance.run(.didReceiveMemoryWarning, input: ["level": .string(level)])
            emitLifecycle(.didReceiveMemoryWarning, c, HookContext(), failed: false)
        } catch {
            recordFailure(c, .didReceiveMemoryWarning, error)
            emitLifecycle(.didReceiveMemoryWarning, c, HookContext(), failed: true)
            await fail(c)
        }
    }

    public func addStats(to stats: inout JSONObject) {
        var byState: [String: Int] = [:]
        for s in ["fresh", "appearing", "appeared", "disappearing", "disappeared"] { byState[s] = 0 }
        var pooled = 0
        for c in containers.values where !c.isDestroyed {
            byState[c.summaryState, default: 0] += 1
            if case .greenRoom = c.parent { pooled += 1 }
        }
        var states = JSONObject()
        for s in ["fresh", "appearing", "appeared", "disappearing", "disappeared"] { states[s] = .int(byState[s] ?? 0) }
        stats["containers"] = [
            "total": .int(containers.count),
            "pooled": .int(pooled),
            "byState": .object(states),
        ]
        stats["stacks"] = .int(stacks.count)
        stats["pools"] = [
            "count": .int(pools.byKey.count),
            "idle": .int(pooled),
            "pooledBytes": .int(pools.pooledBytes()),
            "budgetBytes": .int(pools.budgetBytes),
        ]
        stats["scriptedMemory"] = ["usedBytes": .int(scriptedBytes), "budgetBytes": .int(scriptedBudgetBytes)]
        stats["unbalancedTransitions"] = .int(unbalancedTransitions)
        stats["hookBatching"] = planStats.json(enabled: config.plugins.batchesHooks)
    }
}

func mergingData(_ base: JSONObject, _ extra: JSONObject) -> JSONObject {
    var d = base
    for m in extra.members { d[m.key] = m.value }
    return d
}
