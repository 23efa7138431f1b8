import GreenroomJSON
import GreenroomRPC

/// What carries a connection's bytes: a libuv stream in the server, a buffer in tests.
public protocol ConnectionTransport: AnyObject {
    /// The host appended bytes to the connection's outbound buffer.
    func outputReady(_ connection: HostConnection)
    /// The host wants the connection closed (after what is queued has been written).
    func closeRequested(_ connection: HostConnection)
    /// More than the high-water mark is waiting in `out` in the middle of a read: write what the peer
    /// takes now (backpressure then decides on what is still queued).
    func flushNow(_ connection: HostConnection)
    /// Backpressure: whether this transport can stop delivering bytes (`pauseReading`) and resume
    /// (`connection.resume()` once its queue drained). An in-memory transport cannot: it never pauses.
    var supportsBackpressure: Bool { get }
    /// Bytes handed to the peer's stream but not yet taken by it (queued writes).
    var queuedBytes: Int { get }
    /// Stop delivering received bytes until `resumeReading`; the connection has paused.
    func pauseReading(_ connection: HostConnection)
    func resumeReading(_ connection: HostConnection)
}

extension ConnectionTransport {
    public func flushNow(_ connection: HostConnection) {}
    public var supportsBackpressure: Bool { false }
    public var queuedBytes: Int { 0 }
    public func pauseReading(_ connection: HostConnection) {}
    public func resumeReading(_ connection: HostConnection) {}
}

/// What a connection asks of the host it belongs to: the acts that change host-wide state (the host
/// is the one implementation; tests of a connection can give their own).
protocol ConnectionOwner: AnyObject {
    /// The connection is closed: its objects are torn down and it leaves the table.
    func finishClosing(_ c: HostConnection, reason: String)
    /// Backpressure paused it.
    func countPause()
    /// Its WebSocket upgrade was accepted.
    func countUpgrade()
    /// Its codec ended it (a WebSocket close code, an HTTP answer).
    func countCodecClose(_ why: CodecClose)
    /// Its partial input grew or shrank by `delta` bytes (the host-wide budget).
    func inputBuffered(_ delta: Int)
    /// It authenticated: one fewer unauthenticated connection.
    func connectionAuthenticated()
}

/// One client connection as the host sees it: its framing state, outbound buffer, subscriptions and
/// event sequence. Objects it creates belong to it and die with it.
public final class HostConnection {
    public enum Kind: String, Sendable {
        case unix, tcp, ws, memory
        /// Network peers authenticate (`host.auth`, or a token in the upgrade) when the host has a token.
        public var needsToken: Bool { self == .tcp || self == .ws }
    }

    public let id: String
    public let kind: Kind
    /// The host it belongs to, as the acts it asks of it. `unowned(unsafe)`: the host outlives its
    /// connections (they are removed when they close, and all at its shutdown).
    private unowned(unsafe) let owner: any ConnectionOwner
    /// Runs its lines (the host's one processor).
    private let processor: RPCProcessor<HostConnection>
    /// The message limit once authenticated, and before.
    private let maxMessageBytes: Int, maxUnauthenticatedMessageBytes: Int
    public weak var transport: ConnectionTransport?
    public let out = OutboundBuffer()
    /// Backpressure's high-water mark: `out` past this many bytes mid-read is written before the next
    /// line runs, and if what the peer has not taken (`out` plus the transport's queued writes) is still
    /// past it, the connection pauses: no further line runs and the transport stops reading until the
    /// queue drains below `lowWater`. One read of cheap requests with large replies (`rpc.discover`)
    /// never makes the host build more than one reply past the mark. See `Host.waterMarks(outboundLimit:)`.
    public let highWater: Int
    public let lowWater: Int
    /// Its life: open, draining, refused or closed, and whether it is paused or waiting
    /// (`ConnectionLife`, which says what to do about each input; `perform` does it).
    private var life = ConnectionLife()
    /// Paused by backpressure: lines already read wait in `held` (in order) until `resume()`.
    public var isPaused: Bool { life.isPaused }
    /// A line of this connection waits in the host's call lane (`CallLane`): later lines wait in `held`
    /// (in order) and reading stops until it ran.
    public var isWaiting: Bool { life.isWaiting }
    /// The line that waits in the lane, read and validated.
    private var deferred: RPCProcessor<HostConnection>.ReadLine?
    /// The line waiting in the lane, if any (what it depends on is read from it).
    var deferredRead: RPCProcessor<HostConnection>.ReadLine? { deferred }
    /// Lines read but not run while paused, each as [Int32 length][bytes]; length -1 is an oversized line.
    private var held: [UInt8] = []
    private var heldStart = 0
    /// Turns received bytes into whole messages and frames outbound ones (`out.framing`).
    let codec: MessageCodec
    /// One complete line of the chunk being received: in the chunk itself, or copied into `spill`.
    private enum RunLine {
        case chunk(UnsafeRawBufferPointer)
        case spilled(offset: Int, count: Int)
    }
    /// Complete lines of the chunk being received, in order (empty between chunks).
    private var run: [RunLine] = []
    /// Lines that were not in the chunk (a WebSocket message in wslay's buffer, valid only until it reads
    /// again; a line reassembled from earlier chunks), copied so that they join the run and are read
    /// ahead with the rest.
    private var spill: [UInt8] = []
    /// The run's lines as pointers, reused from chunk to chunk.
    private var runLines: [UnsafeRawBufferPointer] = []
    public internal(set) var isAuthenticated: Bool
    public internal(set) var subscriptions: Set<String> = [] {
        didSet { topicMask = EventRouter.mask(subscriptions) }
    }
    /// `subscriptions` as bits of `EventRouter.topics` (hot paths test them without hashing).
    public private(set) var topicMask: UInt16 = 0
    public internal(set) var observesAll = false
    /// The last event sequence number sent; the next event carries seq + 1.
    public internal(set) var seq = 0
    public internal(set) var isClosed: Bool {
        get { life.phase == .closed }
        set { if newValue { life.closed() } }
    }
    /// True while a read's lines run (`receive`, held lines, the lane's line): a close that happens
    /// meanwhile (a write failed as backpressure flushed) waits for them to stop (`closeAfterRead`), so
    /// the teardown never runs inside the parse loop.
    private(set) var isReadingLines = false
    /// Why the connection closed during the read in progress: torn down when it ends.
    private var closedDuringRead: String?

