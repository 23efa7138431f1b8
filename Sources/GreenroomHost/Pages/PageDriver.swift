import GreenroomCore
import GreenroomJSON
import GreenroomRPC

/// Runs Core's page operations (`PageOperation`) step by step: makes children (from a reuse queue, a
/// prerender pool or their class), performs lifecycle actions (hooks and events), releases and recycles
/// children, emits `page` events, tears down the children whose failures are reported, and keeps the
/// animation timer, whose end runs `PageSession.animationEnded`.
extension PageSessions {
    /// Runs `operation` on `e`'s session to its end; returns its error, if any.
    @discardableResult
    func drive(_ operation: consuming PageOperation, in e: PageSessionEntry, preloading: Bool = false) async -> PageError? {
        await driveReporting(operation, in: e, preloading: preloading).error
    }

    /// `drive`, with why a child could not be made when that is the error (its init failed, or a limit
    /// refused it): the -32004 or -32005 the call answers. A value of this run, never kept on the
    /// sessions, so a call that waits part-way cannot see another call's.
    func driveReporting(_ operation: consuming PageOperation, in e: PageSessionEntry, preloading: Bool = false) async
        -> (error: PageError?, notMade: (failure: ContainerFailure, error: RPCError)?)
    {
        let outcome = await driveSteps(operation, in: e)
        if !preloading { schedulePreload(e) }
        // Range sessions nested in its pages follow their pages' appearance.
        await ranges?.pageChanged(e.session.id)
        return outcome
    }

    private func driveSteps(_ operation: consuming PageOperation, in e: PageSessionEntry) async
        -> (error: PageError?, notMade: (failure: ContainerFailure, error: RPCError)?)
    {
        var notMade: (failure: ContainerFailure, error: RPCError)?
        var op = operation
        var input = PageOperation.Input.start
        while true {
            switch op.next(input) {
            case .perform:
                input = .performed(await containers.failure(performing: op.actions))
            case .makeChild(let index):
                do throws(ContainerFailure) { input = .made(try await makeChild(e, index: index, notMade: &notMade)) } catch { input = .notMade(error) }
            case .release(let c, _):
                await releaseChild(c)
                input = .resumed
            case .recycle(let c, _):
                await recycleChild(c, of: e)
                input = .resumed
            case .event(let kind, let from, let to, let completed):
                pageEvent(e, kind, from: from, to: to, completed: completed)
                input = .resumed
            case .trackingChanged:
                trackingChanged()
                input = .resumed
            case .report(let failure):
                await tearDown(failure)
                input = .resumed
            case .startTimer(let ms):
                input = .timerStarted(containers.schedule(afterMs: ms, label: "\(e.session.id) animation") { [weak self, weak e] in
                    guard let self, let e else { return }
                    await drive(e.session.animationEnded(), in: e)
                })
            case .cancelTimer(let token):
                containers.cancel(token)
                input = .resumed
            case .done(let error):
                return (error, notMade)
            }
        }
    }

    /// Neighbour preloading (`offscreenLimit`): at rest with pages to load, one idle `default` task per
    /// session (a duplicate key is ignored), run after the reply and paused while anything tracks. Its own
    /// run schedules nothing: a neighbour that failed to load is not retried until the next rest.
    func schedulePreload(_ e: PageSessionEntry) {
        guard !e.isDestroying, sessions[e.session.id] === e, !e.session.neighboursToPreload.isEmpty else { return }
        let id = e.session.id
        dispatcher.enqueue(key: "preload:\(id)", mode: .default, costKey: "preload") { [weak self, weak e] in
            guard let self, let e, sessions[id] === e, !e.isDestroying else { return }
            // No call waits for it: a neighbour that failed is torn down (its events say so), as `rpc` would.
            let outcome = await driveReporting(e.session.preloadNeighbours(), in: e, preloading: true)
            if let error = outcome.error { _ = await rpc(error, notMade: outcome.notMade) }
        }
    }

