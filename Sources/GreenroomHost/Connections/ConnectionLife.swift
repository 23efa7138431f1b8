/// A connection's life, as a value: each input (the peer's end of file, backpressure, the call lane, a
/// refusal) changes it and returns what the connection must do about it. `HostConnection` carries the
/// actions out; the rules live here, where they are tested without a socket (ConnectionLifeTests).
///
///     open ──EOF──▶ draining ──held lines ran──▶ (close asked)
///      │              │
///      └──refuse──▶ refused ──▶ (close asked)        closed: the transport is gone (from anywhere)
///
/// Orthogonal to the phase, two holds keep lines from running: *paused* (the peer does not take its
/// replies: reading stops until the queue drains) and *waiting* (a line waits in the call lane: the
/// lines after it wait too). Lines read meanwhile are held, in order, and run when both holds are gone.
public struct ConnectionLife: Equatable, Sendable {
    public enum Phase: Equatable, Sendable {
        /// Lines run as they are read.
        case open
        /// The peer sent its end of file: the lines already read still run (held ones too), then the
        /// connection closes after writing what is queued.
        case draining
        /// Refused (a refusal line, a codec's last word, a close while its line waited): no further
        /// line runs; what is queued is written, then the connection closes. It never resumes.
        case refused
        /// The transport is gone.
        case closed
    }

    /// What the connection does about an input.
    public enum Action: Equatable, Sendable {
        /// Stop delivering bytes (the transport pauses reading).
        case pauseReading
        /// Deliver bytes again.
        case resumeReading
        /// Run the lines held while paused or waiting (then `heldLinesRan`).
        case runHeld
        /// Close once what is queued is written.
        case close
    }

    public private(set) var phase = Phase.open
    /// Paused by backpressure.
    public private(set) var isPaused = false
    /// A line waits in the call lane.
    public private(set) var isWaiting = false
    /// Whether a line may run now: one load per line on the hot path. False once anything stops lines
    /// (a hold, the end of the phase, a transport gone mid-read); true again when held lines run.
    public private(set) var linesMayRun = true

    public init() {}

    /// Whether held lines can run now.
    private var canRunHeld: Bool { !isPaused && !isWaiting && (phase == .open || phase == .draining) }

    /// The peer does not take its replies (past the high-water mark): lines stop and reading pauses.
    public mutating func backpressure() -> [Action] {
        guard phase == .open || phase == .draining else { return [] }
        isPaused = true
        linesMayRun = false
        return [.pauseReading]
    }

    /// The queue drained below the low-water mark.
    public mutating func drained() -> [Action] {
        guard isPaused, phase == .open || phase == .draining else { return [] }
        isPaused = false
        return canRunHeld ? [.runHeld] : []
    }

    /// The call lane took a line: it and every line after it wait; reading pauses.
    public mutating func lineDeferred() -> [Action] {
        isWaiting = true
        linesMayRun = false
        return [.pauseReading]
    }

    /// The lane ran the waiting line.
    public mutating func deferredLineRan() -> [Action] {
        guard isWaiting else { return [] }
        isWaiting = false
        return canRunHeld ? [.runHeld] : []
    }

    /// Held lines start to run.
    public mutating func runningHeld() {
        if canRunHeld { linesMayRun = true }
    }

    /// The held lines ran (or a hold stopped them again): once none is held and nothing holds, reading
    /// resumes, or the connection closes after the peer's end of file.
    public mutating func heldLinesRan(allRan: Bool) -> [Action] {
        guard canRunHeld, allRan else { return [] }
        if phase == .draining {
            linesMayRun = false
            return [.close]
        }
        return [.resumeReading]
    }

    /// The peer sent its end of file: no more requests. Lines already read still run.
    public mutating func peerFinished() -> [Action] {
        guard phase == .open else { return [] }
        phase = .draining
        guard !isPaused && !isWaiting else { return [] }
        linesMayRun = false
        return [.close]
    }

    /// Refused: no further line runs (held ones included); what is queued is written, then it closes.
    public mutating func refuse() -> [Action] {
        guard phase != .closed else { return [] }
        phase = .refused
        linesMayRun = false
        return [.close]
    }

    /// It closed while its line waited in the lane: nothing more runs, and no one asks for a close
    /// (the transport is already gone).
    public mutating func abandoned() {
        guard phase != .closed else { return }
        phase = .refused
        linesMayRun = false
    }

    /// The transport went away in the middle of a read: no further line of that read runs.
    public mutating func transportLost() {
        linesMayRun = false
    }

    /// The transport is gone.
    public mutating func closed() {
        phase = .closed
        linesMayRun = false
    }
}