    /// The transport is gone mid-read: no further line runs, nothing more is written, and the teardown
    /// waits for the read to end.
    func closeAfterRead(reason: String) {
        closedDuringRead = closedDuringRead ?? reason
        life.transportLost()
        transport = nil
    }

    /// Runs `lines` as a read: a close meanwhile is carried out after them.
    private func readingLines(_ lines: () -> Void) {
        guard !isReadingLines else { return lines() }
        isReadingLines = true
        lines()
        isReadingLines = false
        if let reason = closedDuringRead {
            closedDuringRead = nil
            owner.finishClosing(self, reason: reason)
        }
    }

    /// Its transcript, when the host records them (`serve --record`). It ends when the connection starts
    /// to close: what is written after that (its objects' teardown) no client reads.
    private(set) var recording: ConnectionRecording?

    init(id: String, kind: Kind, owner: any ConnectionOwner, processor: RPCProcessor<HostConnection>, config: HostConfig,
         authenticated: Bool, codec: MessageCodec) {
        self.id = id
        self.kind = kind
        self.owner = owner
        self.processor = processor
        maxMessageBytes = config.limits.maxMessageBytes
        maxUnauthenticatedMessageBytes = min(config.limits.maxMessageBytes, config.maxUnauthenticatedMessageBytes)
        self.isAuthenticated = authenticated
        self.codec = codec
        codec.maxMessageBytes = authenticated ? maxMessageBytes : maxUnauthenticatedMessageBytes
        out.framing = codec
        if let sink = config.transcriptSink?(id) {
            let r = ConnectionRecording(sink: sink, framing: codec, clock: config.clockMode.rawValue, uikit: config.uikit, connection: id)
            recording = r
            out.framing = r
        }
        (self.highWater, self.lowWater) = Host.waterMarks(outboundLimit: config.maxOutboundBytes)
    }

    /// Asked before each line of a read is run: true once no further line may run (closed, or paused
    /// now because `out` grew past the high-water mark and the peer does not take it).
    @inline(__always)
    private func stopsReading() -> Bool {
        if !life.linesMayRun { return true }
        guard out.count > highWater else { return false }
        return backpressure()
    }

    private func backpressure() -> Bool {
        guard let t = transport else { return false }
        t.flushNow(self)
        if !life.linesMayRun { return true }
        guard t.supportsBackpressure, out.count + t.queuedBytes > highWater else { return false }
        owner.countPause()
        perform(life.backpressure())
        return true
    }

    /// Carries out what `life` says to do about an input.
    private func perform(_ actions: [ConnectionLife.Action]) {
        for action in actions {
            switch action {
            case .pauseReading: if let t = transport, t.supportsBackpressure { t.pauseReading(self) }
            case .resumeReading: transport?.resumeReading(self)
            case .runHeld: readingLines(runHeldLines)
            case .close: transport?.closeRequested(self)
            }
        }
    }

