import GreenroomCore
import GreenroomJSON
import GreenroomRPC

extension Containers {
    func registerClassMethods(into r: inout MethodRegistry<HostConnection>) {
        r.register("classes.list") { [unowned self] _, _ throws(RPCError) in
            let list: [JSONValue] = host.classes.order.compactMap { name in
                guard let c = host.classes[name] else { return nil }
                var entry: JSONObject = ["name": .string(name), "plugin": c.pluginName.map { .string($0) } ?? .null,
                                         "scripted": .bool(c.isScripted)]
                if let plugin = c.pluginName, case .string(let state)? = host.classes.pluginStatus?(plugin)?["state"] {
                    entry["pluginState"] = .string(state)
                }
                return .object(entry)
            }
            return ["classes": .array(list)]
        }
        r.register("classes.define", params: ["name", "hooks", "memoryBytes"]) { [unowned self] _, p throws(RPCError) in
            let cls = try ScriptedClass.define(p)
            try host.classes.register(cls)
            return ["name": .string(cls.name), "plugin": .null, "scripted": true,
                    "hooks": .array(Hook.allCases.filter { cls.hooks[$0] != nil }.map { .string($0.rawValue) }),
                    "memoryBytes": .int(cls.memoryBytes)]
        }
        r.register("classes.undefine", params: ["name"]) { [unowned self] _, p throws(RPCError) in
            let name: String = try p.require("name")
            _ = try host.classes.require(name, path: "name")
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
            try host.classes.unregisterScripted(name)
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
        r.register("container.create", params: ["class", "data"]) { [unowned self] conn, p throws(RPCError) in
            let cls = try host.classes.require(try p.require("class"))
            let c = try create(cls, owner: conn.id, data: p.value("data"))
            return containerInfo(c)
        }
        r.register("container.configure", params: ["container", "data"]) { [unowned self] conn, p throws(RPCError) in
            guard let data = p.value("data") else { throw .invalidParams(path: "data", "is required") }
            let c = try container(p, owner: conn)
            let output = try configure(c, data: data)
            return ["container": .string(c.id), "output": output]
        }
        r.register("container.info", params: ["container"]) { [unowned self] conn, p throws(RPCError) in
            containerInfo(try container(p, owner: conn))
        }
        r.register("container.release", params: ["container"]) { [unowned self] conn, p throws(RPCError) in
            let c = try container(p, owner: conn)
            if case .page(let session, _) = c.parent {
                throw .invalidState("Container \(c.id) is a child of page session \(session); destroy the session instead",
                                    ["container": .string(c.id), "session": .string(session)])
            }
            if let session = pages?.session(owning: c) {
                throw .invalidState("Container \(c.id) is page session \(session)'s own container; destroy the session (page.destroy) instead",
                                    ["container": .string(c.id), "session": .string(session)])
            }
            try refuseDuringInteractivePop(containing: c)
            release(c)
            return ["container": .string(c.id), "released": true]
        }
        // UIKit's beginAppearanceTransition / endAppearanceTransition, by hand, as a custom container drives
        // its child: any call of the appearance table, an unbalanced one refused (no hook), emitted and counted
        // as the host's own would be. Only for a container with no parent, whose appearance no flow of the
        // host drives (a stack, green room or page session keeps its children balanced itself).
        r.register("container.beginAppearanceTransition", params: ["container", "appearing", "animated"]) { [unowned self] conn, p throws(RPCError) in
            let c = try looseContainer(p, owner: conn)
            let appearing: Bool = try p.require("appearing")
            let animated: Bool = try p.optional("animated") ?? false
            try guarded { () throws(ContainerFailure) in try perform(lifecycle.begin(c, appearing: appearing, animated: animated)) }
            return containerInfo(c)
        }
        r.register("container.endAppearanceTransition", params: ["container", "animated"]) { [unowned self] conn, p throws(RPCError) in
            let c = try looseContainer(p, owner: conn)
            let animated: Bool = try p.optional("animated") ?? false
            try guarded { () throws(ContainerFailure) in try perform(lifecycle.end(c, animated: animated)) }
            return containerInfo(c)
        }
    }

    /// The connection's container named by `container`, refused (-32003, naming its parent) when a stack, a
    /// green room or a page session drives its appearance.
    private func looseContainer(_ p: Params, owner conn: HostConnection) throws(RPCError) -> ContainerRecord {
        let c = try container(p, owner: conn)
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

    static func size(_ p: Params) throws(RPCError) -> Size {
        let w: Double = try p.require("width")
        let h: Double = try p.require("height")
        guard w > 0, w <= 100_000 else { throw .invalidParams(path: "width", "must be > 0 and <= 100000") }
        guard h > 0, h <= 100_000 else { throw .invalidParams(path: "height", "must be > 0 and <= 100000") }
        return Size(width: w, height: h)
    }

    /// The longest `duration` a call may ask for: ten minutes of host clock.
    static let maxDurationMs: Double = 600_000

    /// A call's `duration` (ms of host clock, for an animated transition; the default when absent).
    static func duration(_ p: Params) throws(RPCError) -> Double {
        guard let ms: Double = try p.optional("duration") else { return StackDriver.defaultDurationMs }
        guard ms >= 0, ms <= maxDurationMs else {
            throw .invalidParams(path: "duration", "must be between 0 and \(Int(maxDurationMs)) ms")
        }
        return ms
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
    func refuseDuringInteractivePop(containing c: ContainerRecord) throws(RPCError) {
        if case .stack(let sid) = c.parent, let s = stacks[sid] { try refuseDuringInteractivePop(s) }
    }

    /// Pushes with docs/lifecycle.md's rules: already in this stack -> invalidState (UIKit crashes); in another
    /// stack -> moved (it disappears there first); a page session's child cannot be pushed.
    func push(_ c: ContainerRecord, onto s: StackRecord, animated: Bool,
              durationMs: Double = StackDriver.defaultDurationMs) throws(RPCError) {
        if s.contains(c) {
            throw .invalidState("Container \(c.id) is already in stack \(s.id) (UIKit would crash)",
                                ["container": .string(c.id), "stack": .string(s.id)])
        }
        if case .page(let session, _) = c.parent {
            throw .invalidState("Container \(c.id) is a child of page session \(session)",
                                ["container": .string(c.id), "session": .string(session)])
        }
        try refuseDuringInteractivePop(s)
        try refuseDuringInteractivePop(containing: c)
        detach(c)
        // A hook that failed as it left its last parent tore it down: the reply is that failure's -32004,
        // with this in its `data.error`.
        guard !c.isDestroyed else {
            throw .invalidState("Container \(c.id) was torn down as it left its last parent; nothing was pushed onto \(s.id)",
                                ["container": .string(c.id), "stack": .string(s.id)])
        }
        try guarded { () throws(ContainerFailure) in try stackOps.push(c, onto: s, animated: animated, durationMs: durationMs) }
    }

    /// The connection's stack named by `stack`, refused when an interactive pop is live on it.
    private func stackAtRest(_ p: Params, owner conn: HostConnection) throws(RPCError) -> StackRecord {
        let s = try stack(p, owner: conn)
        try refuseDuringInteractivePop(s)
        return s
    }

    /// The connection's stack named by `stack`, which must have a live interactive pop.
    private func stackInGesture(_ p: Params, owner conn: HostConnection) throws(RPCError) -> StackRecord {
        let s = try stack(p, owner: conn)
        guard s.interactivePop != nil else {
            throw .invalidState("Stack \(s.id) has no interactive pop in progress (stack.beginInteractivePop starts one)",
                                ["stack": .string(s.id)])
        }
        return s
    }

    /// `setContainers`' list: the connection's containers, each once, none a page session's child or own
    /// container, none in a stack whose interactive pop is live.
    private func containerList(_ p: Params, for s: StackRecord, owner conn: HostConnection) throws(RPCError) -> [ContainerRecord] {
        let ids: [String] = try p.require("containers")
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
            if !s.contains(c) { try refuseDuringInteractivePop(containing: c) }
            list.append(c)
        }
        return list
    }

    func registerStackMethods(into r: inout MethodRegistry<HostConnection>) {
        r.register("stack.create", params: ["width", "height", "hidden"]) { [unowned self] conn, p throws(RPCError) in
            let size = try Self.size(p)
            let s = makeStack(size: size, hidden: try p.optional("hidden") ?? false, owner: conn.id)
            return stackInfo(s)
        }
        r.register("stack.push", params: ["stack", "container", "animated", "duration"]) { [unowned self] conn, p throws(RPCError) in
            let s = try stack(p, owner: conn)
            let c = try container(p, owner: conn)
            let animated: Bool = try p.optional("animated") ?? false
            let ms = try Self.duration(p)
            // Not animated, its hooks all run now: those in a plugin's worker go there in one message.
            try planned(animated ? nil : worker(of: c) ?? worker(of: s.top)) { () throws(RPCError) in
                try push(c, onto: s, animated: animated, durationMs: ms)
            }
            return stackInfo(s)
        }
        r.register("stack.pop", params: ["stack", "animated", "duration"]) { [unowned self] conn, p throws(RPCError) in
            let s = try stackAtRest(p, owner: conn)
            let animated: Bool = try p.optional("animated") ?? false
            let ms = try Self.duration(p)
            var popped: ContainerRecord?
            try planned(animated ? nil : worker(of: s.top)) { () throws(RPCError) in
                popped = stackOps.pop(s, animated: animated, durationMs: ms)
            }
            guard let c = popped else {
                throw .invalidState("Stack \(s.id) is empty", ["stack": .string(s.id)])
            }
            return ["container": .string(c.id), "stack": stackInfo(s)]
        }
        r.register("stack.popToRoot", params: ["stack", "animated", "duration"]) { [unowned self] conn, p throws(RPCError) in
            let s = try stackAtRest(p, owner: conn)
            let animated: Bool = try p.optional("animated") ?? false
            let ms = try Self.duration(p)
            let popped = stackOps.popToRoot(s, animated: animated, durationMs: ms)
            return ["containers": .array(popped.map { .string($0.id) }), "stack": stackInfo(s)]
        }
        r.register("stack.setContainers", params: ["stack", "containers", "animated", "duration"]) { [unowned self] conn, p throws(RPCError) in
            let s = try stackAtRest(p, owner: conn)
            let list = try containerList(p, for: s, owner: conn)
            let animated: Bool = try p.optional("animated") ?? false
            let ms = try Self.duration(p)
            // Newcomers leave where they are first (another stack: they disappear there at once).
            for c in list where !s.contains(c) { detach(c) }
            let removed = stackOps.setContainers(s, list.filter { !$0.isDestroyed }, animated: animated, durationMs: ms)
            return ["stack": stackInfo(s), "removed": .array(removed.map { .string($0.id) })]
        }
        r.register("stack.beginInteractivePop", params: ["stack"]) { [unowned self] conn, p throws(RPCError) in
            let s = try stackAtRest(p, owner: conn)
            guard !s.isHidden else {
                throw .invalidState("Stack \(s.id) is hidden: nothing is on screen to swipe back from", ["stack": .string(s.id)])
            }
            guard s.items.count > 1 else {
                throw .invalidState("Stack \(s.id) holds \(s.items.count) container\(s.items.count == 1 ? "" : "s"): an interactive pop needs one below the top",
                                    ["stack": .string(s.id), "containers": .int(s.items.count)])
            }
            stackOps.beginInteractivePop(s)
            return ["stack": stackInfo(s)]
        }
        r.register("stack.updateInteractivePop", params: ["stack", "progress"]) { [unowned self] conn, p throws(RPCError) in
            let progress: Double = try p.require("progress")
            guard progress >= 0, progress <= 1 else { throw .invalidParams(path: "progress", "must be between 0 and 1") }
            let s = try stackInGesture(p, owner: conn)
            StackOperation.updateInteractivePop(s, progress: progress)
            return ["stack": stackInfo(s)]
        }
        r.register("stack.finishInteractivePop", params: ["stack", "duration"]) { [unowned self] conn, p throws(RPCError) in
            let ms = try Self.duration(p)
            let s = try stackInGesture(p, owner: conn)
            guard let c = stackOps.finishInteractivePop(s, durationMs: ms) else {
                throw .invalidState("Stack \(s.id) has no interactive pop in progress", ["stack": .string(s.id)])
            }
            return ["container": .string(c.id), "stack": stackInfo(s)]
        }
        r.register("stack.cancelInteractivePop", params: ["stack", "duration"]) { [unowned self] conn, p throws(RPCError) in
            let ms = try Self.duration(p)
            let s = try stackInGesture(p, owner: conn)
            stackOps.cancelInteractivePop(s, durationMs: ms)
            return ["stack": stackInfo(s)]
        }
        r.register("stack.setHidden", params: ["stack", "hidden"]) { [unowned self] conn, p throws(RPCError) in
            let s = try stackAtRest(p, owner: conn)
            stackOps.setHidden(s, try p.require("hidden"))
            return stackInfo(s)
        }
        r.register("stack.resize", params: ["stack", "width", "height"]) { [unowned self] conn, p throws(RPCError) in
            let s = try stackAtRest(p, owner: conn)
            stackOps.resize(s, to: try Self.size(p))
            return stackInfo(s)
        }
        r.register("stack.info", params: ["stack"]) { [unowned self] conn, p throws(RPCError) in
            stackInfo(try stack(p, owner: conn))
        }
        r.register("stack.destroy", params: ["stack"]) { [unowned self] conn, p throws(RPCError) in
            let s = try stackAtRest(p, owner: conn)
            let ids = s.items.reversed().map { JSONValue.string($0.id) }
            destroyStack(s)
            return ["stack": .string(s.id), "destroyed": true, "released": .array(ids)]
        }
    }
}
