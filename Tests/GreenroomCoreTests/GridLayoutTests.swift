import Testing
@testable import GreenroomCore

/// Grids: an item's extent is its row's, so ranges cover whole rows. Checked against a brute-force model.
@Suite struct GridLayoutTests {
    /// Every item's row extent, laid out one by one.
    static func model(columns: Int, spacing: Double, sections: [(count: Int, length: Double)]) -> [(Double, Double)] {
        var out: [(Double, Double)] = []
        var y = 0.0
        for (s, sec) in sections.enumerated() {
            let rows = (sec.count + columns - 1) / columns
            for k in 0..<sec.count {
                let start = y + Double(k / columns) * (sec.length + spacing)
                out.append((start, start + sec.length))
            }
            if rows > 0 { y += Double(rows) * sec.length + Double(rows - 1) * spacing + (s == sections.count - 1 ? 0 : spacing) }
        }
        return out
    }

    @Test func itemsAndExtentsMatchTheModel() {
        var g = SplitMix(seed: 5)
        for _ in 0..<300 {
            let columns = Int(g.next() % 4) + 1, spacing = Double(g.next() % 3) * 4
            let sections = (0..<Int(g.next() % 3 + 1)).map { _ in (count: Int(g.next() % 9), length: Double(g.next() % 3 + 1) * 10) }
            var layout = GridLayout(columns: columns, spacing: spacing, rowLength: sections.map { $0.count > 0 ? $0.length : nil })
            var starts = [0]
            for s in sections { starts.append(starts.last! + s.count) }
            layout.rebuild(sectionStarts: starts)
            let m = Self.model(columns: columns, spacing: spacing, sections: sections)
            for (i, e) in m.enumerated() { #expect(layout.extent(i) == (start: e.0, end: e.1), "item \(i)") }
            for _ in 0..<20 {
                let a = Double(g.next() % 200), b = a + Double(g.next() % 80 + 1)
                let hits = m.indices.filter { m[$0].0 < b && m[$0].1 > a }
                let got = layout.items(a, b)
                #expect(got == (hits.isEmpty ? .empty : IndexInterval(hits.first!, hits.last! + 1)),
                        "columns \(columns) spacing \(spacing) \(sections) [\(a), \(b))")
                #expect(hits.isEmpty || hits.count == hits.last! - hits.first! + 1, "whole rows, one interval")
            }
        }
    }

    @Test func aGridSessionsRangesCoverWholeRowsAndInsertsReflow() throws {
        // 3 columns of rows 100 high: a 250-point viewport shows rows 0-2, items 0..<9.
        let s = RangeSession(id: "g", sections: [Array(repeating: 100, count: 30)], viewportLength: 250, viewportCross: 300,
                             horizontal: false, grid: (columns: 3, spacing: 0))
        _ = s.update()
        #expect(s.visible == IndexInterval(0, 9))
        #expect(s.contentLength == 1000)
        try s.didScroll(to: 120)
        _ = s.update()
        #expect(s.visible == IndexInterval(3, 12), "rows 1-3")
        // An item inserted in row 0 pushes one item of every later row down: the last row grows.
        _ = try s.insert(section: 0, row: 1, lengths: [100])
        #expect(s.contentLength == 1100)
        #expect(throws: RangeError.notGridRow(expected: 100)) { try s.insert(section: 0, row: 0, lengths: [50]) }
    }
}
