import GreenroomCore
import GreenroomJSON
import GreenroomRPC

/// Prerender pools and `showRendered` (docs/pools.md: the prerendering article, improved): one pool per class
/// and size, an off-screen but shown green room, warm-ups as idle tasks after the reply, real purges.
/// The pools hold containers that `Containers` makes, moves and tears down; `Containers` asks the pools
/// only for their green rooms, their bytes, and purges.
public final class PrerenderPools {
    unowned let containers: Containers
    private(set) var byKey: [PoolKey: PoolRecord] = [:]
    /// Pool keys in the order the pools were made.
    private(set) var order: [PoolKey] = []
    /// When each idle pooled container was warmed (least recently used goes first past the budget).
    private var warmedAt: [String: Double] = [:]
    /// Host-wide budget for bytes held by idle pooled containers (`--pool-budget-bytes`).
    public var budgetBytes: Int
    /// After a memory warning, eager pools refill only on demand until this much host time passed
    /// (`--pool-cooldown-ms`).
    public var coolDownMs: Double

    init(containers: Containers) {
        self.containers = containers
        budgetBytes = containers.config.poolBudgetBytes
        coolDownMs = containers.config.poolCoolDownMs
    }

    /// The green room of the pool whose green room is `id`, if any.
    func greenRoom(id: String) -> StackRecord? {
        byKey.values.first { $0.greenRoom.id == id }?.greenRoom
    }

    /// `c` is gone: it is no longer warm anywhere.
    func forget(_ c: ContainerRecord) { warmedAt[c.id] = nil }

    func pool(for key: PoolKey, create: Bool = true) -> PoolRecord? {
        if let p = byKey[key] { return p }
        guard create else { return nil }
        let room = StackRecord(id: "g-\(key)", size: key.size, owner: nil, greenRoom: true, journal: containers.journal)
        let p = PoolRecord(key: key, depth: 1, policy: .lazy, greenRoom: room)
        byKey[key] = p
        order.append(key)
        return p
    }

    /// The pool a take uses: the class's pool at `size`, else the class's first pool, else a new lazy
    /// pool at `size` (or the default size). With `anySize` (showRendered), a pool holding a warm
    /// container is preferred to one without: the one at `size` first, then the class's others in the
    /// order they were made. A warm container of another size is laid out again when pushed (the prerendering article:
    /// a prerendered view takes its real size in the stack it joins), which costs far less than a
    /// cold load.
    func poolForShow(className: String, size: Size?, anySize: Bool = false) -> PoolRecord {
        let exact = size.flatMap { byKey[PoolKey(className: className, size: $0)] }
        if anySize && exact?.idle.isEmpty != false,
           let key = order.first(where: { $0.className == className && byKey[$0]?.idle.isEmpty == false }) {
            return byKey[key]!
        }
        if let exact { return exact }
        if size == nil, let key = order.first(where: { $0.className == className }) { return byKey[key]! }
        return pool(for: PoolKey(className: className, size: size ?? containers.defaultSize))!
    }

    func pooledBytes() -> Int {
        var total = 0
        for p in byKey.values { for c in p.idle { total += containers.memoryBytes(c) } }
        return total
    }

    func poolEvent(_ kind: String, _ p: PoolRecord, _ c: ContainerRecord?, to target: HostConnection?, _ extra: JSONObject = [:]) {
        guard containers.events.wants(PoolTopic.self, owner: target) else { return }
        var f: JSONObject = ["kind": .string(kind), "class": .string(p.key.className),
                             "width": .double(p.key.size.width), "height": .double(p.key.size.height)]
        if let c { f["container"] = .string(c.id) }
        for m in extra.members { f[m.key] = m.value }
        containers.events.emit(PoolTopic.self, owner: target, f)
    }

