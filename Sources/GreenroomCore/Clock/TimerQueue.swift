/// Identifies one scheduled timer, for cancelling it.
public struct TimerID: Hashable, Sendable, Comparable {
    public let raw: UInt64
    public static func < (a: TimerID, b: TimerID) -> Bool { a.raw < b.raw }
}

/// Timers ordered by deadline, ties by scheduling order: a binary min-heap. Pure: the host asks for
/// the next deadline and pops what is due; nothing here reads a clock.
public struct TimerQueue<Payload> {
    private struct Entry {
        var deadline: Double
        var id: TimerID
        var payload: Payload
        func before(_ o: Entry) -> Bool { deadline < o.deadline || (deadline == o.deadline && id < o.id) }
    }

    private var heap: [Entry] = []
    private var cancelled: Set<TimerID> = []
    private var nextID: UInt64 = 1

    public init() {}

    /// Number of timers still scheduled.
    public var count: Int { heap.count - cancelled.count }
    public var isEmpty: Bool { count == 0 }

    @discardableResult
    public mutating func schedule(at deadline: Double, _ payload: Payload) -> TimerID {
        let id = TimerID(raw: nextID)
        nextID += 1
        heap.append(Entry(deadline: deadline, id: id, payload: payload))
        siftUp(heap.count - 1)
        return id
    }

    /// Cancels a pending timer; cancelling one that already fired or was cancelled does nothing.
    public mutating func cancel(_ id: TimerID) {
        if heap.contains(where: { $0.id == id }) { cancelled.insert(id) }
    }

    /// The earliest live deadline.
    public mutating func nextDeadline() -> Double? {
        dropCancelledTop()
        return heap.first?.deadline
    }

    /// Removes and returns the earliest timer if its deadline is at or before `now`.
    public mutating func popDue(now: Double) -> (id: TimerID, deadline: Double, payload: Payload)? {
        dropCancelledTop()
        guard let top = heap.first, top.deadline <= now else { return nil }
        removeTop()
        return (top.id, top.deadline, top.payload)
    }

    private mutating func dropCancelledTop() {
        while let top = heap.first, cancelled.contains(top.id) {
            cancelled.remove(top.id)
            removeTop()
        }
    }

    private mutating func removeTop() {
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
    }

    private mutating func siftUp(_ i: Int) {
        var i = i
        while i > 0 {
            let parent = (i - 1) / 2
            guard heap[i].before(heap[parent]) else { return }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    private mutating func siftDown(_ i: Int) {
        var i = i
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count && heap[l].before(heap[m]) { m = l }
            if r < heap.count && heap[r].before(heap[m]) { m = r }
            if m == i { return }
            heap.swapAt(i, m)
            i = m
        }
    }
}
