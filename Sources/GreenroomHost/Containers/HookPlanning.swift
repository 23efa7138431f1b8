import GreenroomCore
import GreenroomJSON
import GreenroomRPC

/// How `Containers` runs the hooks Core's lifecycle actions ask for.
enum HookMode {
    /// Each hook runs when its action is performed (the usual way).
    case live
    /// An operation is being planned: hooks are listed, not run, and assumed to succeed; their events
    /// are held. `spoiled` when the operation did something a plan cannot hold back (a timer, a
    /// container's end, an unbalanced call, a page session's forwarding): it then runs live instead.
    case planning(hooks: [PlannedHook], spoiled: Bool)
    /// The operation runs again after its plan met a failure: the first hooks' outcomes are known (they
    /// ran, in the plan); the rest run live.
    case replaying(outcomes: [HookOutcome], next: Int)
}

/// What planning did since start (`host.stats.hookBatching`).
struct HookPlanStats {
    /// Calls planned whose plan ran.
    var plans = 0
    /// Calls whose plan was spoiled (they ran live).
    var spoiled = 0
    /// Plans that met a failure: the call ran again with the outcomes known.
    var replays = 0
    /// Batches sent to workers, and the hooks in them.
    var batches = 0
    var hooks = 0

    func json(enabled: Bool) -> JSONValue {
        ["enabled": .bool(enabled), "plans": .int(plans), "spoiled": .int(spoiled), "replays": .int(replays),
         "batches": .int(batches), "hooks": .int(hooks)]
    }
}

/// A hook a plan will run.
struct PlannedHook {
    let hook: Hook
    let container: ContainerRecord
    let instance: ContainerInstance
    let input: JSONObject
}

/// How a hook of a plan ended.
struct HookOutcome {
    enum Ending {
        /// It ran: its output, or the plugin's failure.
        case returned(Result<JSONValue?, HookFailure>)
        /// Its worker died on it (crashed, exited, or was killed at the deadline): not reported yet.
        case workerDied(IsolatedPlugin, WorkerDeath)
    }

    let hook: Hook
    let container: ContainerRecord
    let ending: Ending

    var failed: Bool {
        if case .returned(.success) = ending { return false }
        return true
    }

    /// What the hook gave, as one hook at a time would have: a worker's death is reported now, where the
    /// hook's outcome is taken, so its events keep their order.
    func result() async -> Result<JSONValue?, HookFailure> {
        switch ending {
        case .returned(let r): return r
        case .workerDied(let plugin, let death):
            return await .failure(plugin.failure(after: death, hook: hook.rawValue, className: container.className, containerID: container.id))
        }
    }
}

/// Planned operations: the hooks of a call that crosses into a plugin worker go there in one message.
///
/// A hook of an isolated plugin is a round trip to another process, and a `showRendered` hit runs eight to
/// twelve of them. `planned` runs the operation once with every hook assumed to succeed, recording the records'
/// changes (`RecordJournal`) and holding its events; then it runs the hooks, each run of consecutive hooks
/// of one worker as one batch (the worker stops at the first failure). When all succeeded, the changes
/// stand and the held events go out: the same events, in the same order, as one hook at a time. When one
/// failed (or the worker died on it), the changes are undone, the held events dropped, and the operation
/// runs again live, taking the outcomes already known for the hooks that ran: what follows the failure is
/// then decided as it always is. Nothing outside the records may change while planning, so the operation
/// must be one whose host-side bookkeeping is the same when it runs twice; what a plan cannot hold back
/// spoils it and the operation simply runs live.
extension Containers {
    /// Runs `body` planned when some of its hooks go to `worker`'s process (nil: live). The worker is
    /// woken first, so that it is awake, not asleep, by the time the plan's hooks reach it.
    func planned(_ worker: IsolatedPlugin?, _ body: () async throws(RPCError) -> Void) async throws(RPCError) {
        guard let worker, config.plugins.batchesHooks, case .live = running.hookMode, !events.isHolding else { return try await body() }
        worker.wake()
        journal.begin()
        events.hold()
        running.hookMode = .planning(hooks: [], spoiled: false)
        var threw = false
        do throws(RPCError) { try await body() } catch { threw = true }
        let held = events.takeHeld()
        guard case .planning(let plan, let spoiled) = running.hookMode, !spoiled, !threw else {
            running.hookMode = .live
            journal.undo()
            planStats.spoiled += 1
            return try await body()
        }
        running.hookMode = .live
        planStats.plans += 1
        let outcomes = await run(plan)
        if outcomes.count == plan.count && !outcomes.contains(where: \.failed) {
            journal.commit()
            events.emit(held)
            return
        }
        journal.undo()
        planStats.replays += 1
        running.hookMode = .replaying(outcomes: outcomes, next: 0)
        let replayed: RPCError?
        do throws(RPCError) { try await body(); replayed = nil } catch { replayed = error }
        // A replay always reaches the failure; should it not, the worker's end is still reported.
        if case .replaying(let outcomes, let next) = running.hookMode {
            for o in outcomes[next...] { if case .workerDied = o.ending { _ = await o.result() } }
        }
        running.hookMode = .live
        if let replayed { throw replayed }
    }