    /// Queues `count` warm-ups as idle tasks in `default` mode (paused while sessions track). They run
    /// after the current reply is written. Events go to `cause`.
    func queueWarmups(_ p: PoolRecord, count: Int, cause: HostConnection?) async -> Int {
        var queued = 0
        for _ in 0..<count {
            p.warming += 1
            let key = "warm:\(p.key):\(p.warmed + p.warming):\(containers.dispatcher.totalRan)"
            let causeID = cause?.id
            let ok = containers.dispatcher.enqueue(key: key, mode: .default, costKey: "warm:\(p.key.className)") { [weak self, weak p] in
                guard let self, let p else { return }
                p.warming -= 1
                await self.warmOne(p, cause: causeID)
            }
            if ok { queued += 1 } else { p.warming -= 1 }
        }
        return queued
    }

    /// Removes the pools of `className` (all when nil) after their idle containers were purged: the
    /// class is gone (`classes.undefine`) or the host is back to start-up (`host.reset`).
    func removePools(of className: String?) {
        for key in order where className == nil || key.className == className {
            if let p = byKey[key] { cancelWarmups(p) }
            byKey[key] = nil
        }
        order.removeAll { className == nil || $0.className == className }
    }

    /// Drops a pool's queued warm-ups (shrink, purge, memory warning). Returns how many.
    @discardableResult
    func cancelWarmups(_ p: PoolRecord) -> Int {
        var n = 0
        for t in containers.dispatcher.pendingTasks where t.key.hasPrefix("warm:\(p.key):") {
            if containers.dispatcher.cancel(key: t.key) { n += 1 }
        }
        p.warming = 0
        return n
    }

    /// Warming = create + push into the green room: loadView, viewDidLoad, layout at the pool's size,
    /// viewWillAppear, viewDidAppear, all `offscreen: true`.
    func warmOne(_ p: PoolRecord, cause: String?) async {
        guard byKey[p.key] === p, let cls = containers.classes[p.key.className] else { return }
        let target = cause.flatMap { containers.connections[$0] }
        let c: ContainerRecord
        do {
            c = try await containers.create(cls, owner: nil, data: nil, offscreenIn: p.greenRoom.id, cause: cause)
        } catch {
            poolEvent("warmFailed", p, nil, to: target, ["error": error.json])
            return
        }
        // Its push into the green room runs eight hooks: in one message when they go to a worker.
        var failure: ContainerFailure?
        try? await containers.planned(containers.worker(of: c)) { () throws(RPCError) in
            failure = nil
            do throws(ContainerFailure) {
                try await containers.stackOps.push(c, onto: p.greenRoom, animated: false)
            } catch {
                failure = error
            }
        }
        if failure != nil {
            let e = await containers.fail(c)
            poolEvent("warmFailed", p, c, to: target, ["error": e.json])
            return
        }
        p.warmed += 1
        warmedAt[c.id] = containers.now
        poolEvent("warmed", p, c, to: target, ["idle": .int(p.idle.count)])
        await enforceBudget(cause: target)
    }

    /// Past the host-wide budget of pooled bytes, the least recently warmed idle container goes first,
    /// whatever its class.
    func enforceBudget(cause: HostConnection?) async {
        var total = pooledBytes()
        while total > budgetBytes {
            var oldest: (PoolRecord, ContainerRecord, Double)?
            for p in byKey.values {
                for c in p.idle {
                    let t = warmedAt[c.id] ?? 0
                    if oldest == nil || t < oldest!.2 { oldest = (p, c, t) }
                }
            }
            guard let (p, c, _) = oldest else { return }
            total -= containers.memoryBytes(c)
            p.evicted += 1
            poolEvent("evicted", p, c, to: cause, ["reason": "budget"])
            await destroyPooled(c, in: p)
        }
    }

    /// Frees an idle container where it sits: it disappears (if it is the green room's top) and
    /// deinits, all offscreen, and its memory is returned.
    func destroyPooled(_ c: ContainerRecord, in p: PoolRecord) async {
        await containers.teardown(c)
        await containers.stackOps.discard(c, from: p.greenRoom)
    }

