import GreenroomCore

/// Work at a time on the host clock (animations' ends, cool-downs, worker restarts), in deadline order.
/// On a real clock the server's libuv timer wakes for the next deadline (`onChanged`); on a virtual clock
/// only `clock.advance` moves time (`advanceVirtualClock`).
public final class HostTimers {
    private var queue = TimerQueue<() async -> Void>()
    private let clock: HostClock
    private let virtualClock: VirtualClock?
    /// Called when the next deadline may have changed (the server re-arms its timer).
    public var onChanged: (() -> Void)?
    /// Timers scheduled since start-up (a request that scheduled one left work for the clock).
    public private(set) var scheduled = 0
    /// Called when a timer is scheduled (a host counts what each call scheduled).
    var onScheduled: (() -> Void)?

    init(clock: HostClock, virtualClock: VirtualClock?) {
        self.clock = clock
        self.virtualClock = virtualClock
    }

    /// Runs `action` at `deadline` on the host clock.
    @discardableResult
    public func schedule(at deadline: Double, _ action: @escaping () async -> Void) -> TimerID {
        let id = queue.schedule(at: deadline, action)
        scheduled += 1
        onScheduled?()
        onChanged?()
        return id
    }

    public func cancel(_ id: TimerID) {
        queue.cancel(id)
        onChanged?()
    }

    public var nextDeadline: Double? { queue.nextDeadline() }
    /// Timers waiting now.
    public var count: Int { queue.count }

    /// Runs every timer due at the current time, in deadline order. Returns how many ran.
    @discardableResult
    public func runDue() async -> Int {
        var fired = 0
        while let due = queue.popDue(now: clock.nowMs) {
            await due.payload()
            fired += 1
        }
        return fired
    }

    /// Virtual clock: moves time forward by `ms`, running due timers in time order, each at its own
    /// deadline. Returns how many fired.
    func advanceVirtualClock(by ms: Double) async -> Int {
        guard let v = virtualClock else { return 0 }
        let target = v.nowMs + ms
        var fired = 0
        while let deadline = queue.nextDeadline(), deadline <= target {
            v.set(deadline)
            fired += await runDue()
        }
        v.set(target)
        return fired
    }
}
