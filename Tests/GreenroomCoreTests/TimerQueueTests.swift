import Testing
@testable import GreenroomCore

@Suite struct TimerQueueTests {
    @Test func popsInDeadlineOrderThenSchedulingOrder() {
        var q = TimerQueue<String>()
        q.schedule(at: 30, "c")
        q.schedule(at: 10, "a1")
        q.schedule(at: 20, "b")
        q.schedule(at: 10, "a2")
        var seen: [String] = []
        while let due = q.popDue(now: 100) { seen.append(due.payload) }
        #expect(seen == ["a1", "a2", "b", "c"])
        #expect(q.isEmpty)
    }

    @Test func onlyDueTimersPop() {
        var q = TimerQueue<Int>()
        q.schedule(at: 5, 1)
        q.schedule(at: 15, 2)
        #expect(q.popDue(now: 4.9) == nil)
        #expect(q.popDue(now: 5)?.payload == 1)
        #expect(q.popDue(now: 10) == nil)
        #expect(q.nextDeadline() == 15)
    }

    @Test func cancelledTimersNeverFire() {
        var q = TimerQueue<Int>()
        let a = q.schedule(at: 1, 1)
        q.schedule(at: 2, 2)
        q.cancel(a)
        q.cancel(a)
        #expect(q.count == 1)
        #expect(q.nextDeadline() == 2)
        #expect(q.popDue(now: 10)?.payload == 2)
        #expect(q.popDue(now: 10) == nil)
    }

    @Test func manyRandomTimersComeOutSorted() {
        var rng = SplitMix(seed: 42)
        var q = TimerQueue<Double>()
        var all: [Double] = []
        for _ in 0..<1000 {
            let d = Double(rng.next() % 10_000)
            all.append(d)
            q.schedule(at: d, d)
        }
        var out: [Double] = []
        while let due = q.popDue(now: .infinity) { out.append(due.payload) }
        #expect(out == all.sorted())
    }
}

/// A tiny deterministic generator for tests.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