    /// Takes a warm container out of its green room and gives it to `owner`: it leaves offscreen
    /// (willDisappear, didDisappear), and the one below it, if any, appears again offscreen.
    func take(from p: PoolRecord, owner: HostConnection) async -> ContainerRecord? {
        guard let c = p.greenRoom.top else { return nil }
        containers.causes[c.id] = owner.id  // its leaving events go to the taker
        // So do those of the one it uncovers, which appears again (offscreen).
        let below = p.greenRoom.items.count > 1 ? p.greenRoom.items[p.greenRoom.items.count - 2] : nil
        let belowCause = below.flatMap { containers.causes[$0.id] }
        if let below { containers.causes[below.id] = owner.id }
        defer { if let below { containers.causes[below.id] = belowCause } }
        await containers.stackOps.remove(c, from: p.greenRoom)
        guard !c.isDestroyed else { return nil }
        c.owner = owner.id
        containers.causes[c.id] = nil
        warmedAt[c.id] = nil
        return c
    }

    /// Queues the warm-ups a take from `pool` calls for: an eager pool refills to its depth; a lazy
    /// one (the prerendering article's) warms one container for next time after a miss, and a replacement after a hit
    /// ("use the cached one this time and reserve the next"), never past its depth (depth 0: never).
    /// During a memory warning's cool-down only a miss (demand) warms: refills after a hit wait for
    /// its end.
    func refill(_ pool: PoolRecord, afterHit hit: Bool, cause: HostConnection) async {
        let count: Int
        if pool.policy == .eager {
            count = pool.refillCount(now: containers.now)
        } else {
            let waits = hit && pool.isCoolingDown(now: containers.now)
            count = waits || pool.warming + pool.idle.count >= pool.depth ? 0 : 1
        }
        if count > 0 { _ = await queueWarmups(pool, count: count, cause: cause) }
    }

    /// Purges idle pooled containers (all classes when nil): they disappear offscreen and deinit, their
    /// memory really freed. `keep` leaves that many in each pool, the most recently warmed (a `warning`
    /// memory warning keeps one). Returns (containers, bytes).
    func purgePools(className: String?, reason: String, caller: HostConnection?, coolDown: Bool, keep: Int = 0) async -> (Int, Int) {
        var count = 0, bytes = 0
        for key in order where className == nil || key.className == className {
            guard let p = byKey[key] else { continue }
            if coolDown { p.coolDownUntil = containers.now + coolDownMs }
            // Queued warm-ups of a purged pool are dropped too: refills come on demand or after the cool-down.
            cancelWarmups(p)
            if keep > 0 {
                // The oldest go (the bottom of the green room); the top, the next hit, stays warm.
                while p.idle.count > keep, let c = p.greenRoom.items.first {
                    bytes += containers.memoryBytes(c)
                    count += 1
                    p.purged += 1
                    containers.causes[c.id] = caller?.id ?? containers.causes[c.id]
                    await destroyPooled(c, in: p)
                }
                poolEvent("purged", p, nil, to: caller, ["reason": .string(reason), "kept": .int(p.idle.count)])
                if coolDown { await scheduleRefillAfterCoolDown(p, cause: caller) }
                continue
            }
            while let c = p.greenRoom.top {
                bytes += containers.memoryBytes(c)
                count += 1
                p.purged += 1
                containers.causes[c.id] = caller?.id ?? containers.causes[c.id]
                await destroyPooled(c, in: p)
            }
            poolEvent("purged", p, nil, to: caller, ["reason": .string(reason)])
            // Every cooled pool refills when the cool-down ends if it is eager by then (a pool made
            // eager during the cool-down too); the warning's caller ordered it, so its events go there.
            if coolDown { await scheduleRefillAfterCoolDown(p, cause: caller) }
        }
        return (count, bytes)
    }

    func scheduleRefillAfterCoolDown(_ p: PoolRecord, cause: HostConnection?) async {
        let causeID = cause?.id
        _ = containers.schedule(afterMs: coolDownMs, label: "\(p.key) cool-down") { [weak self, weak p] in
            guard let self, let p, self.byKey[p.key] === p else { return }
            let count = p.refillCount(now: containers.now)
            guard count > 0 else { return }
            _ = await self.queueWarmups(p, count: count, cause: causeID.flatMap { containers.connections[$0] })
        }
    }