    /// The plugin whose worker runs `c`'s hooks, if they run in one (planning its operation saves round
    /// trips).
    func worker(of c: ContainerRecord?) -> IsolatedPlugin? {
        guard let c, let instance = instances[c.id] as? IsolatedInstance, instance.canCall else { return nil }
        return instance.cls.plugin
    }

    /// What planning does with a hook an action asks for: listed, assumed to succeed. Returns false when
    /// the hook cannot be planned (the plan is spoiled and the operation will run live).
    func plan(_ hook: Hook, on c: ContainerRecord, input: JSONObject) -> Bool {
        guard case .planning(var hooks, let spoiled) = running.hookMode, !spoiled else { return false }
        // A container's end changes the host's books (its instance goes), and a page session's own container
        // makes its pages follow: neither is held back.
        guard hook != .deinitialize, pages?.session(owning: c) == nil, let instance = instances[c.id] else {
            running.hookMode = .planning(hooks: hooks, spoiled: true)
            return false
        }
        running.hookMode = .planning(hooks: [], spoiled: false)  // hooks uniquely referenced while appending
        hooks.append(PlannedHook(hook: hook, container: c, instance: instance, input: input))
        running.hookMode = .planning(hooks: hooks, spoiled: false)
        return true
    }

    /// Something a plan cannot hold back happened: the operation runs live.
    func spoilPlan() {
        if case .planning(let hooks, _) = running.hookMode { running.hookMode = .planning(hooks: hooks, spoiled: true) }
    }

    var isPlanning: Bool {
        if case .planning = running.hookMode { return true }
        return false
    }

    /// The outcome of `hook` when it is known from a plan that ran (replaying), else nil.
    func knownOutcome(_ hook: Hook, on c: ContainerRecord) async -> Result<JSONValue?, HookFailure>? {
        guard case .replaying(let outcomes, let next) = running.hookMode, next < outcomes.count else { return nil }
        let o = outcomes[next]
        running.hookMode = .replaying(outcomes: outcomes, next: next + 1)
        guard o.hook == hook, o.container === c else {
            // The operation took another path than its plan: cannot happen while the journal restores
            // every record the plan changed. Said loudly, and the rest runs live.
            config.logger.error("a replayed operation left its plan", metadata: [
                "planned": "\(o.container.id).\(o.hook.rawValue)", "now": "\(c.id).\(hook.rawValue)"])
            running.hookMode = .live
            return nil
        }
        return await o.result()
    }

    /// Runs a plan's hooks in order, until the first failure: consecutive hooks of one plugin worker as
    /// one batch, others one at a time. Returns the outcomes of those that ran.
    private func run(_ plan: [PlannedHook]) async -> [HookOutcome] {
        var outcomes: [HookOutcome] = []
        outcomes.reserveCapacity(plan.count)
        var i = 0
        while i < plan.count {
            let p = plan[i]
            guard let isolated = p.instance as? IsolatedInstance, isolated.canCall else {
                let result: Result<JSONValue?, HookFailure>
                do throws(HookFailure) { result = .success(try await p.instance.run(p.hook, input: p.input)) } catch { result = .failure(error) }
                outcomes.append(HookOutcome(hook: p.hook, container: p.container, ending: .returned(result)))
                if case .failure = result { return outcomes }
                i += 1
                continue
            }
            let plugin = isolated.cls.plugin
            var batch = BatchRequest()
            var j = i
            while j < plan.count, let next = plan[j].instance as? IsolatedInstance, next.cls.plugin === plugin, next.canCall {
                batch.add(plan[j].hook, handle: next.handle, input: plan[j].input)
                j += 1
            }
            var (replies, death) = await plugin.callBatch(batch)
            planStats.batches += 1
            planStats.hooks += batch.count
            for k in replies.indices {
                let q = plan[i + k]
                // A hook that ran in a worker that then died: it succeeded (its output is gone with the worker).
                let result = Result { () throws(HookFailure) -> JSONValue? in
                    if replies[k] == nil { return nil }
                    return try (q.instance as! IsolatedInstance).read(&replies[k]!, hook: q.hook)
                }
                outcomes.append(HookOutcome(hook: q.hook, container: q.container, ending: .returned(result)))
                if case .failure = result { return outcomes }
            }
            if let death {
                let q = plan[i + replies.count]
                outcomes.append(HookOutcome(hook: q.hook, container: q.container, ending: .workerDied(plugin, death)))
                return outcomes
            }
            i = j
        }
        return outcomes
    }
}