    /// The transport's queue drained below the low-water mark: runs the held lines (until the next
    /// pause), then reading resumes; after the peer's EOF, the connection closes once none is held.
    public func resume() {
        perform(life.drained())
    }

    // MARK: Lines that wait in the call lane

    /// The lane refused `read` (too many calls wait): each of its requests is answered with `error`.
    func refuseLine(_ read: RPCProcessor<HostConnection>.ReadLine, _ error: RPCError) {
        processor.refuse(read, with: error, out: out)
        if !out.isEmpty { transport?.outputReady(self) }
    }

    /// The lane took `read`: it runs later (`runDeferred`), and nothing after it runs before it.
    func deferLine(_ read: RPCProcessor<HostConnection>.ReadLine) {
        deferred = read
        perform(life.lineDeferred())
    }

    /// Runs the line that waited in the lane, in its task (its hooks may wait on a plugin worker while the
    /// loop serves everyone else). A close meanwhile is the lane's next item, after this one.
    func runDeferred() async {
        guard let read = deferred else { return }
        deferred = nil
        if !isClosed { await processor.dispatchTaken(read, context: self, out: out) }
        if !out.isEmpty { transport?.outputReady(self) }
    }

    /// The waiting line ran: the held lines run (until one waits again or backpressure pauses), then
    /// reading resumes.
    func deferredLineDone() {
        perform(life.deferredLineRan())
    }

    /// The connection closed while its line waited in the lane: no one is left to read the reply.
    func dropDeferredLine() {
        deferred = nil
        held.removeAll()
        heldStart = 0
        life.abandoned()
    }