    func poolStatus(_ p: PoolRecord) -> JSONValue {
        [
            "class": .string(p.key.className),
            "width": .double(p.key.size.width),
            "height": .double(p.key.size.height),
            "depth": .int(p.depth),
            "policy": .string(p.policy.rawValue),
            "idle": .int(p.idle.count),
            "warming": .int(p.warming),
            "hits": .int(p.hits),
            "misses": .int(p.misses),
            "warmed": .int(p.warmed),
            "purged": .int(p.purged),
            "evicted": .int(p.evicted),
            "idleBytes": .int(p.idle.reduce(0) { $0 + containers.memoryBytes($1) }),
            "coolingDown": .bool(p.isCoolingDown(now: containers.now)),
        ]
    }

    /// The pool of class `name` at `width` x `height` (both or neither; neither: the default size).
    /// The pool key of `name` at the size given (both or neither). The size is checked before the class:
    /// a bad param is -32602 whatever the class.
    func poolKey(_ name: String, width: Double?, height: Double?) async throws(RPCError) -> PoolKey {
        var size = containers.defaultSize
        if width != nil || height != nil {
            guard let width else { throw .invalidParams(path: "width", "is required") }
            guard let height else { throw .invalidParams(path: "height", "is required") }
            size = try Containers.size(width: width, height: height)
        }
        _ = try containers.classes.require(name)
        return PoolKey(className: name, size: size)
    }

    /// `showRendered {present: "onSuccess"}` (the prerendering article's passive pop-up): the container is
    /// configured with `data` in the green room, offscreen, and presented only when that succeeded. A hit
    /// configures the warm one where it waits; a miss warms a fresh one there first (it loads offscreen).
    /// A failure tears that container down (offscreen) and is the reply; nothing reaches `target`, and the
    /// pool warms a replacement. The container is the caller's from the moment it is configured for it.
    private func showPrepared(_ cls: ContainerClass, data: JSONValue, pool: PoolRecord, target: StackRecord?,
                              animated: Bool, durationMs: Double, reply replyMode: String, conn: HostConnection) async throws(RPCError) -> JSONValue {
        let warm = pool.greenRoom.top != nil
        let c: ContainerRecord
        if let top = pool.greenRoom.top {
            c = top
        } else {
            c = try await containers.create(cls, owner: nil, data: nil, offscreenIn: pool.greenRoom.id, cause: conn.id)
            do throws(ContainerFailure) {
                try await containers.stackOps.push(c, onto: pool.greenRoom, animated: false)
            } catch {
                await refill(pool, afterHit: false, cause: conn)
                throw await containers.rpc(error)
            }
        }
        // Configured for this caller, where it waits: its events go to the caller.
        containers.causes[c.id] = conn.id
        let output: JSONValue
        do throws(RPCError) { output = try await containers.configure(c, data: data) } catch {
            await refill(pool, afterHit: false, cause: conn)
            throw error
        }
        guard let taken = await take(from: pool, owner: conn), taken === c else {
            throw RPCError(.pluginFailed, "Container \(c.id) was torn down as it left the green room",
                           ["container": .string(c.id), "class": .string(cls.name)])
        }
        if warm { pool.hits += 1 } else { pool.misses += 1 }
        poolEvent(warm ? "hit" : "miss", pool, c, to: conn)
        if let target { try await containers.push(c, onto: target, animated: animated, durationMs: durationMs) }
        let reply: JSONValue = ["container": .string(c.id), "class": .string(cls.name), "warm": .bool(warm), "output": output]
        await refill(pool, afterHit: warm, cause: conn)
        return replyMode == "afterAppear" ? containers.replyAfterAppear(c, reply) : reply
    }

