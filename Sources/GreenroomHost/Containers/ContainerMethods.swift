import GreenroomCore
import GreenroomJSON
import GreenroomRPC

extension Containers {
    func registerClassMethods(into r: inout MethodRegistry<HostConnection>) {
        r.register(ClassesList.self) { [unowned self] _, _ throws(RPCError) in
            let list: [JSONValue] = classes.order.compactMap { name in
                guard let c = classes[name] else { return nil }
                var entry: JSONObject = ["name": .string(name), "plugin": c.pluginName.map { .string($0) } ?? .null,
                                         "scripted": .bool(c.isScripted)]
                if let plugin = c.pluginName, case .string(let state)? = classes.pluginStatus?(plugin)?["state"] {
                    entry["pluginState"] = .string(state)
                }
                return .object(entry)
            }
            return ["classes": .array(list)]
        }
        r.register(ClassesDefine.self) { [unowned self] _, p throws(RPCError) in
            let cls = try ScriptedClass.define(p)
            try classes.register(cls)
            if cls.hooks.values.contains(where: { $0.costMs > 0 }) {
                // Its costs park in the call lane, so they never hold the loop (see `CallLane.spend`).
                cls.spend = { [unowned self] ms in await lane.spend(ms: ms) }
            }
            return ["name": .string(cls.name), "plugin": .null, "scripted": true,
                    "hooks": .array(Hook.allCases.filter { cls.hooks[$0] != nil }.map { .string($0.rawValue) }),
                    "memoryBytes": .int(cls.memoryBytes)]
        }
        r.register(ClassesUndefine.self) { [unowned self] _, p throws(RPCError) in
            let name = p.name
            _ = try classes.require(name, path: "name")
            let live = liveInstances(of: name)
            guard live.isEmpty else {
                let pooled = live.filter { if case .greenRoom = $0.parent { true } else { false } }.count
                throw RPCError.invalidState(
                    "Class \(name) still has \(live.count) live instance\(live.count == 1 ? "" : "s")"
                        + (pooled > 0 ? " (\(pooled) idle in its pools: pool.purge {\"class\": \"\(name)\"} releases them)" : "")
                        + "; release them first",
                    ["class": .string(name), "path": "name", "containers": .array(live.map { .string($0.id) }),
                     "pooled": .int(pooled)])
            }
            try classes.unregisterScripted(name)
            pools.removePools(of: name)
            return ["name": .string(name), "undefined": true]
        }
    }

    func containerInfo(_ c: ContainerRecord) -> JSONValue {
        var parent: JSONValue = .null
        switch c.parent {
        case .none: break
        case .stack(let s): parent = ["kind": "stack", "id": .string(s)]
        case .greenRoom(let g): parent = ["kind": "greenRoom", "id": .string(g)]
        case .page(let s, let i): parent = ["kind": "page", "id": .string(s), "index": .int(i)]
        case .cell(let s): parent = ["kind": "cell", "id": .string(s)]
        case .presentation(let p): parent = ["kind": "presentation", "id": .string(p)]
        case .tabs(let t): parent = ["kind": "tabs", "id": .string(t)]
        }
        return [
            "container": .string(c.id),
            "class": .string(c.className),
            "state": .string(c.summaryState),
            "appearance": .string(c.state.rawValue),
            "viewLoaded": .bool(c.viewLoaded),
            "size": c.laidOutSize.map { Self.sizeJSON($0) } ?? .null,
            "parent": parent,
            "offscreen": .bool(c.isOffscreen),
            "memoryBytes": .int(memoryBytes(c)),
        ]
    }