    /// Runs the lines held while paused or waiting; then reading resumes, or after the peer's EOF the
    /// connection closes.
    private func runHeldLines() {
        life.runningHeld()
        while heldStart < held.count, !stopsReading() {
            let length = held.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: heldStart, as: Int32.self)) }
            heldStart += 4
            if length < 0 {
                oversized()
                continue
            }
            held.withUnsafeBytes { raw in
                processor.handle(line: UnsafeRawBufferPointer(rebasing: raw[heldStart..<heldStart + length]), context: self, out: out)
            }
            heldStart += length
        }
        if heldStart == held.count {
            held.removeAll(keepingCapacity: false)
            heldStart = 0
        }
        if !out.isEmpty { transport?.outputReady(self) }
        perform(life.heldLinesRan(allRan: held.isEmpty))
    }

    /// Lines (or WebSocket messages) this connection sent that reached the processor, oversized ones
    /// included: a parse error's `data.line` is the number of its line here.
    var linesRead = 0
    /// Wrong tokens given to `host.auth` so far.
    var authFailures = 0
    /// Set when `host.auth` succeeded mid-read: the message limit grows once the read is done.
    private var limitGrows = false

    func authenticated() {
        guard !isAuthenticated else { return }
        isAuthenticated = true
        owner.connectionAuthenticated()
        limitGrows = true
    }

    /// Refuses the connection: `error` is written as an id-null line after what is queued, no further
    /// line runs, and the connection is closed gracefully so the peer can read why.
    public func refuse(_ error: RPCError) {
        guard !isClosed else { return }
        out.writeErrorMessage(id: .null, error)
        dropInput()
        closeAfterReplies()
    }

    /// No further line runs (held ones included); what is queued is written, then the connection is
    /// closed gracefully.
    func closeAfterReplies() {
        perform(life.refuse())
    }

    /// Forgets a partial input line (counted in the host's input budget).
    private func dropInput() {
        owner.inputBuffered(-codec.bufferedCount)
        codec.discardInput()
    }

    /// Bytes of a partial input message held for this connection.
    public var bufferedInputBytes: Int { codec.bufferedCount }

    /// The peer sent EOF: no more requests. Lines already read are still run (held ones on resume);
    /// then the transport is asked to close (after writing what is queued).
    public func finishInput() {
        perform(life.peerFinished())
    }

    /// The reply to a line over the message limit (a smaller one before `host.auth`).
    private func oversized() {
        // A line too long to read still counts: the lines after it keep their numbers.
        linesRead += 1
        if isAuthenticated { processor.handleOversized(out: out); return }
        // Not `codec.maxMessageBytes`: this runs inside the codec's receive (exclusive access).
        let max = maxUnauthenticatedMessageBytes
        processor.counters.errors += 1
        out.writeErrorMessage(id: .null, RPCError(.invalidRequest,
            "Invalid request: message longer than \(max) bytes before host.auth",
            kind: "messageTooLarge", ["limit": "unauthenticatedMessageBytes", "max": .int(max)]))
    }

    /// Keeps a line that was read while paused, to run on `resume()`.
    private func hold(_ line: UnsafeRawBufferPointer?) {
        var length = Int32(line?.count ?? -1)
        withUnsafeBytes(of: &length) { held.append(contentsOf: $0) }
        if let line { held.append(contentsOf: line) }
    }

    /// Feeds received bytes: every complete line is handled, and its replies and events are appended
    /// to `out` in order. Complete lines inside the chunk are gathered and handled as one run (read
    /// ahead on the parser thread when the processor has one); a line reassembled from earlier chunks
    /// or an oversized one first flushes the run, so order is kept.
    public func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosed, bytes.baseAddress != nil else { return }
        readingLines { receiveLines(bytes) }
    }

    private func receiveLines(_ bytes: UnsafeRawBufferPointer) {
        guard let chunk = bytes.baseAddress else { return }
        func flush() {
            guard !run.isEmpty else { return }
            spill.withUnsafeBytes { spilled in
                runLines.removeAll(keepingCapacity: true)
                for line in run {
                    switch line {
                    case .chunk(let p): runLines.append(p)
                    case .spilled(let offset, let count): runLines.append(UnsafeRawBufferPointer(rebasing: spilled[offset..<offset + count]))
                    }
                }
                // Lines run in order; `ran` counts those let through, so a pause keeps the rest.
                var ran = 0
                runLines.withUnsafeBufferPointer { lines in
                    processor.handle(lines: lines, context: self, out: out) {
                        if stopsReading() { return true }
                        ran += 1
                        return false
                    }
                }
                if isPaused || isWaiting { for line in runLines[ran...] { hold(line) } }
            }
            run.removeAll(keepingCapacity: true)
            spill.removeAll(keepingCapacity: true)
        }
        let buffered = codec.bufferedCount
        var closing: CodecClose?
        codec.receive(bytes, out: out) { event in
            if let recording, case .message(let line) = event { recording.received(line) }
            switch event {
            case .message(let line) where isPaused || isWaiting:
                hold(line)
            case .oversized where isPaused || isWaiting:
                hold(nil)
            case .message(let line) where line.baseAddress! >= chunk && line.baseAddress! < chunk + bytes.count:
                run.append(.chunk(line))
            case .message(let line):
                run.append(.spilled(offset: spill.count, count: line.count))
                spill.append(contentsOf: line)
            case .oversized:
                flush()
                if !stopsReading() { oversized() } else if isPaused || isWaiting { hold(nil) }
            case .opened(let withToken):
                owner.countUpgrade()
                if withToken { authenticated() }
            case .closing(let why):
                flush()
                closing = why
            }
        }
        flush()
        if limitGrows {
            limitGrows = false
            codec.maxMessageBytes = maxMessageBytes
        }
        if codec.bufferedCount != buffered { owner.inputBuffered(codec.bufferedCount - buffered) }
        if let closing {
            // The codec said its last word (a close frame, an HTTP response): write it, then close.
            owner.countCodecClose(closing)
            perform(life.refuse())
        }
        // `out` may have been written mid-read (stopsReading): what matters is whether any is left.
        if !out.isEmpty { transport?.outputReady(self) }
    }

    public func receive(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { receive($0) }
    }

    /// The host is shutting down: the codec says goodbye (a WebSocket close 1001, counted) after
    /// what is queued (the teardown's events included).
    public func goingAway() {
        guard let why = codec.goingAway(out: out) else { return }
        owner.countCodecClose(why)
        transport?.outputReady(self)
    }

    /// Writes a reply that was held back (`RPCProcessor.holdReply`): a result, or an error.
    func writeHeldReply(id: JSONValue, _ outcome: Result<JSONValue, RPCError>) {
        guard !isClosed else { return }
        let mark = out.beginMessage()
        switch outcome {
        case .success(let result): out.writeResult(id: id, result)
        case .failure(let error): out.writeError(id: id, error)
        }
        out.endMessage(mark)
        transport?.outputReady(self)
    }

    /// Writes one notification (an event): `params` starts with `seq` and `t`.
    func send(topic: String, _ fields: JSONObject, now: Double, cause: JSONValue) {
        seq += 1
        var params = JSONObject()
        params.members.reserveCapacity(fields.count + 3)
        params.members.append((key: "seq", value: .int(seq)))
        params.members.append((key: "t", value: .double(now)))
        params.members.append((key: "cause", value: cause))
        params.members.append(contentsOf: fields.members)
        out.writeNotification(method: topic, params: .object(params))
        transport?.outputReady(self)
    }
}
