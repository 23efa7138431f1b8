import Testing
@testable import GreenroomCore

/// A clock the tasks advance: each task "costs" what it adds.
final class FakeTime {
    var now: Double = 0
}

/// What the host does with a dispatcher: a pass runs the tasks it hands out, reading `now` before and
/// after each; a drain runs every runnable one.
/// The host's dispatcher: a task's work is a closure.
typealias IdleDispatcher = TaskDispatcher<() -> Void>

extension TaskDispatcher where Work == () -> Void {
    func runPass(now: () -> Double) -> Report {
        var pass = beginPass(now: now())
        while let task = next(in: &pass, now: now()) {
            let t0 = now()
            task.work()
            ran(task, costMs: now() - t0, in: &pass)
        }
        return pass.report
    }

    func drain(now: () -> Double) -> Int {
        var count = 0
        while let task = takeRunnable() {
            let t0 = now()
            task.work()
            ran(task, costMs: now() - t0)
            count += 1
        }
        return count
    }
}

@Suite struct TaskDispatcherTests {
    @Test func fifoAndDuplicateKeysIgnored() {
        let d = IdleDispatcher()
        var ran: [String] = []
        #expect(d.enqueue(key: "a") { ran.append("a") })
        #expect(d.enqueue(key: "b") { ran.append("b") })
        #expect(!d.enqueue(key: "a") { ran.append("a2") })
        #expect(d.drain(now: { 0 }) == 2)
        #expect(ran == ["a", "b"])
        #expect(d.enqueue(key: "a") { ran.append("a3") }, "a key can be reused once its task ran")
    }

    @Test func cancelByKey() {
        let d = IdleDispatcher()
        var ran: [String] = []
        d.enqueue(key: "a") { ran.append("a") }
        d.enqueue(key: "b") { ran.append("b") }
        #expect(d.cancel(key: "a"))
        #expect(!d.cancel(key: "zzz"))
        _ = d.drain(now: { 0 })
        #expect(ran == ["b"])
    }

    @Test func defaultModePausesWhileTrackingCommonDoesNot() {
        let d = IdleDispatcher()
        var ran: [String] = []
        d.enqueue(key: "warm", mode: .default) { ran.append("warm") }
        d.enqueue(key: "ui", mode: .common) { ran.append("ui") }
        d.isTracking = true
        #expect(d.runnableCount == 1)
        #expect(d.hasRunnable)
        _ = d.runPass(now: { 0 })
        #expect(ran == ["ui"])
        #expect(!d.hasRunnable)
        #expect(d.pendingCount == 1)
        d.isTracking = false
        _ = d.runPass(now: { 0 })
        #expect(ran == ["ui", "warm"])
    }

    @Test func passStopsWhenSliceIsSpentButRunsAtLeastOne() {
        let t = FakeTime()
        let d = IdleDispatcher(sliceMs: 4)
        var ran = 0
        for i in 0..<10 { d.enqueue(key: "k\(i)", costKey: "same") { t.now += 3; ran += 1 } }
        let r1 = d.runPass(now: { t.now })
        // First task: no estimate yet, runs (3 ms). Second: estimate 3 + spent 3 > 4: waits.
        #expect(r1.ran == 1)
        #expect(r1.deferred == 1)
        let d2 = IdleDispatcher(sliceMs: 4)
        d2.enqueue(key: "huge") { t.now += 50 }
        #expect(d2.runPass(now: { t.now }).ran == 1, "always at least one, even over the slice")
    }

    @Test func cheapTasksShareAPass() {
        let t = FakeTime()
        let d = IdleDispatcher(sliceMs: 4)
        for i in 0..<10 { d.enqueue(key: "k\(i)", costKey: "cheap") { t.now += 0.5 } }
        let r = d.runPass(now: { t.now })
        // 0.5 ms each: after n tasks spent = 0.5n; the next fits while 0.5n + 0.5 <= 4.
        #expect(r.ran == 8)
        #expect(d.pendingCount == 2)
    }

    @Test func runningAverageIsThreeQuartersOldOneQuarterNew() {
        let t = FakeTime()
        let d = IdleDispatcher()
        d.enqueue(key: "a", costKey: "c") { t.now += 8 }
        _ = d.runPass(now: { t.now })
        #expect(d.averageCostMs["c"] == 8)
        d.enqueue(key: "b", costKey: "c") { t.now += 4 }
        _ = d.runPass(now: { t.now })
        #expect(d.averageCostMs["c"] == 7)
    }

    @Test func tasksEnqueuedDuringAPassWaitForTheNext() {
        let d = IdleDispatcher()
        var ran: [String] = []
        d.enqueue(key: "a") {
            ran.append("a")
            d.enqueue(key: "b") { ran.append("b") }
        }
        _ = d.runPass(now: { 0 })
        #expect(ran == ["a"])
        _ = d.runPass(now: { 0 })
        #expect(ran == ["a", "b"])
    }

    @Test func drainRunsTasksAddedWhileDraining() {
        let d = IdleDispatcher()
        var n = 0
        func chain(_ i: Int) { d.enqueue(key: "t\(i)") { n += 1; if i < 5 { chain(i + 1) } } }
        chain(0)
        #expect(d.drain(now: { 0 }) == 6)
        #expect(n == 6)
    }
}