    func registerContainerMethods(into r: inout MethodRegistry<HostConnection>) {
        r.register(ContainerCreate.self) { [unowned self] conn, p async throws(RPCError) in
            let cls = try classes.require(p.className)
            let c = try await create(cls, owner: conn.id, data: p.data)
            return containerInfo(c)
        }
        r.register(ContainerConfigure.self) { [unowned self] conn, p async throws(RPCError) in
            let data = p.data ?? .null  // required: the decoder refused its absence
            let c = try container(p.container, owner: conn)
            let output = try await configure(c, data: data)
            return ["container": .string(c.id), "output": output]
        }
        r.register(ContainerInfo.self) { [unowned self] conn, p throws(RPCError) in
            containerInfo(try container(p.container, owner: conn))
        }
        r.register(ContainerRelease.self) { [unowned self] conn, p async throws(RPCError) in
            let c = try container(p.container, owner: conn)
            if case .page(let session, _) = c.parent {
                throw .invalidState("Container \(c.id) is a child of page session \(session); destroy the session instead",
                                    ["container": .string(c.id), "session": .string(session)])
            }
            if case .cell(let session) = c.parent {
                throw .invalidState("Container \(c.id) is a cell of range session \(session); its session keeps it (range.destroy releases it)",
                                    ["container": .string(c.id), "session": .string(session)])
            }
            if let session = pages?.session(owning: c) {
                throw .invalidState("Container \(c.id) is page session \(session)'s own container; destroy the session (page.destroy) instead",
                                    ["container": .string(c.id), "session": .string(session)])
            }
            try await refuseDuringInteractivePop(containing: c)
            try refusePresented(c)
            await release(c)
            return ["container": .string(c.id), "released": true]
        }
        // UIKit's beginAppearanceTransition / endAppearanceTransition, by hand, as a custom container drives
        // its child: any call of the appearance table, an unbalanced one refused (no hook), emitted and counted
        // as the host's own would be. Only for a container with no parent, whose appearance no flow of the
        // host drives (a stack, green room or page session keeps its children balanced itself).
        r.register(ContainerBeginAppearanceTransition.self) { [unowned self] conn, p async throws(RPCError) in
            let c = try looseContainer(p.container, owner: conn)
            let appearing = p.appearing
            let animated = p.animated ?? false
            try await guarded { () throws(ContainerFailure) in try await perform(lifecycle.begin(c, appearing: appearing, animated: animated)) }
            return containerInfo(c)
        }
        r.register(ContainerEndAppearanceTransition.self) { [unowned self] conn, p async throws(RPCError) in
            let c = try looseContainer(p.container, owner: conn)
            let animated = p.animated ?? false
            try await guarded { () throws(ContainerFailure) in try await perform(lifecycle.end(c, animated: animated)) }
            return containerInfo(c)
        }
    }

    /// The connection's container named by `container`, refused (-32003, naming its parent) when a stack, a
    /// green room or a page session drives its appearance.
    private func looseContainer(_ id: String, owner conn: HostConnection) throws(RPCError) -> ContainerRecord {
        let c = try container(id, owner: conn)
        var data: JSONObject = ["container": .string(c.id)]
        switch c.parent {
        case .none:
            if let session = pages?.session(owning: c) {
                data["session"] = .string(session)
                throw .invalidState("Container \(c.id) is page session \(session)'s own container: the session drives its appearance", data)
            }
            return c
        case .stack(let s): data["stack"] = .string(s)
        case .greenRoom(let g): data["greenRoom"] = .string(g)
        case .page(let session, _): data["session"] = .string(session)
        case .cell(let session): data["session"] = .string(session)
        case .presentation(let p): data["presenter"] = .string(p)
        case .tabs(let t): data["tabs"] = .string(t)
        }
        throw .invalidState("Container \(c.id) has a parent that drives its appearance; manual appearance calls are for a container with none", data)
    }

    func stackInfo(_ s: StackRecord) -> JSONValue {
        var gesture: JSONValue = .null
        if let g = s.interactivePop {
            gesture = ["container": .string(g.top.id), "revealed": .string(g.revealed.id), "progress": .double(g.progress)]
        }
        return [
            "stack": .string(s.id),
            "width": .double(s.size.width),
            "height": .double(s.size.height),
            "hidden": .bool(s.isHidden),
            "containers": .array(s.items.map { .string($0.id) }),
            "top": s.top.map { .string($0.id) } ?? .null,
            "animating": .bool(s.isAnimating),
            "interactivePop": gesture,
        ]
    }

    static func size(width w: Double, height h: Double) throws(RPCError) -> Size {
        guard w > 0, w <= 100_000 else { throw .invalidParams(path: "width", "must be > 0 and <= 100000") }
        guard h > 0, h <= 100_000 else { throw .invalidParams(path: "height", "must be > 0 and <= 100000") }
        return Size(width: w, height: h)
    }

    /// The longest `duration` a call may ask for: ten minutes of host clock.
    static let maxDurationMs: Double = 600_000

