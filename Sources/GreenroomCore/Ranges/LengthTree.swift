/// Item lengths along the scroll axis with O(log n) prefix sums, offset search, inserts and deletes:
/// an implicit treap (a balanced tree keyed by position) stored in parallel arrays, each node holding
/// its subtree's size and length sum. A Fenwick tree gives the same queries but cannot insert in the
/// middle without an O(n) rebuild; this can, so 1,000,000 items cost what 1,000 do.
public struct LengthTree {
    private var left: [Int32] = []
    private var right: [Int32] = []
    private var priority: [UInt32] = []
    private var size: [Int32] = []
    private var sum: [Double] = []
    private var length: [Double] = []
    private var root: Int32 = -1
    private var freeList: [Int32] = []
    private var rng: UInt64
    /// Changes whenever an item is inserted, removed or resized (offsets found before may be stale).
    public private(set) var version = 0

    public init(lengths: [Double], seed: UInt64 = 0x9E37_79B9_7F4A_7C15) {
        rng = seed
        let n = lengths.count
        left.reserveCapacity(n); right.reserveCapacity(n); priority.reserveCapacity(n)
        size.reserveCapacity(n); sum.reserveCapacity(n); length.reserveCapacity(n)
        for l in lengths { _ = newNode(l) }
        // A perfectly balanced build in O(n); priorities then follow depth (shallower = higher), drawn
        // from sorted random values so later random inserts mix in as in any treap.
        var depthOf = [UInt8](repeating: 0, count: n)
        root = build(0, n, depth: 0, &depthOf)
        if n > 0 {
            var draws = (0..<n).map { _ in nextRandom() }
            draws.sort(by: >)
            let order = (0..<n).sorted { depthOf[$0] < depthOf[$1] }
            for (rank, node) in order.enumerated() { priority[node] = draws[rank] }
        }
    }

    private mutating func nextRandom() -> UInt32 {
        rng &+= 0x9E37_79B9_7F4A_7C15
        var z = rng
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return UInt32(truncatingIfNeeded: z ^ (z >> 31))
    }

    private mutating func newNode(_ l: Double) -> Int32 {
        if let reused = freeList.popLast() {
            let i = Int(reused)
            left[i] = -1; right[i] = -1; size[i] = 1; sum[i] = l; length[i] = l; priority[i] = nextRandom()
            return reused
        }
        left.append(-1); right.append(-1); size.append(1); sum.append(l); length.append(l); priority.append(0)
        return Int32(length.count - 1)
    }

    private mutating func build(_ lo: Int, _ hi: Int, depth: UInt8, _ depthOf: inout [UInt8]) -> Int32 {
        guard lo < hi else { return -1 }
        let mid = (lo + hi) / 2
        depthOf[mid] = depth
        left[mid] = build(lo, mid, depth: depth &+ 1, &depthOf)
        right[mid] = build(mid + 1, hi, depth: depth &+ 1, &depthOf)
        update(Int32(mid))
        return Int32(mid)
    }

    @inline(__always) private func sizeOf(_ t: Int32) -> Int { t < 0 ? 0 : Int(size[Int(t)]) }
    @inline(__always) private func sumOf(_ t: Int32) -> Double { t < 0 ? 0 : sum[Int(t)] }

    @inline(__always) private mutating func update(_ t: Int32) {
        let i = Int(t)
        size[i] = Int32(1 + sizeOf(left[i]) + sizeOf(right[i]))
        sum[i] = length[i] + sumOf(left[i]) + sumOf(right[i])
    }

    /// Splits into the first `k` items and the rest.
    private mutating func split(_ t: Int32, _ k: Int) -> (Int32, Int32) {
        guard t >= 0 else { return (-1, -1) }
        let i = Int(t)
        let ls = sizeOf(left[i])
        if k <= ls {
            let (a, b) = split(left[i], k)
            left[i] = b
            update(t)
            return (a, t)
        } else {
            let (a, b) = split(right[i], k - ls - 1)
            right[i] = a
            update(t)
            return (t, b)
        }
    }

