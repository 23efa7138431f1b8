import Testing
@testable import GreenroomCore

@Suite struct LengthTreeTests {
    /// A plain array model to compare against.
    struct Model {
        var lengths: [Double]
        func offset(of i: Int) -> Double { lengths[..<i].reduce(0, +) }
        func index(containing x: Double) -> Int {
            var acc = 0.0
            for (i, l) in lengths.enumerated() {
                if x < acc + l { return i }
                acc += l
            }
            return lengths.count
        }
    }

    @Test func queriesMatchAPlainArray() {
        let lengths: [Double] = [10, 20, 0, 5, 40, 1, 0, 0, 7]
        let t = LengthTree(lengths: lengths)
        let m = Model(lengths: lengths)
        #expect(t.count == 9 && t.total == 83)
        for i in 0...9 { #expect(t.offset(of: i) == m.offset(of: i), "offset(\(i))") }
        for x in stride(from: -1.0, through: 90, by: 0.5) { #expect(t.index(containing: x) == max(0, m.index(containing: x)), "index(\(x))") }
        for i in 0..<9 { #expect(t.length(at: i) == lengths[i]) }
    }

    @Test func locateGivesExtentsAndLocateEndCountsItemsReachingIn() {
        let lengths: [Double] = [10, 20, 0, 5, 40, 1, 0, 0, 7]
        let t = LengthTree(lengths: lengths)
        let m = Model(lengths: lengths)
        for x in stride(from: -1.0, through: 90, by: 0.5) {
            let r = t.locate(x)
            #expect(r.index == max(0, m.index(containing: x)))
            if r.index < lengths.count && x >= 0 {
                #expect(r.start == m.offset(of: r.index) && r.end == m.offset(of: r.index + 1))
                #expect(r.start <= x && x < r.end)
            }
            // The items that start before x (an empty item sitting at x does not).
            let startingBefore = lengths.indices.filter { m.offset(of: $0) < x }.count
            #expect(t.locateEnd(x).count == startingBefore, "locateEnd(\(x))")
        }
    }

    @Test func randomInsertsAndDeletesStayConsistent() {
        var rng = SplitMix(seed: 7)
        var m = Model(lengths: (0..<200).map { _ in Double(rng.next() % 50) })
        var t = LengthTree(lengths: m.lengths)
        for step in 0..<2000 {
            let op = rng.next() % 3
            if op == 0 || m.lengths.isEmpty {
                let at = Int(rng.next() % UInt64(m.lengths.count + 1))
                let new = (0..<Int(rng.next() % 4 + 1)).map { _ in Double(rng.next() % 50) }
                m.lengths.insert(contentsOf: new, at: at)
                t.insert(new, at: at)
            } else if op == 1 {
                let at = Int(rng.next() % UInt64(m.lengths.count))
                let k = min(Int(rng.next() % 3 + 1), m.lengths.count - at)
                m.lengths.removeSubrange(at..<at + k)
                t.remove(at: at, count: k)
            } else {
                let at = Int(rng.next() % UInt64(m.lengths.count))
                let l = Double(rng.next() % 50)
                m.lengths[at] = l
                t.setLength(l, at: at)
            }
            #expect(t.count == m.lengths.count, "step \(step)")
            if step % 97 == 0 {
                for i in stride(from: 0, through: m.lengths.count, by: 7) { #expect(t.offset(of: i) == m.offset(of: i)) }
                let x = Double(rng.next() % UInt64(max(1, Int(t.total) + 10)))
                #expect(t.index(containing: x) == m.index(containing: x))
            }
        }
    }

    @Test func aMillionItems() {
        var t = LengthTree(lengths: Array(repeating: 44, count: 1_000_000))
        #expect(t.total == 44_000_000)
        #expect(t.index(containing: 44 * 500_000 + 1) == 500_000)
        t.insert([100], at: 10)
        #expect(t.offset(of: 11) == 44 * 10 + 100)
        t.remove(at: 0, count: 5)
        #expect(t.count == 1_000_000 - 4)
    }

    @Test func aBuiltTreeIsBalancedAndHeapOrdered() {
        for n in [0, 1, 2, 3, 7, 8, 1000, 65_539] {
            let t = LengthTree(lengths: (0..<n).map { Double($0 % 13) })
            #expect(t.brokenInvariant() == nil, "n = \(n)")
            // Perfectly balanced: ceil(log2(n + 1)) levels.
            var levels = 0
            while (1 << levels) < n + 1 { levels += 1 }
            #expect(t.height == levels, "n = \(n)")
            #expect(t.total == (0..<n).reduce(0.0) { $0 + Double($1 % 13) })
        }
    }

    /// Items added after the build get random priorities like any treap node: pages appended at the
    /// end (a list growing by batch fetches) or rows inserted at the top one by one keep the tree
    /// O(log n) tall. (New nodes once got the lowest priority and hung in a chain off the spine.)
    @Test func growingAtEitherEndStaysLogarithmic() {
        var t = LengthTree(lengths: Array(repeating: 44, count: 20))
        for _ in 0..<2_000 { t.insert(Array(repeating: 44, count: 20), at: t.count) }
        for _ in 0..<5_000 { t.insert([10], at: 0) }
        #expect(t.count == 20 + 40_000 + 5_000)
        #expect(t.brokenInvariant() == nil)
        #expect(t.height < 64, "height \(t.height) for \(t.count) items")
        #expect(t.offset(of: 5_000) == 50_000)
        #expect(t.total == 50_000 + 40_020 * 44)
    }

    @Test func radixSortMatchesTheStandardSort() {
        var rng = SplitMix(seed: 11)
        for n in [0, 1, 2, 300, 10_000] {
            var v = (0..<n).map { i in i % 5 == 0 ? UInt32(i % 3) : UInt32(truncatingIfNeeded: rng.next()) }
            let expected = v.sorted(by: >)
            LengthTree.sortDescending(&v)
            #expect(v == expected, "n = \(n)")
        }
    }
}