    /// A call's `duration` (ms of host clock, for an animated transition; the default when absent). When
    /// the transition runs now (`animated`), its end must be a time the clock can reach: a virtual clock
    /// stops at 2^53 ms, so an animation that would end past it could never end, and is refused rather
    /// than left running for ever.
    func duration(_ ms: Double?, animated: Bool) throws(RPCError) -> Double {
        let d = ms ?? StackDriver.defaultDurationMs
        guard d >= 0, d <= Self.maxDurationMs else {
            throw .invalidParams(path: "duration", "must be between 0 and \(Int(Self.maxDurationMs)) ms")
        }
        // Compared as what is left (exact), not as a sum (2^53 + 1 rounds to 2^53).
        if animated, d > VirtualClock.latestExactMs - now {
            throw .invalidParams(path: "duration", "the transition would end at t=\(Host.formatMs(now + d)) ms, past 2^53 ms, "
                                 + "which the clock never reaches (it must stay exact)")
        }
        return d
    }

    /// Refuses (-32003) a call on a stack whose interactive pop is live: only its update, finish or
    /// cancel may touch it (UIKit ignores navigation calls during the gesture; a tool says why).
    func refuseDuringInteractivePop(_ s: StackRecord) throws(RPCError) {
        guard let g = s.interactivePop else { return }
        throw .invalidState(
            "Stack \(s.id) has an interactive pop in progress (\(g.top.id) over \(g.revealed.id)): finish it "
                + "(stack.finishInteractivePop) or cancel it (stack.cancelInteractivePop) first",
            ["stack": .string(s.id), "container": .string(g.top.id), "revealed": .string(g.revealed.id),
             "progress": .double(g.progress)])
    }

    /// Refuses (-32003) moving or releasing a container that sits in a stack with a live interactive pop.
    func refuseDuringInteractivePop(containing c: ContainerRecord) async throws(RPCError) {
        if case .stack(let sid) = c.parent, let s = stacks[sid] { try refuseDuringInteractivePop(s) }
    }

    /// Pushes with docs/lifecycle.md's rules: already in this stack -> invalidState (UIKit crashes); in another
    /// stack -> moved (it disappears there first); a page session's child cannot be pushed.
    func push(_ c: ContainerRecord, onto s: StackRecord, animated: Bool,
              durationMs: Double = StackDriver.defaultDurationMs) async throws(RPCError) {
        if s.contains(c) {
            throw .invalidState("Container \(c.id) is already in stack \(s.id) (UIKit would crash)",
                                ["container": .string(c.id), "stack": .string(s.id)])
        }
        if case .page(let session, _) = c.parent {
            throw .invalidState("Container \(c.id) is a child of page session \(session)",
                                ["container": .string(c.id), "session": .string(session)])
        }
        if case .cell(let session) = c.parent {
            throw .invalidState("Container \(c.id) is a cell of range session \(session)",
                                ["container": .string(c.id), "session": .string(session)])
        }
        try refuseDuringInteractivePop(s)
        try await refuseDuringInteractivePop(containing: c)
        try refusePresented(c)
        await detach(c)
        // A hook that failed as it left its last parent tore it down: the reply is that failure's -32004,
        // with this in its `data.error`.
        guard !c.isDestroyed else {
            throw .invalidState("Container \(c.id) was torn down as it left its last parent; nothing was pushed onto \(s.id)",
                                ["container": .string(c.id), "stack": .string(s.id)])
        }
        try await guarded { () throws(ContainerFailure) in try await stackOps.push(c, onto: s, animated: animated, durationMs: durationMs) }
    }

    /// `reply: "afterAppear"` holds the reply back, which a batch cannot (its replies go out together), and
    /// which a hidden stack would hold until it is shown (its containers do not appear): both are refused.
    func refuseHeldReply(_ reply: String, onto s: StackRecord?) throws(RPCError) {
        guard reply == "afterAppear" else { return }
        if processor.isInBatch {
            throw .invalidParams(path: "reply", "afterAppear cannot be used in a batch (the batch's replies go out together); send the call on its own")
        }
        if let s, s.isHidden {
            throw RPCError(.invalidState, "Stack \(s.id) is hidden: nothing appears on it until it is shown, so afterAppear would wait for that",
                           ["stack": .string(s.id), "param": "reply"])
        }
        if let s, s.isCovered {
            throw RPCError(.invalidState, "Stack \(s.id) is covered by a presentation: nothing appears on it until that is dismissed, so afterAppear would wait for that",
                           ["stack": .string(s.id), "param": "reply"])
        }
    }

