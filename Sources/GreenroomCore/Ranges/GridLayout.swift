/// A grid: items fill rows of `columns`, left to right, each section starting a new row; every item of a
/// section has the section's row length, and rows are `spacing` apart along the axis (UICollectionView's
/// flow layout with equal items, RecyclerView's GridLayoutManager, Compose's LazyVerticalGrid with fixed
/// cells). Geometry is per row: an item's extent is its row's, so ranges always cover whole rows.
///
/// Rows are uniform within a section, so a section's rows need no per-row data: where a row starts is
/// arithmetic, and a lookup is a binary search over the sections' starts (O(log sections)). The section
/// starts are rebuilt when a section's count changes (O(sections)).
public struct GridLayout: Equatable, Sendable {
    public let columns: Int
    public let spacing: Double
    /// Each section's row length (nil: an empty section that has not had one yet).
    public internal(set) var rowLength: [Double?]
    /// Where each section starts along the axis; one more entry than sections (the end).
    private(set) var starts: [Double] = [0]
    /// Each section's first flat index; one more entry than sections (the item count).
    private(set) var firsts: [Int] = [0]

    public init(columns: Int, spacing: Double, rowLength: [Double?]) {
        self.columns = columns
        self.spacing = spacing
        self.rowLength = rowLength
    }

    func rows(_ count: Int) -> Int { (count + columns - 1) / columns }

    /// Recomputes the section starts from the sections' first flat indices (`sectionStarts`).
    mutating func rebuild(sectionStarts: [Int]) {
        firsts = sectionStarts
        starts = [0]
        starts.reserveCapacity(sectionStarts.count)
        for s in 0..<(sectionStarts.count - 1) {
            let r = rows(sectionStarts[s + 1] - sectionStarts[s])
            let height = r == 0 ? 0 : Double(r) * (rowLength[s] ?? 0) + Double(r - 1) * spacing
            // Sections are `spacing` apart too (none after an empty one).
            starts.append(starts[s] + height + (r == 0 || s == sectionStarts.count - 2 ? 0 : spacing))
        }
    }

    public var total: Double { starts.last ?? 0 }

    /// The section of flat index `i` (the last one starting at or before it, skipping empty ones).
    private func section(of i: Int) -> Int {
        var lo = 0, hi = firsts.count - 2
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if firsts[mid] <= i { lo = mid } else { hi = mid - 1 }
        }
        while lo + 1 < firsts.count - 1 && firsts[lo + 1] <= i { lo += 1 }
        return lo
    }

    /// Where item `i`'s row starts and ends.
    public func extent(_ i: Int) -> (start: Double, end: Double) {
        guard firsts.count > 1, i < firsts[firsts.count - 1] else { return (total, total) }
        let s = section(of: max(0, i))
        let row = (max(0, i) - firsts[s]) / columns
        let length = rowLength[s] ?? 0
        let start = starts[s] + Double(row) * (length + spacing)
        return (start, start + length)
    }

    /// Items whose rows intersect [a, b): whole rows, as one interval of flat indices.
    func items(_ a: Double, _ b: Double) -> IndexInterval {
        guard b > a, firsts.count > 1 else { return .empty }
        var lo: Int?, hi = 0
        // The first section that ends after a, walking on while sections start before b.
        var s = sectionEndingAfter(a)
        while s < firsts.count - 1 && starts[s] < b {
            let count = firsts[s + 1] - firsts[s]
            let length = rowLength[s] ?? 0
            if count > 0 && length > 0 {
                let pitch = length + spacing
                let r = rows(count)
                // Rows with start < b and end > a: from the first whose end passes a to the last starting before b.
                let first = max(0, Int(((a - starts[s] - length) / pitch).rounded(.down)) + 1)
                var last = min(r - 1, Int(((b - starts[s]) / pitch).rounded(.up)) - 1)
                while last >= 0 && starts[s] + Double(last) * pitch >= b { last -= 1 }
                var f = first
                while f > 0 && starts[s] + Double(f - 1) * pitch + length > a { f -= 1 }
                if f <= last {
                    if lo == nil { lo = firsts[s] + f * columns }
                    hi = min(firsts[s + 1], firsts[s] + (last + 1) * columns)
                }
            }
            s += 1
        }
        guard let lo else { return .empty }
        return IndexInterval(lo, hi)
    }

    /// The first item whose row ends after `x` (the item count when none does).
    func index(containing x: Double) -> Int {
        let r = items(x, .infinity)
        return r.isEmpty ? firsts[firsts.count - 1] : r.lo
    }

    private func sectionEndingAfter(_ a: Double) -> Int {
        var lo = 0, hi = firsts.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if starts[mid + 1] > a { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}
