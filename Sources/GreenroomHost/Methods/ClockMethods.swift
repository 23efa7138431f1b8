import GreenroomJSON
import GreenroomRPC

extension Host {
    func registerClockMethods(into r: inout MethodRegistry<HostConnection>) {
        r.register(ClockNow.self) { [unowned self] c, _ throws(RPCError) in
            ["ms": .double(self.now), "mode": .string(self.config.clockMode.rawValue)]
        }
        r.register(ClockAdvance.self) { [unowned self] c, p async throws(RPCError) in
            let ms = p.ms
            guard ms >= 0 else { throw .invalidParams(path: "ms", "must be >= 0 (time never goes back)") }
            guard self.virtualClock != nil else {
                throw RPCError(.virtualClockOnly, "clock.advance needs a host started with --clock virtual",
                               ["method": "clock.advance", "clock": "real"])
            }
            guard (self.now + ms).isFinite, self.now + ms <= VirtualClock.latestExactMs else {
                throw .invalidParams(path: "ms", "would move the clock past 2^53 ms (it must stay exact)")
            }
            let fired = await self.timers.advanceVirtualClock(by: ms)
            // `now` names the new time; `ms` (the same value) stays for clients written before `now`
            // existed, though beside the `ms` param (a duration) it read like the time advanced.
            var reply: JSONObject = ["now": .double(self.now), "ms": .double(self.now), "fired": .int(fired)]
            self.containers.takeCallFailures(into: &reply)
            return .object(reply)
        }
        r.register(ClockSettle.self) { [unowned self] c, p async throws(RPCError) in
            guard p.maxMs >= 0, p.maxMs <= VirtualClock.latestExactMs else {
                throw .invalidParams(path: "maxMs", "must be between 0 and 2^53 ms (the clock must stay exact)")
            }
            guard self.virtualClock != nil else {
                throw RPCError(.virtualClockOnly, "clock.settle needs a host started with --clock virtual",
                               ["method": "clock.settle", "clock": "real"])
            }
            var reply = await self.settle(maxMs: p.maxMs)
            self.containers.takeCallFailures(into: &reply)
            return .object(reply)
        }
    }

    /// `clock.settle`: idle tasks, then the next timer, until nothing is pending or `maxMs` has passed.
    func settle(maxMs: Double) async -> JSONObject {
        let start = now
        var fired = 0, ran = 0
        // Each round either runs a task or fires a timer; a round that does neither ends it. No timer
        // re-arms itself, so this ends; the cap keeps a mistake from spinning the loop for ever.
        for _ in 0..<1_000_000 {
            await ran += drainIdleTasks()
            guard let next = timers.nextDeadline, next - start <= maxMs else { break }
            fired += await timers.advanceVirtualClock(by: max(0, next - now))
        }
        if timers.nextDeadline != nil, now < start + maxMs {
            // Something is pending past the limit: the clock goes as far as it was allowed.
            fired += await timers.advanceVirtualClock(by: start + maxMs - now)
        }
        let paused = dispatcher.pendingTasks.map { t -> JSONValue in
            ["key": .string(t.key), "mode": .string(t.mode.rawValue),
             "avgCostMs": dispatcher.averageCostMs[t.costKey].map { .double($0) } ?? .null]
        }
        return [
            "now": .double(now), "advancedMs": .double(now - start), "fired": .int(fired), "ran": .int(ran),
            "settled": .bool(timers.count == 0 && dispatcher.pendingCount == 0),
            "pending": ["timers": .int(timers.count), "nextTimerAt": timers.nextDeadline.map { .double($0) } ?? .null,
                        "tasks": .int(dispatcher.pendingCount)],
            "paused": .array(paused),
        ]
    }

    func registerTaskMethods(into r: inout MethodRegistry<HostConnection>) {
        r.register(TasksStatus.self) { [unowned self] c, _ throws(RPCError) in
            let d = self.dispatcher
            return [
                "pending": .int(d.pendingCount),
                "runnable": .int(d.runnableCount),
                "paused": .bool(d.isTracking),
                // With a virtual clock, idle tasks run only when a script calls tasks.drain.
                "automatic": .bool(self.virtualClock == nil),
                "sliceMs": .double(d.sliceMs),
                "ran": .int(d.totalRan),
                "passes": .int(d.passes),
                "tasks": .array(d.pendingTasks.map { t in
                    var info: JSONObject = [
                        "key": .string(t.key),
                        "mode": .string(t.mode.rawValue),
                        "avgCostMs": d.averageCostMs[t.costKey].map { .double($0) } ?? .null,
                    ]
                    if let client = self.clientTasks.describe(dispatcherKey: t.key) { info["client"] = .object(client) }
                    return .object(info)
                }),
            ]
        }
        r.register(TasksDrain.self) { [unowned self] c, _ async throws(RPCError) in
            let ran = await self.drainIdleTasks()
            var reply: JSONObject = ["ran": .int(ran), "pending": .int(self.dispatcher.pendingCount)]
            self.containers.takeCallFailures(into: &reply)
            return .object(reply)
        }
    }
}
