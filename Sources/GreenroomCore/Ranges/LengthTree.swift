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
    /// A caller's tag per node (range sessions keep their item keys' slots here), -1 when untagged.
    private var tags: [Int32] = []
    private var root: Int32 = -1
    private var freeList: [Int32] = []
    private var rng: UInt64
    /// Changes whenever an item is inserted, removed or resized (offsets found before may be stale).
    public private(set) var version = 0

    /// Builds a perfectly balanced tree in O(n) (no comparison sort anywhere): a million items take
    /// milliseconds, not the half second that blocked the loop for every other connection.
    public init(lengths: [Double], tags: [Int32]? = nil, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) {
        rng = seed
        let n = lengths.count
        length = lengths
        self.tags = tags ?? [Int32](repeating: -1, count: n)
        sum = [Double](repeating: 0, count: n)
        size = [Int32](repeating: 1, count: n)
        left = [Int32](repeating: -1, count: n)
        right = [Int32](repeating: -1, count: n)
        priority = [UInt32](repeating: 0, count: n)
        guard n > 0 else { return }
        var depthOf = [UInt8](repeating: 0, count: n)
        length.withUnsafeBufferPointer { len in
            sum.withUnsafeMutableBufferPointer { sum in
                size.withUnsafeMutableBufferPointer { size in
                    left.withUnsafeMutableBufferPointer { left in
                        right.withUnsafeMutableBufferPointer { right in
                            depthOf.withUnsafeMutableBufferPointer { depth in
                                let b = Build(length: len, sum: sum, size: size, left: left, right: right, depth: depth)
                                root = b.node(0, n, 0)
                            }
                        }
                    }
                }
            }
        }
        // Priorities follow depth (shallower = higher), drawn from sorted random values so that later
        // random inserts mix in as in any treap. Nodes of one depth take them in index order.
        var draws = (0..<n).map { _ in nextRandom() }
        Self.sortDescending(&draws)
        var next = [Int](repeating: 0, count: 257)
        for d in depthOf { next[Int(d) + 1] += 1 }
        for d in 1..<next.count { next[d] += next[d - 1] }
        priority.withUnsafeMutableBufferPointer { priority in
            for node in 0..<n {
                let d = Int(depthOf[node])
                priority[node] = draws[next[d]]
                next[d] += 1
            }
        }
    }

    /// The balanced build over raw buffers (no bounds or uniqueness checks per node).
    private struct Build {
        let length: UnsafeBufferPointer<Double>
        let sum: UnsafeMutableBufferPointer<Double>
        let size: UnsafeMutableBufferPointer<Int32>
        let left: UnsafeMutableBufferPointer<Int32>
        let right: UnsafeMutableBufferPointer<Int32>
        let depth: UnsafeMutableBufferPointer<UInt8>

        /// The root of items lo..<hi (their middle), children built first.
        func node(_ lo: Int, _ hi: Int, _ d: UInt8) -> Int32 {
            guard lo < hi else { return -1 }
            let mid = (lo + hi) / 2
            depth[mid] = d
            let l = node(lo, mid, d &+ 1), r = node(mid + 1, hi, d &+ 1)
            left[mid] = l
            right[mid] = r
            size[mid] = Int32(hi - lo)
            // The same sum, in the same order, as `update`.
            sum[mid] = length[mid] + (l < 0 ? 0 : sum[Int(l)]) + (r < 0 ? 0 : sum[Int(r)])
            return Int32(mid)
        }
    }

    /// LSD radix sort, largest first: four passes of one byte, O(n).
    static func sortDescending(_ values: inout [UInt32]) {
        var other = values
        var counts = [Int](repeating: 0, count: 257)
        for shift in stride(from: 0, to: 32, by: 8) {
            for i in counts.indices { counts[i] = 0 }
            // Bucket by the complemented byte: ascending complements are descending values.
            for v in values { counts[Int(~(v >> UInt32(shift)) & 0xFF) + 1] += 1 }
            for i in 1..<counts.count { counts[i] += counts[i - 1] }
            for v in values {
                let b = Int(~(v >> UInt32(shift)) & 0xFF)
                other[counts[b]] = v
                counts[b] += 1
            }
            swap(&values, &other)
        }
    }

    private mutating func nextRandom() -> UInt32 {
        rng &+= 0x9E37_79B9_7F4A_7C15
        var z = rng
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return UInt32(truncatingIfNeeded: z ^ (z >> 31))
    }

    private mutating func newNode(_ l: Double, tag: Int32 = -1) -> Int32 {
        if let reused = freeList.popLast() {
            let i = Int(reused)
            left[i] = -1; right[i] = -1; size[i] = 1; sum[i] = l; length[i] = l; priority[i] = nextRandom(); tags[i] = tag
            return reused
        }
        left.append(-1); right.append(-1); size.append(1); sum.append(l); length.append(l); priority.append(nextRandom())
        tags.append(tag)
        return Int32(length.count - 1)
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

    /// The node holding item `index`, nil out of range: O(log n).
    private func node(at index: Int) -> Int? {
        var t = root, k = index
        while t >= 0 {
            let i = Int(t)
            let ls = sizeOf(left[i])
            if k < ls { t = left[i] } else if k == ls { return i } else { k -= ls + 1; t = right[i] }
        }
        return nil
    }

    public func length(at index: Int) -> Double { node(at: index).map { length[$0] } ?? 0 }

    /// The tag of item `index` (-1: untagged or out of range): O(log n).
    public func tag(at index: Int) -> Int32 { node(at: index).map { tags[$0] } ?? -1 }

    /// Every item's tag in order: O(n).
    public func allTags() -> [Int32] {
        var out: [Int32] = []
        out.reserveCapacity(count)
        var stack: [Int32] = []
        var t = root
        while t >= 0 || !stack.isEmpty {
            while t >= 0 { stack.append(t); t = left[Int(t)] }
            let n = stack.removeLast()
            out.append(tags[Int(n)])
            t = right[Int(n)]
        }
        return out
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
    public mutating func insert(_ lengths: [Double], tags newTags: [Int32]? = nil, at index: Int) {
        guard !lengths.isEmpty else { return }
        version &+= 1
        var (a, b) = split(root, index)
        for (k, l) in lengths.enumerated() { a = merge(a, newNode(l, tag: newTags?[k] ?? -1)) }
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

    /// Changes one item's length (its tag stays).
    public mutating func setLength(_ l: Double, at index: Int) {
        let tag = tag(at: index)
        remove(at: index)
        insert([l], tags: [tag], at: index)
    }

    /// The tree's height (O(n); for tests: a treap stays O(log n) tall whatever the order of inserts).
    var height: Int {
        var best = 0
        var stack: [(Int32, Int)] = root >= 0 ? [(root, 1)] : []
        while let (t, d) = stack.popLast() {
            best = max(best, d)
            if left[Int(t)] >= 0 { stack.append((left[Int(t)], d + 1)) }
            if right[Int(t)] >= 0 { stack.append((right[Int(t)], d + 1)) }
        }
        return best
    }

    /// The first broken invariant (heap order of priorities, subtree sizes and sums), or nil. For tests.
    func brokenInvariant() -> String? {
        var stack: [Int32] = root >= 0 ? [root] : []
        while let t = stack.popLast() {
            let i = Int(t)
            for c in [left[i], right[i]] where c >= 0 {
                if priority[Int(c)] > priority[i] { return "node \(c) outranks its parent \(t)" }
                stack.append(c)
            }
            if Int(size[i]) != 1 + sizeOf(left[i]) + sizeOf(right[i]) { return "size of node \(t)" }
            if sum[i] != length[i] + sumOf(left[i]) + sumOf(right[i]) { return "sum of node \(t)" }
        }
        return nil
    }
}