    private mutating func merge(_ a: Int32, _ b: Int32) -> Int32 {
        if a < 0 { return b }
        if b < 0 { return a }
        if priority[Int(a)] > priority[Int(b)] {
            right[Int(a)] = merge(right[Int(a)], b)
            update(a)
            return a
        } else {
            left[Int(b)] = merge(a, left[Int(b)])
            update(b)
            return b
        }
    }

    public var count: Int { sizeOf(root) }
    public var total: Double { sumOf(root) }

    /// The offset where item `index` starts (the sum of the lengths before it); `count` gives `total`.
    public func offset(of index: Int) -> Double {
        var t = root, k = index, acc = 0.0
        while t >= 0 {
            let i = Int(t)
            let ls = sizeOf(left[i])
            if k <= ls {
                t = left[i]
            } else {
                acc += sumOf(left[i]) + length[i]
                k -= ls + 1
                t = right[i]
            }
        }
        return acc
    }

    public func length(at index: Int) -> Double {
        var t = root, k = index
        while t >= 0 {
            let i = Int(t)
            let ls = sizeOf(left[i])
            if k < ls { t = left[i] } else if k == ls { return length[i] } else { k -= ls + 1; t = right[i] }
        }
        return 0
    }

    /// The item containing `offset` (the first item whose end is past it); 0 before the start, `count`
    /// at or past the end. Zero-length items are skipped over.
    public func index(containing offset: Double) -> Int { locate(offset).index }

    /// `index(containing:)` with that item's extent [start, end) (`total` twice at or past the end).
    public func locate(_ offset: Double) -> (index: Int, start: Double, end: Double) {
        if offset < 0 { return (0, 0, count > 0 ? length(at: 0) : 0) }
        var t = root, acc = 0.0, base = 0
        while t >= 0 {
            let i = Int(t)
            let leftSum = sumOf(left[i])
            let start = acc + leftSum
            let end = start + length[i]
            if offset < start {
                t = left[i]
            } else if offset < end {
                return (base + sizeOf(left[i]), start, end)
            } else {
                acc = end
                base += sizeOf(left[i]) + 1
                t = right[i]
            }
        }
        return (count, acc, acc)
    }

    /// How many items start before `offset` and are not empty there: the item k with
    /// start < offset <= end gives k + 1 (with its extent); 0 at or before the start; `count` past the
    /// end. Zero-length items sitting exactly at `offset` are not counted (they do not reach into
    /// anything that ends there).
    public func locateEnd(_ offset: Double) -> (count: Int, start: Double, end: Double) {
        if offset <= 0 { return (0, 0, 0) }
        var t = root, acc = 0.0, base = 0
        while t >= 0 {
            let i = Int(t)
            let start = acc + sumOf(left[i])
            let end = start + length[i]
            if offset <= start {
                t = left[i]
            } else if offset <= end {
                return (base + sizeOf(left[i]) + 1, start, end)
            } else {
                acc = end
                base += sizeOf(left[i]) + 1
                t = right[i]
            }
        }
        return (count, acc, acc)
    }

    /// Inserts items with `lengths` before `index`: O(k log n).
    public mutating func insert(_ lengths: [Double], at index: Int) {
        guard !lengths.isEmpty else { return }
        version &+= 1
        var (a, b) = split(root, index)
        for l in lengths { a = merge(a, newNode(l)) }
        root = merge(a, b)
    }

    /// Removes `k` items starting at `index`: O(k + log n).
    public mutating func remove(at index: Int, count k: Int = 1) {
        version &+= 1
        let (a, rest) = split(root, index)
        let (mid, b) = split(rest, k)
        recycle(mid)
        root = merge(a, b)
    }

    private mutating func recycle(_ t: Int32) {
        guard t >= 0 else { return }
        var stack = [t]
        while let n = stack.popLast() {
            if left[Int(n)] >= 0 { stack.append(left[Int(n)]) }
            if right[Int(n)] >= 0 { stack.append(right[Int(n)]) }
            freeList.append(n)
        }
    }

    /// Changes one item's length.
    public mutating func setLength(_ l: Double, at index: Int) {
        remove(at: index)
        insert([l], at: index)
    }
}