    /// A container for page `index`, attached to the session (created, taken from a reuse queue and
    /// re-configured, or taken from a prerender pool). Runs containment hooks.
    private func makeChild(_ e: PageSessionEntry, index: Int, notMade: inout (failure: ContainerFailure, error: RPCError)?) async throws(ContainerFailure) -> ContainerRecord {
        let session = e.session
        guard sessions[session.id] === e else { throw ContainerFailure(container: session.id, hook: .initialize) }
        let cls = e.classes[index]
        let data = e.data[index]
        var c: ContainerRecord?
        var needsConfigure = false
        // Reuse mode: a parked child of the same class is re-configured with this page's data.
        if var queue = e.reuseQueue[cls], !queue.isEmpty {
            c = queue.removeFirst()  // a queue: the longest parked goes first (MJianshu)
            e.reuseQueue[cls] = queue
            needsConfigure = true
        } else if e.prerender, let conn = connections[e.owner] {
            // Children from the prerender pool of their class at the page size; the pool refills after.
            let pool = containers.pools.poolForShow(className: cls, size: session.pageSize)
            let taken = await containers.pools.take(from: pool, owner: conn)
            if let warm = taken {
                pool.hits += 1
                c = warm
                needsConfigure = data != nil
                containers.pools.poolEvent("hit", pool, warm, to: conn, ["session": .string(session.id), "index": .int(index)])
            } else {
                pool.misses += 1
                containers.pools.poolEvent("miss", pool, nil, to: conn, ["session": .string(session.id), "index": .int(index)])
            }
            await containers.pools.refill(pool, afterHit: taken != nil, cause: conn)
        }
        let child: ContainerRecord
        if let c {
            child = c
        } else {
            guard let klass = classes[cls] else { throw ContainerFailure(container: "\(session.id)[\(index)]", hook: .initialize) }
            do throws(RPCError) {
                child = try await containers.create(klass, owner: e.owner, data: data, parent: .page(session: session.id, index: index))
            } catch {
                // Its init failed (already torn down) or the host refused it (a limit): the reply says which.
                let failure = ContainerFailure(container: "\(session.id)[\(index)]", hook: .initialize)
                notMade = (failure, error)
                throw failure
            }
        }
        child.parent = .page(session: session.id, index: index)
        try await containers.perform(containers.lifecycle.willMove(child, toParent: session.id))
        try await containers.perform(containers.lifecycle.didMove(child, toParent: session.id))
        if needsConfigure, let data {
            do { _ = try await containers.configure(child, data: data) } catch {
                throw ContainerFailure(container: child.id, hook: .configure)
            }
        }
        return child
    }

    /// Detaches and deinits a child (willMoveToParent nil, didMoveToParent nil, deinit).
    func releaseChild(_ child: ContainerRecord) async {
        try? await containers.perform(containers.lifecycle.willMove(child, toParent: nil))
        try? await containers.perform(containers.lifecycle.didMove(child, toParent: nil))
        // Its deinit still says which page it was (teardown clears the parent afterwards).
        await containers.teardown(child)
    }

    /// Reuse mode: parks a child that left current +- 1 in its class's reuse queue.
    private func recycleChild(_ child: ContainerRecord, of e: PageSessionEntry) async {
        guard sessions[e.session.id] === e else { return await releaseChild(child) }
        child.parent = .page(session: e.session.id, index: -1)
        e.reuseQueue[child.className, default: []].append(child)
    }

    /// `willTransition {from, to}` / `didTransition {from, to, completed}`.
    private func pageEvent(_ e: PageSessionEntry, _ kind: PageTransitionEvent, from: Int, to: Int, completed: Bool?) {
        guard sessions[e.session.id] === e else { return }
        let target = connections[e.owner]
        guard events.wants(PageTopic.self, owner: target) else { return }
        var f: JSONObject = ["session": .string(e.session.id), "kind": .string(kind.wireName), "from": .int(from), "to": .int(to)]
        if let completed { f["completed"] = .bool(completed) }
        events.emit(PageTopic.self, owner: target, f)
    }

    /// A child failed where no reply carries the error (an animation's end, a hide mid-gesture): it is
    /// torn down.
    func tearDown(_ failure: ContainerFailure) async {
        if let c = containers.containers[failure.container], !c.isDestroyed { await containers.fail(c) }
    }
}
