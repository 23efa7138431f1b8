/// Undo for a speculative run. While it records, the first change to each container or stack record
/// saves that record's whole state; `undo` puts every saved record back as it was, so the same
/// operation can run again from the same start.
///
/// The host uses it to plan an operation's hooks before running them (to send a plugin worker all of
/// them in one message): the plan assumes every hook succeeds; when one did not, the records are put
/// back and the operation runs again, this time learning each hook's outcome as it goes.
/// Records made with a journal report their changes to it; records made without one never do.
public final class RecordJournal {
    public var isRecording: Bool { state.isRecording }
    /// Runs begun so far: each run's mark is new, even when runs interleave (`takeState`).
    private var runs = 0
    /// The current run's recording.
    private var state = State()

    fileprivate enum Saved {
        case container(ContainerRecord, ContainerRecord.Saved)
        case stack(StackRecord, StackRecord.Saved)
    }

    public init() {}

    /// One run's recording, as a value: a host that interleaves operations keeps each one's own.
    public struct State {
        fileprivate var isRecording = false
        /// The run's mark: a record saved in this run carries it, so it is saved only once.
        fileprivate var run = 0
        fileprivate var saved: [Saved] = []
        public init() {}
    }

    /// Takes the current run's recording, leaving the journal idle (its run count goes on).
    public func takeState() -> State {
        defer { state = State() }
        return state
    }

    /// Puts a run's recording back.
    public func restoreState(_ state: State) { self.state = state }

    /// How many records the current run saved (for tests).
    public var savedCount: Int { state.saved.count }

    /// Starts recording (forgetting any earlier run).
    public func begin() {
        runs &+= 1
        state.run = runs
        state.saved.removeAll(keepingCapacity: true)
        state.isRecording = true
    }

    /// Keeps the changes: stops recording and forgets the saved states.
    public func commit() {
        state.isRecording = false
        state.saved.removeAll(keepingCapacity: true)
    }

    /// Puts every record changed since `begin` back as it was, and stops recording.
    public func undo() {
        state.isRecording = false
        for entry in state.saved.reversed() {
            switch entry {
            case .container(let c, let s): c.restore(s)
            case .stack(let st, let s): st.restore(s)
            }
        }
        state.saved.removeAll(keepingCapacity: true)
    }

    func willChange(_ c: ContainerRecord) {
        guard state.isRecording, c.journalRun != state.run else { return }
        c.journalRun = state.run
        state.saved.append(.container(c, c.saved))
    }

    func willChange(_ s: StackRecord) {
        guard state.isRecording, s.journalRun != state.run else { return }
        s.journalRun = state.run
        state.saved.append(.stack(s, s.saved))
    }
}