    /// The connection's stack named by `stack`, refused when an interactive pop is live on it.
    private func stackAtRest(_ id: String, owner conn: HostConnection) throws(RPCError) -> StackRecord {
        let s = try stack(id, owner: conn)
        try refuseDuringInteractivePop(s)
        return s
    }

    /// The connection's stack named by `stack`, which must have a live interactive pop.
    private func stackInGesture(_ id: String, owner conn: HostConnection) throws(RPCError) -> StackRecord {
        let s = try stack(id, owner: conn)
        guard s.interactivePop != nil else {
            throw .invalidState("Stack \(s.id) has no interactive pop in progress (stack.beginInteractivePop starts one)",
                                ["stack": .string(s.id)])
        }
        return s
    }

    /// `setContainers`' list: the connection's containers, each once, none a page session's child or own
    /// container, none in a stack whose interactive pop is live.
    private func containerList(_ ids: [String], for s: StackRecord, owner conn: HostConnection) async throws(RPCError) -> [ContainerRecord] {
        guard ids.count <= 10_000 else { throw .invalidParams(path: "containers", "must hold at most 10000 containers") }
        var list: [ContainerRecord] = []
        var seen: [String: Int] = [:]
        for (i, id) in ids.enumerated() {
            let path = "containers[\(i)]"
            if let first = seen[id] {
                throw .invalidParams(path: path, "\(id) is already at containers[\(first)]; a container is in a stack at most once")
            }
            seen[id] = i
            guard let c = containers[id], !c.isDestroyed, c.owner == conn.id else {
                throw RPCError(.unknownObject, "No container with id \(id) on this connection",
                               ["id": .string(id), "expected": "container", "path": .string(path)])
            }
            if case .page(let session, _) = c.parent {
                throw .invalidState("Container \(c.id) is a child of page session \(session)",
                                    ["container": .string(c.id), "session": .string(session), "path": .string(path)])
            }
            if !s.contains(c) { try await refuseDuringInteractivePop(containing: c) }
            try refusePresented(c, path: path)
            list.append(c)
        }
        return list
    }

