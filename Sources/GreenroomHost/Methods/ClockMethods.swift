import GreenroomJSON
import GreenroomRPC

extension Host {
    func registerClockMethods(into r: inout MethodRegistry<HostConnection>) {
        r.register(ClockNow.self) { c, _ throws(RPCError) in
            ["ms": .double(c.host.now), "mode": .string(c.host.config.clockMode.rawValue)]
        }
        r.register(ClockAdvance.self) { c, p throws(RPCError) in
            let ms = p.ms
            guard ms >= 0 else { throw .invalidParams(path: "ms", "must be >= 0 (time never goes back)") }
            guard c.host.virtualClock != nil else {
                throw RPCError(.virtualClockOnly, "clock.advance needs a host started with --clock virtual",
                               ["method": "clock.advance", "clock": "real"])
            }
            guard (c.host.now + ms).isFinite, c.host.now + ms <= 9.007199254740992e15 else {
                throw .invalidParams(path: "ms", "would move the clock past 2^53 ms (it must stay exact)")
            }
            let fired = c.host.timers.advanceVirtualClock(by: ms)
            // `now` names the new time; `ms` (the same value) stays for clients written before `now`
            // existed, though beside the `ms` param (a duration) it read like the time advanced.
            var reply: JSONObject = ["now": .double(c.host.now), "ms": .double(c.host.now), "fired": .int(fired)]
            c.host.containers.takeCallFailures(into: &reply)
            return .object(reply)
        }
    }

    func registerTaskMethods(into r: inout MethodRegistry<HostConnection>) {
        r.register(TasksStatus.self) { c, _ throws(RPCError) in
            let d = c.host.dispatcher
            return [
                "pending": .int(d.pendingCount),
                "runnable": .int(d.runnableCount),
                "paused": .bool(d.isTracking),
                // With a virtual clock, idle tasks run only when a script calls tasks.drain.
                "automatic": .bool(c.host.virtualClock == nil),
                "sliceMs": .double(d.sliceMs),
                "ran": .int(d.totalRan),
                "passes": .int(d.passes),
                "tasks": .array(d.pendingTasks.map { t in
                    [
                        "key": .string(t.key),
                        "mode": .string(t.mode.rawValue),
                        "avgCostMs": d.averageCostMs[t.costKey].map { .double($0) } ?? .null,
                    ]
                }),
            ]
        }
        r.register(TasksDrain.self) { c, _ throws(RPCError) in
            let ran = c.host.drainIdleTasks()
            var reply: JSONObject = ["ran": .int(ran), "pending": .int(c.host.dispatcher.pendingCount)]
            c.host.containers.takeCallFailures(into: &reply)
            return .object(reply)
        }
    }
}
