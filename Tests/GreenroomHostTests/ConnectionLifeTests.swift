import Testing
@testable import GreenroomHost

/// A connection's life without a socket: each input, and what the connection is told to do.
@Suite struct ConnectionLifeTests {
    @Test func anOpenConnectionClosesAtTheEndOfFile() {
        var life = ConnectionLife()
        #expect(life.linesMayRun && life.phase == .open)
        #expect(life.peerFinished() == [.close])
        #expect(life.phase == .draining && !life.linesMayRun)
        // A second end of file, a refusal after it: said once.
        #expect(life.peerFinished() == [])
    }

    @Test func backpressurePausesAndTheDrainRunsTheHeldLinesThenReadingResumes() {
        var life = ConnectionLife()
        #expect(life.backpressure() == [.pauseReading])
        #expect(life.isPaused && !life.linesMayRun)
        #expect(life.drained() == [.runHeld])
        life.runningHeld()
        #expect(life.linesMayRun)
        #expect(life.heldLinesRan(allRan: true) == [.resumeReading])
        // Not paused: a drain says nothing.
        #expect(life.drained() == [])
    }

    @Test func theEndOfFileWhilePausedClosesOnceTheHeldLinesRan() {
        var life = ConnectionLife()
        _ = life.backpressure()
        #expect(life.peerFinished() == [])
        #expect(life.phase == .draining)
        #expect(life.drained() == [.runHeld])
        life.runningHeld()
        // The lines held before the end of file still run, then it closes instead of reading on.
        #expect(life.linesMayRun)
        #expect(life.heldLinesRan(allRan: true) == [.close])
        #expect(!life.linesMayRun)
    }

    @Test func aWaitingLineHoldsTheRestUntilTheLaneRanIt() {
        var life = ConnectionLife()
        #expect(life.lineDeferred() == [.pauseReading])
        #expect(life.isWaiting && !life.linesMayRun)
        // Paused too while it waits: both holds must go before the held lines run.
        _ = life.backpressure()
        #expect(life.deferredLineRan() == [])
        #expect(life.drained() == [.runHeld])
        life.runningHeld()
        #expect(life.heldLinesRan(allRan: true) == [.resumeReading])
    }

    @Test func heldLinesThatStoppedAgainLeaveReadingPaused() {
        var life = ConnectionLife()
        _ = life.lineDeferred()
        #expect(life.deferredLineRan() == [.runHeld])
        life.runningHeld()
        // One of the held lines waits in the lane again: nothing resumes.
        _ = life.lineDeferred()
        #expect(life.heldLinesRan(allRan: false) == [])
        #expect(life.isWaiting && !life.linesMayRun)
    }

    @Test func aRefusedConnectionNeverRunsAnotherLine() {
        var life = ConnectionLife()
        _ = life.backpressure()
        #expect(life.refuse() == [.close])
        #expect(life.phase == .refused && !life.linesMayRun)
        #expect(life.drained() == [] && life.deferredLineRan() == [] && life.peerFinished() == [])
        life.runningHeld()
        #expect(!life.linesMayRun)
        #expect(life.heldLinesRan(allRan: true) == [])
    }

    @Test func aConnectionClosedWhileItsLineWaitedIsAbandonedWithoutACloseRequest() {
        var life = ConnectionLife()
        _ = life.lineDeferred()
        life.abandoned()
        #expect(life.phase == .refused && !life.linesMayRun)
        #expect(life.deferredLineRan() == [])
    }

    @Test func aTransportLostMidReadStopsTheReadsLines() {
        var life = ConnectionLife()
        life.transportLost()
        #expect(!life.linesMayRun && life.phase == .open)
        life.closed()
        #expect(life.phase == .closed)
        #expect(life.refuse() == [] && life.backpressure() == [] && life.drained() == [])
    }
}
