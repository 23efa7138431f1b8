/// Undo for a speculative run. While it records, the first change to each container or stack record
/// saves that record's whole state; `undo` puts every saved record back as it was, so the same
/// operation can run again from the same start.
///
/// The host uses it to plan an operation's hooks before running them (to send a plugin worker all of
/// them in one message): the plan assumes every hook succeeds; when one did not, the records are put
/// back and the operation runs again, this time learning each hook's outcome as it goes.
/// Records made with a journal report their changes to it; records made without one never do.
public final class RecordJournal {
    public private(set) var isRecording = false
    /// Bumped by each `begin`: a record saved in this run carries it, so it is saved only once.
    private var run = 0
    private var saved: [Saved] = []

    private enum Saved {
        case container(ContainerRecord, ContainerRecord.Saved)
        case stack(StackRecord, StackRecord.Saved)
    }

    public init() {}

    /// How many records the current run saved (for tests).
    public var savedCount: Int { saved.count }

    /// Starts recording (forgetting any earlier run).
    public func begin() {
        run &+= 1
        saved.removeAll(keepingCapacity: true)
        isRecording = true
    }

    /// Keeps the changes: stops recording and forgets the saved states.
    public func commit() {
        isRecording = false
        saved.removeAll(keepingCapacity: true)
    }

    /// Puts every record changed since `begin` back as it was, and stops recording.
    public func undo() {
        isRecording = false
        for entry in saved.reversed() {
            switch entry {
            case .container(let c, let s): c.restore(s)
            case .stack(let st, let s): st.restore(s)
            }
        }
        saved.removeAll(keepingCapacity: true)
    }

    func willChange(_ c: ContainerRecord) {
        guard isRecording, c.journalRun != run else { return }
        c.journalRun = run
        saved.append(.container(c, c.saved))
    }

    func willChange(_ s: StackRecord) {
        guard isRecording, s.journalRun != run else { return }
        s.journalRun = run
        saved.append(.stack(s, s.saved))
    }
}
