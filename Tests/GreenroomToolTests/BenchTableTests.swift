import Testing
@testable import greenroom

/// `greenroom bench --repeat N`: rows merged across runs, their spread, and a plain verdict when a
/// budget is missed by less than the noise the bench measured.
@Suite struct BenchTableTests {
    private func table(_ ratio: Double, budget: BenchTable.Budget? = .atLeast(0.5)) -> BenchTable {
        var t = BenchTable()
        t.add("didScroll vs ping", unit: "req/s", values: ["ping": 1, "didScroll": ratio],
              ratio: ("didScroll / ping", ratio), budget: budget)
        return t
    }

    @Test func oneRunHasNoSpreadAndPlainVerdicts() {
        let merged = BenchTable.merged([table(0.56)])
        #expect(merged.rows[0].range == nil)
        #expect(merged.rows[0].verdict == "yes")
        #expect(BenchTable.merged([table(0.3)]).rows[0].verdict == "NO")
    }

    @Test func repeatedRunsReportTheMedianRunAndTheSpread() {
        let merged = BenchTable.merged([table(0.55), table(0.61), table(0.52)])
        let row = merged.rows[0]
        #expect(row.ratio == 0.55)
        #expect(row.values.contains("didScroll 0.55"))
        #expect(row.range == 0.52...0.61)
        #expect(row.verdict == "yes")
    }

    @Test func aMissWithinTheMeasuredNoiseIsSaidPlainly() {
        let row = BenchTable.merged([table(0.48), table(0.49), table(0.51)]).rows[0]
        #expect(row.ratio == 0.49)
        #expect(row.verdict.hasPrefix("no, by less than the run-to-run noise"))
        #expect(row.verdict.contains("0.48-0.51"))
    }

    @Test func aMissBeyondTheNoiseIsANo() {
        let row = BenchTable.merged([table(0.40), table(0.41), table(0.42)]).rows[0]
        #expect(row.verdict == "NO")
        let upper = BenchTable.merged([table(3, budget: .atMost(2)), table(2.5, budget: .atMost(2))]).rows[0]
        #expect(upper.verdict == "NO")
    }

    @Test func rowsWithoutABudgetHaveNoVerdict() {
        #expect(BenchTable.merged([table(1, budget: nil), table(2, budget: nil)]).rows[0].verdict == "-")
    }
}