    /// showRendered's `present`: `now` (absent), `onSuccess`, or where to present it.
    static func presentParam(_ v: JSONValue?) throws(RPCError)
        -> (mode: String, to: (presenter: String, style: PresentationStyle, modal: Bool, removes: Bool?)?)
    {
        switch v {
        case nil, .null?: return ("now", nil)
        case .string(let s)? where s == "now" || s == "onSuccess": return (s, nil)
        case .object(let o)?:
            for key in o.keys where !["presenter", "style", "modalInPresentation", "removesPresenterViews"].contains(key) {
                throw .invalidParams(path: "present.\(key)", "unknown member (known: presenter, style, modalInPresentation, removesPresenterViews)")
            }
            guard case .string(let presenter)? = o["presenter"] else { throw .invalidParams(path: "present.presenter", "is required (a stack, tab bar or container id)") }
            var style = PresentationStyle.pageSheet
            if let s = o["style"], !s.isNull {
                let name = try Params.choice(s, path: "present.style", PresentationStyle.allCases.map(\.rawValue))
                style = PresentationStyle(rawValue: name)!
            }
            var modal = false
            if let v = o["modalInPresentation"], !v.isNull { modal = try Bool.decodeParam(v, path: "present.modalInPresentation") }
            var removes: Bool?
            if let v = o["removesPresenterViews"], !v.isNull { removes = try Bool.decodeParam(v, path: "present.removesPresenterViews") }
            if removes != nil, style != .custom {
                throw .invalidParams(path: "present.removesPresenterViews", "is for style \"custom\" only")
            }
            return ("now", (presenter, style, modal, removes))
        default:
            throw .invalidParams(path: "present", "must be \"now\", \"onSuccess\" or {presenter, style?, modalInPresentation?, removesPresenterViews?}")
        }
    }

