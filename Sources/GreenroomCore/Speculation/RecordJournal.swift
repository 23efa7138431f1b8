/// Undo for a speculative run. While it records, the first change to each container or stack record
/// saves that record's whole state; `undo` puts every saved record back as it was, so the same
/// operation can run again from the same start.
///
/// The host uses it to plan an operation's hooks before running them (to send a plugin worker all of
/// them in one message): the plan assumes every hook succeeds; when one did not, the records are put
/// back and the operation runs again, this time learning each hook's outcome as it goes.
/// Records made with a journal report their changes to it; records made without one never do.
public final class RecordJournal {
    public var isRecording: Bool { recording.isRecording }
    /// Runs begun so far: each run's mark is new, even when runs interleave.
    private var runs = 0
    /// Recordings in progress across every piece of work: while there are none, a record's change costs
    /// one comparison.
    private var recordingCount = 0
    /// Where the work being run keeps its recording. A host that runs several pieces of work at once (one
    /// waits while another runs) gives each its own, so a change made by one is saved in its own run only;
    /// by default the journal has one.
    public var current: () -> Recording

    fileprivate enum Saved {
        case container(ContainerRecord, ContainerRecord.Saved)
        case stack(StackRecord, StackRecord.Saved)
    }

    public init() {
        let only = Recording()
        current = { only }
    }

    /// One piece of work's recording.
    public final class Recording {
        fileprivate var isRecording = false
        /// The run's mark: a record saved in this run carries it, so it is saved only once.
        fileprivate var run = 0
        fileprivate var saved: [Saved] = []
        public init() {}
    }

    private var recording: Recording { current() }

    /// How many records the current run saved (for tests).
    public var savedCount: Int { recording.saved.count }

    /// Starts recording (forgetting any earlier run).
    public func begin() {
        let r = recording
        runs &+= 1
        r.run = runs
        r.saved.removeAll(keepingCapacity: true)
        if !r.isRecording { recordingCount += 1 }
        r.isRecording = true
    }

    /// Keeps the changes: stops recording and forgets the saved states.
    public func commit() {
        let r = recording
        stop(r)
        r.saved.removeAll(keepingCapacity: true)
    }

    /// Puts every record changed since `begin` back as it was, and stops recording.
    public func undo() {
        let r = recording
        stop(r)
        for entry in r.saved.reversed() {
            switch entry {
            case .container(let c, let s): c.restore(s)
            case .stack(let st, let s): st.restore(s)
            }
        }
        r.saved.removeAll(keepingCapacity: true)
    }

    private func stop(_ r: Recording) {
        if r.isRecording { recordingCount -= 1 }
        r.isRecording = false
    }

    func willChange(_ c: ContainerRecord) {
        guard recordingCount > 0 else { return }
        let r = recording
        guard r.isRecording, c.journalRun != r.run else { return }
        c.journalRun = r.run
        r.saved.append(.container(c, c.saved))
    }

    func willChange(_ s: StackRecord) {
        guard recordingCount > 0 else { return }
        let r = recording
        guard r.isRecording, s.journalRun != r.run else { return }
        s.journalRun = r.run
        r.saved.append(.stack(s, s.saved))
    }
}
