import GreenroomJSON
import GreenroomRPC

/// Under `--clock virtual` nothing happens by itself: idle tasks (pool warm-ups) wait for `tasks.drain`
/// and timers (the end of a 300 ms animation, a memory warning's cool-down) for `clock.advance`. That is
/// the point of the virtual clock, and the first thing that surprises a person at a shell: a pool that
/// stays cold, a `page.show` that never reaches `viewDidAppear`. So the replies of the methods that can
/// leave such work behind carry a `note` saying what waits and which call runs it, as git prints a
/// `hint:` where users get stuck. Only under the virtual clock (on a real clock the work happens on its
/// own) and only when this request left something waiting. A person reads it; a program has the same
/// facts in `tasks.status`, `clock.now`, `pool.status` and `page.info`, and may ignore it. See
/// docs/virtual-clock.md.
extension Host {
    /// The methods whose replies may carry a `note` (each result schema declares it).
    static let notedMethods: [any RPCMethod.Type] = [
        ShowRendered.self, PoolConfigure.self, PoolWarm.self, PageCreate.self, PageShow.self, StackPush.self, StackPop.self,
        StackPopToRoot.self, StackSetContainers.self, StackFinishInteractivePop.self, StackCancelInteractivePop.self,
        HostMemoryWarning.self, TasksAdd.self, PresentationPresent.self, PresentationDismiss.self,
        PresentationFinishInteractiveDismiss.self, PresentationCancelInteractiveDismiss.self, PageFinishInteractiveCurl.self,
        PageCancelInteractiveCurl.self,
    ]

    /// What the call being run queued and scheduled (in its `CallScope`): its note counts its own work,
    /// not what another connection did while it waited.
    struct CallNotes {
        /// Idle tasks queued less those cancelled.
        var tasks = 0
        /// Timers scheduled.
        var timers = 0
    }

    /// The result of a call of one of `notedMethods` (`HostPipeline`) with its note, when the call left
    /// work waiting since `before` (its `callNotes` when it began).
    func noted(_ result: JSONValue, since before: CallNotes) -> JSONValue {
        guard case .object(var reply) = result,
              let note = virtualClockNote(newTasks: callNotes.tasks - before.tasks,
                                          // A reply held for the timer says nothing of it.
                                          scheduledTimers: callNotes.timers > before.timers && !processor.isHoldingReply)
        else { return result }
        reply["note"] = .string(note)
        return .object(reply)
    }

    /// What a request left waiting for the script, in words; nil when nothing waits.
    func virtualClockNote(newTasks: Int, scheduledTimers: Bool) -> String? {
        var parts: [String] = []
        if newTasks > 0 {
            let what = newTasks == 1
                ? "1 idle task (a pool warm-up) was queued"
                : "\(newTasks) idle tasks (pool warm-ups) were queued"
            let paused = dispatcher.isTracking ? " once no session is dragging, decelerating or animating" : ""
            parts.append("\(what); under the virtual clock it runs only on tasks.drain\(paused)")
        }
        if scheduledTimers, let deadline = timers.nextDeadline, deadline > now {
            let wait = Host.formatMs(deadline - now)
            parts.append("a timer (an animation's end or a cool-down) is due at t=\(Host.formatMs(deadline)) ms; "
                         + "under the virtual clock it fires only on clock.advance {\"ms\": \(wait)}")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// 300 -> "300", 12.5 -> "12.5".
    static func formatMs(_ ms: Double) -> String {
        ms == ms.rounded() && abs(ms) < 1e15 ? String(Int64(ms)) : String(ms)
    }
}