    func register(into r: inout MethodRegistry<HostConnection>) {
        r.register(ShowRendered.self) { [unowned self] conn, p async throws(RPCError) in
            let (mode, presentTo) = try Self.presentParam(p.present)
            if presentTo != nil, p.stack != nil {
                throw .invalidParams(path: "present", "present it over a presenter or push it onto `stack`, not both")
            }
            if p.reply == "afterAppear" && p.stack == nil && presentTo == nil {
                throw .invalidParams(path: "reply", "afterAppear needs a stack: without one the container is never shown")
            }
            if mode == "onSuccess" && p.data == nil {
                throw .invalidParams(path: "present", "onSuccess configures the container with data before presenting it: give data")
            }
            let ms = try containers.duration(p.duration, animated: p.animated ?? false)
            let cls = try containers.classes.require(p.className)
            let target = try p.stack.map { id throws(RPCError) in try containers.stack(id, owner: conn) }
            let animated = p.animated ?? false
            if let target { try containers.refuseDuringInteractivePop(target) }
            try containers.refuseHeldReply(p.reply, onto: target)
            if let presentTo {
                // UIKit's refusals come before anything leaves the pool: a refused call changes nothing.
                let presenter = try containers.presentations.presenter(presentTo.presenter, for: "the shown container", owner: conn)
                try await containers.presentations.prepare(over: presenter, for: "the shown container")
                let size = containers.presentations.windowSize(of: presenter)
                let pool = poolForShow(className: cls.name, size: size, anySize: true)
                let (c, warm): (ContainerRecord, Bool)
                if let taken = await take(from: pool, owner: conn) {
                    (c, warm) = (taken, true)
                    pool.hits += 1
                    poolEvent("hit", pool, taken, to: conn)
                } else {
                    pool.misses += 1
                    (c, warm) = (try await containers.create(cls, owner: conn.id, data: nil), false)
                    poolEvent("miss", pool, c, to: conn)
                }
                let record = try await containers.presentations.present(
                    c, over: presenter, style: presentTo.style, removesViews: presentTo.removes, animated: animated,
                    durationMs: ms, modal: presentTo.modal)
                var reply: JSONObject = ["container": .string(c.id), "class": .string(cls.name), "warm": .bool(warm)]
                if let data = p.data { reply["output"] = try await containers.configure(c, data: data) }
                reply["presentation"] = containers.presentations.info(record)
                await refill(pool, afterHit: warm, cause: conn)
                return p.reply == "afterAppear" ? containers.replyAfterAppear(c, .object(reply)) : .object(reply)
            }
            let pool = poolForShow(className: cls.name, size: target?.size, anySize: true)
            if mode == "onSuccess", let data = p.data {
                return try await showPrepared(cls, data: data, pool: pool, target: target, animated: animated, durationMs: ms,
                                        reply: p.reply, conn: conn)
            }
            // A hit: the warm container leaves the green room and is pushed. Its hooks go to a plugin's
            // worker in one message when its class runs in one (the hand-over and the push are planned).
            var hit: ContainerRecord?
            var pushFailed: RPCError?
            try await containers.planned(animated ? nil : containers.worker(of: pool.greenRoom.top)) { () throws(RPCError) in
                (hit, pushFailed) = (nil, nil)
                hit = await take(from: pool, owner: conn)
                guard let c = hit else { return }
                poolEvent("hit", pool, c, to: conn)
                if let target {
                    do throws(RPCError) { try await containers.push(c, onto: target, animated: animated, durationMs: ms) } catch { pushFailed = error }
                }
            }
            let c: ContainerRecord
            let warm = hit != nil
            if let hit {
                c = hit
                pool.hits += 1
                if let pushFailed { throw pushFailed }
            } else {
                pool.misses += 1
                c = try await containers.create(cls, owner: conn.id, data: nil)
                poolEvent("miss", pool, c, to: conn)
                if let target { try await containers.push(c, onto: target, animated: animated, durationMs: ms) }
            }
            var reply: JSONObject = ["container": .string(c.id), "class": .string(cls.name), "warm": .bool(warm)]
            if let data = p.data { reply["output"] = try await containers.configure(c, data: data) }
            // Replacement warming runs after this reply is written, as idle tasks.
            await refill(pool, afterHit: warm, cause: conn)
            return p.reply == "afterAppear" ? containers.replyAfterAppear(c, .object(reply)) : .object(reply)
        }
        r.register(PoolConfigure.self) { [unowned self] conn, p async throws(RPCError) in
            let depth = p.depth ?? 1
            guard depth >= 0, depth <= 100_000 else { throw .invalidParams(path: "depth", "must be between 0 and 100000") }
            let key = try await poolKey(p.className, width: p.width, height: p.height)
            let policy = PoolPolicy(rawValue: p.policy)!
            let pool = pool(for: key)!
            pool.depth = depth
            pool.policy = policy
            // Shrinking drops the surplus at once (oldest first) and the warm-ups it no longer needs.
            let queued = pool.warming
            cancelWarmups(pool)
            while pool.idle.count > depth, let c = pool.greenRoom.items.first {
                pool.evicted += 1
                poolEvent("evicted", pool, c, to: conn, ["reason": "depth"])
                await destroyPooled(c, in: pool)
            }
            let wanted = policy == .eager ? pool.refillCount(now: containers.now) : min(queued, max(0, depth - pool.idle.count))
            _ = await queueWarmups(pool, count: wanted, cause: conn)
            return poolStatus(pool)
        }
        r.register(PoolWarm.self) { [unowned self] conn, p async throws(RPCError) in
            let requested = p.count
            if let requested, requested < 0 || requested > 100_000 {
                throw .invalidParams(path: "count", "must be between 0 and 100000")
            }
            let key = try await poolKey(p.className, width: p.width, height: p.height)
            let pool = pool(for: key)!
            let count = requested ?? max(1, pool.depth - pool.idle.count - pool.warming)
            let queued = await queueWarmups(pool, count: count, cause: conn)
            return ["class": .string(key.className), "queued": .int(queued), "pool": poolStatus(pool)]
        }
        r.register(PoolStatus.self) { [unowned self] _, p throws(RPCError) in
            let name = p.className
            if let name { _ = try containers.classes.require(name) }
            return ["pools": .array(order.filter { name == nil || $0.className == name }.compactMap { byKey[$0].map(poolStatus) })]
        }
        r.register(PoolPurge.self) { [unowned self] conn, p async throws(RPCError) in
            let name = p.className
            if let name { _ = try containers.classes.require(name) }
            let (count, bytes) = await purgePools(className: name, reason: "purge", caller: conn, coolDown: false)
            return ["purged": .int(count), "bytes": .int(bytes)]
        }
    }
}