    func registerStackMethods(into r: inout MethodRegistry<HostConnection>) {
        r.register(StackCreate.self) { [unowned self] conn, p throws(RPCError) in
            let size = try Self.size(width: p.width, height: p.height)
            let s = makeStack(size: size, hidden: p.hidden ?? false, owner: conn.id)
            return stackInfo(s)
        }
        r.register(StackPush.self) { [unowned self] conn, p async throws(RPCError) in
            // Params first (-32602), then the objects (-32002) and their state (-32003).
            let ms = try duration(p.duration, animated: p.animated ?? false)
            let s = try stack(p.stack, owner: conn)
            try refuseHeldReply(p.reply, onto: s)
            let c = try container(p.container, owner: conn)
            let animated = p.animated ?? false
            // Not animated, its hooks all run now: those in a plugin's worker go there in one message.
            try await planned(animated ? nil : worker(of: c) ?? worker(of: s.top)) { () throws(RPCError) in
                try await push(c, onto: s, animated: animated, durationMs: ms)
            }
            return p.reply == "afterAppear" ? replyAfterAppear(c, stackInfo(s)) : stackInfo(s)
        }
        r.register(StackPop.self) { [unowned self] conn, p async throws(RPCError) in
            let ms = try duration(p.duration, animated: p.animated ?? false)
            let s = try stackAtRest(p.stack, owner: conn)
            let animated = p.animated ?? false
            var popped: ContainerRecord?
            try await planned(animated ? nil : worker(of: s.top)) { () throws(RPCError) in
                popped = await stackOps.pop(s, animated: animated, durationMs: ms)
            }
            guard let c = popped else {
                throw .invalidState("Stack \(s.id) is empty", ["stack": .string(s.id)])
            }
            return ["container": .string(c.id), "stack": stackInfo(s)]
        }
        r.register(StackPopToRoot.self) { [unowned self] conn, p async throws(RPCError) in
            let ms = try duration(p.duration, animated: p.animated ?? false)
            let s = try stackAtRest(p.stack, owner: conn)
            let animated = p.animated ?? false
            let popped = await stackOps.popToRoot(s, animated: animated, durationMs: ms)
            return ["containers": .array(popped.map { .string($0.id) }), "stack": stackInfo(s)]
        }
        r.register(StackSetContainers.self) { [unowned self] conn, p async throws(RPCError) in
            let ms = try duration(p.duration, animated: p.animated ?? false)
            let s = try stackAtRest(p.stack, owner: conn)
            let list = try await containerList(p.containers, for: s, owner: conn)
            let animated = p.animated ?? false
            // Newcomers leave where they are first (another stack: they disappear there at once).
            for c in list where !s.contains(c) { await detach(c) }
            let removed = await stackOps.setContainers(s, list.filter { !$0.isDestroyed }, animated: animated, durationMs: ms)
            return ["stack": stackInfo(s), "removed": .array(removed.map { .string($0.id) })]
        }
        r.register(StackBeginInteractivePop.self) { [unowned self] conn, p async throws(RPCError) in
            let s = try stackAtRest(p.stack, owner: conn)
            guard s.isShown else {
                throw .invalidState("Stack \(s.id) is \(s.isHidden ? "hidden" : "covered by a presentation"): nothing is on screen to swipe back from", ["stack": .string(s.id)])
            }
            guard s.items.count > 1 else {
                throw .invalidState("Stack \(s.id) holds \(s.items.count) container\(s.items.count == 1 ? "" : "s"): an interactive pop needs one below the top",
                                    ["stack": .string(s.id), "containers": .int(s.items.count)])
            }
            await stackOps.beginInteractivePop(s)
            return ["stack": stackInfo(s)]
        }
        r.register(StackUpdateInteractivePop.self) { [unowned self] conn, p throws(RPCError) in
            let progress = p.progress
            guard progress >= 0, progress <= 1 else { throw .invalidParams(path: "progress", "must be between 0 and 1") }
            let s = try stackInGesture(p.stack, owner: conn)
            StackOperation.updateInteractivePop(s, progress: progress)
            return ["stack": stackInfo(s)]
        }
        r.register(StackFinishInteractivePop.self) { [unowned self] conn, p async throws(RPCError) in
            let ms = try duration(p.duration, animated: true)
            let s = try stackInGesture(p.stack, owner: conn)
            guard let c = await stackOps.finishInteractivePop(s, durationMs: ms) else {
                throw .invalidState("Stack \(s.id) has no interactive pop in progress", ["stack": .string(s.id)])
            }
            return ["container": .string(c.id), "stack": stackInfo(s)]
        }
        r.register(StackCancelInteractivePop.self) { [unowned self] conn, p async throws(RPCError) in
            let ms = try duration(p.duration, animated: true)
            let s = try stackInGesture(p.stack, owner: conn)
            await stackOps.cancelInteractivePop(s, durationMs: ms)
            return ["stack": stackInfo(s)]
        }
        r.register(StackSetHidden.self) { [unowned self] conn, p async throws(RPCError) in
            let s = try stackAtRest(p.stack, owner: conn)
            if let r = presentations.byPresenter[s.id], p.hidden != s.isHidden {
                throw .invalidState("Stack \(s.id) presents \(r.presented.id): dismiss it before hiding the window",
                                    ["stack": .string(s.id), "presented": .string(r.presented.id)])
            }
            await stackOps.setHidden(s, p.hidden)
            return stackInfo(s)
        }
        r.register(StackResize.self) { [unowned self] conn, p async throws(RPCError) in
            let size = try Self.size(width: p.width, height: p.height)
            let s = try stackAtRest(p.stack, owner: conn)
            try await resizeWindow(s.id, root: s.isHidden ? [] : s.top.map { [$0] } ?? [], hidden: s.isHidden,
                                   from: s.size, to: size) { await stackOps.resize(s, to: size) }
            return stackInfo(s)
        }
        r.register(StackInfo.self) { [unowned self] conn, p throws(RPCError) in
            stackInfo(try stack(p.stack, owner: conn))
        }
        r.register(StackDestroy.self) { [unowned self] conn, p async throws(RPCError) in
            let s = try stackAtRest(p.stack, owner: conn)
            let ids = s.items.reversed().map { JSONValue.string($0.id) }
            await destroyStack(s)
            return ["stack": .string(s.id), "destroyed": true, "released": .array(ids)]
        }
    }
}
