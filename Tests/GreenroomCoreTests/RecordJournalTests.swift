import Testing
@testable import GreenroomCore

/// The undo a planned operation relies on: every record an operation changed is put back exactly, and
/// the operation then runs again from the same start to the same end.
@Suite struct RecordJournalTests {
    let size = Size(width: 100, height: 200)
    let noFailure: (ContainerFailure) -> Void = { Issue.record("unexpected failure \($0)") }

    struct Snapshot: Equatable {
        var state: Appearance, loaded: Bool, laidOut: Size?, parent: ContainerParent, owner: String?, destroyed: Bool, failed: Bool
        init(_ c: ContainerRecord) {
            (state, loaded, laidOut, parent, owner, destroyed, failed) =
                (c.state, c.viewLoaded, c.laidOutSize, c.parent, c.owner, c.isDestroyed, c.isFailed)
        }
    }

    @Test func undoPutsBackEveryRecordAPushAndAPopChanged() throws {
        let journal = RecordJournal()
        let d = RecordingDelegate()
        let ops = RecordingStackDriver(d)
        let room = StackRecord(id: "g", size: size, owner: nil, greenRoom: true, journal: journal)
        let stack = StackRecord(id: "s", size: Size(width: 50, height: 50), owner: "conn", journal: journal)
        let warm = ContainerRecord(id: "a", className: "K", owner: nil, journal: journal)
        let below = ContainerRecord(id: "b", className: "K", owner: nil, journal: journal)
        let top = ContainerRecord(id: "c", className: "K", owner: "conn", journal: journal)
        try ops.push(below, onto: room, animated: false, onFailure: noFailure)
        try ops.push(warm, onto: room, animated: false, onFailure: noFailure)
        try ops.push(top, onto: stack, animated: false, onFailure: noFailure)
        let before = [warm, below, top].map(Snapshot.init)
        let (roomItems, stackItems) = (room.items.map(\.id), stack.items.map(\.id))
        _ = d.take()

        // The hand-over and push of a showRendered hit, recorded.
        journal.begin()
        ops.remove(warm, from: room, onFailure: noFailure)
        warm.owner = "conn"
        try ops.push(warm, onto: stack, animated: false, onFailure: noFailure)
        let hooks = d.take()
        let after = [warm, below, top].map(Snapshot.init)
        #expect(after != before)
        #expect(journal.savedCount == 5)  // three containers, two stacks: each saved once

        journal.undo()
        #expect([warm, below, top].map(Snapshot.init) == before)
        #expect(room.items.map(\.id) == roomItems && stack.items.map(\.id) == stackItems)
        #expect(!journal.isRecording)

        // Run again from the same start: the same hooks, to the same end.
        ops.remove(warm, from: room, onFailure: noFailure)
        warm.owner = "conn"
        try ops.push(warm, onto: stack, animated: false, onFailure: noFailure)
        #expect(d.take() == hooks)
        #expect([warm, below, top].map(Snapshot.init) == after)
        #expect(d.unbalancedCalls.isEmpty)
    }

    @Test func commitKeepsTheChangesAndNothingIsSavedOutsideARun() throws {
        let journal = RecordJournal()
        let c = ContainerRecord(id: "a", className: "K", owner: nil, journal: journal)
        c.owner = "x"
        #expect(journal.savedCount == 0)
        journal.begin()
        c.owner = "y"
        c.owner = "z"
        #expect(journal.savedCount == 1)
        journal.commit()
        #expect(c.owner == "z" && journal.savedCount == 0)
        journal.undo()  // nothing left to undo
        #expect(c.owner == "z")
        // A later run saves the record again (its saved state is that run's start).
        journal.begin()
        c.owner = "w"
        journal.undo()
        #expect(c.owner == "z")
    }

    @Test func recordsMadeWithoutAJournalAreNeverSaved() {
        let journal = RecordJournal()
        let c = ContainerRecord(id: "a", className: "K", owner: nil)
        journal.begin()
        c.owner = "y"
        journal.undo()
        #expect(c.owner == "y" && journal.savedCount == 0)
    }
}
