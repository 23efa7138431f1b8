import GreenroomJSON

/// A connection's outbound bytes, shared by replies and events so that events caused by a request are
/// written before its reply simply by being appended first.
public typealias OutboundBuffer = ByteBuffer

extension ByteBuffer {
    /// Appends one JSON text as a whole message.
    public func writeMessage(_ v: JSONValue) {
        let mark = beginMessage()
        JSONCodec.encode(v, into: self)
        endMessage(mark)
    }

    /// Appends `{"jsonrpc":"2.0","id":ID,"result":RESULT}` (no newline). The envelope is fixed text;
    /// the id and result are encoded by Jansson.
    public func writeResult(id: JSONValue, _ result: JSONValue) {
        append("{\"jsonrpc\":\"2.0\",\"id\":")
        JSONCodec.encode(id, into: self)
        append(",\"result\":")
        JSONCodec.encode(result, into: self)
        append(0x7D)
    }

    public func writeResult(id: JSONValue, encoded result: EncodedJSON) {
        append("{\"jsonrpc\":\"2.0\",\"id\":")
        JSONCodec.encode(id, into: self)
        append(",\"result\":")
        append(result.bytes)
        append(0x7D)
    }

    public func writeError(id: JSONValue, _ error: RPCError) {
        append("{\"jsonrpc\":\"2.0\",\"id\":")
        JSONCodec.encode(id, into: self)
        append(",\"error\":")
        JSONCodec.encode(error.json, into: self)
        append(0x7D)
    }

    /// Appends one notification as a whole message: `{"jsonrpc":"2.0","method":TOPIC,"params":PARAMS}`.
    public func writeNotification(method: String, params: JSONValue) {
        let mark = beginMessage()
        append("{\"jsonrpc\":\"2.0\",\"method\":")
        JSONCodec.encode(.string(method), into: self)
        append(",\"params\":")
        JSONCodec.encode(params, into: self)
        append(0x7D)
        endMessage(mark)
    }

    /// Appends an error reply as a whole message.
    public func writeErrorMessage(id: JSONValue, _ error: RPCError) {
        let mark = beginMessage()
        writeError(id: id, error)
        endMessage(mark)
    }
}

/// The steps around every handler, in the order a line meets them; the host builds its one pipeline in
/// one place (`HostPipeline`).
public protocol CallPipeline<Context>: AnyObject {
    associatedtype Context
    /// Whether the line is taken to run later (`RPCProcessor.dispatchNow`): a call that may wait on
    /// another process waits its turn in the host's call lane.
    func takes(_ read: RPCProcessor<Context>.ReadLine, from context: Context) -> Bool
    /// Counts a line the connection sent and returns its number there (1 for its first line, or first
    /// WebSocket message): a parse error names it, so a client finds the line that was not JSON.
    func lineNumber(of context: Context) -> Int
    /// Refuses a call before its method is looked up (a thrown error is the reply: an unauthenticated
    /// TCP client's call, say).
    func admit(_ context: Context, method: String) throws(RPCError)
    /// Runs an admitted call whose params were checked: the method's handler (`spec.call`), and what
    /// the host adds around it (the failures it caused, a virtual-clock note).
    func run(_ spec: MethodSpec<Context>, _ context: Context, _ params: Params) throws(RPCError) -> RPCResult
    /// `run` for a line the pipeline took (`takes`), in the task it runs in: its handler may wait.
    func run(_ spec: MethodSpec<Context>, _ context: Context, _ params: Params) async throws(RPCError) -> RPCResult
}

/// The call being run, as a value of its own: its id, method and context, whether it runs in a batch and
/// whether its reply is held. A call that runs in a task (one that may wait) has it bound as a task-local
/// for as long as its handler runs, so it keeps its own while others run, and nothing it sets here is seen
/// by another call. A call run where it is read, with no task, cannot be suspended: the processor keeps it
/// for exactly as long as its handler runs (`RPCProcessor.callRunNow`), which costs no allocation.
/// `@unchecked Sendable` because a task-local's value must be: it is made and used on the host's loop
/// thread only.
public final class RPCCall: @unchecked Sendable {
    @TaskLocal public static var current: RPCCall?
    /// Nil for a notification.
    public let id: JSONValue?
    public let method: String
    /// The processor's context (its `Context`).
    let context: Any
    /// True for an entry of a batch (its reply goes out with the batch's, so it cannot be held back).
    public let isInBatch: Bool
    /// Set by a handler that answers later (`RPCProcessor.holdReply`): the call's result goes to it
    /// instead of out.
    fileprivate var heldReply: ((RPCResult) -> Void)?

    init(id: JSONValue?, method: String, context: Any, isInBatch: Bool) {
        self.id = id
        self.method = method
        self.context = context
        self.isInBatch = isInBatch
    }
}

/// Message-level limits.
public struct RPCLimits: Sendable, Equatable {
    public var maxMessageBytes = 1 << 20
    public var maxBatch = 256
    public var maxDepth = 64
    public init() {}
}

/// Counters the host reports in `host.stats`.
public struct RPCCounters: Sendable {
    public var requests = 0
    public var notifications = 0
    public var errors = 0
    public var batches = 0
    public init() {}
}

/// JSON-RPC 2.0 exactly: validates each message, dispatches it through the registry and writes the
/// replies. Transport-agnostic: it sees lines of bytes and an `OutboundBuffer`, never a socket. A class:
/// handlers may read its counters while it dispatches.
///
/// The envelope (jsonrpc, id, method) is read from the borrowed Jansson tree; only `id` and `params`
/// become Swift values, and the tree is released before any handler runs.
public final class RPCProcessor<Context> {
    public var registry: MethodRegistry<Context> { didSet { lastSpec = nil } }
    public var limits: RPCLimits
    public var counters = RPCCounters()
    /// The steps every line and call goes through around its handler (`CallPipeline`); nil runs each
    /// call's handler as it is (tests of the processor alone).
    public var pipeline: (any CallPipeline<Context>)?
    /// The call whose handler runs now with no task (`run`): code in a task never sees it, so a task run
    /// meanwhile (a host with no loop runs its lane where work is queued) sees only its own call.
    private var callRunNow: RPCCall?
    /// The call being run: in a task, the task's; otherwise the one run now.
    private var call: RPCCall? {
        if let call = RPCCall.current { return call }
        return withUnsafeCurrentTask(body: { $0 == nil }) ? callRunNow : nil
    }
    /// The call being run (nil between calls). What a call causes (the host's events) names it.
    public var currentCall: (id: JSONValue?, method: String, context: Context)? {
        guard let call, let context = call.context as? Context else { return nil }
        return (call.id, call.method, context)
    }
    /// True when the call being run asked for its reply to be held (`holdReply`).
    public var isHoldingReply: Bool { call?.heldReply != nil }
    /// True while a batch's entries run.
    public var isInBatch: Bool { call?.isInBatch ?? false }

    /// The last method looked up: a stream of calls names the same one line after line.
    private var lastSpec: MethodSpec<Context>?
    /// The method called `name` (each line's is asked for more than once: by the pipeline, then here).
    public func spec(_ name: String) -> MethodSpec<Context>? {
        if let lastSpec, lastSpec.name == name { return lastSpec }
        lastSpec = registry[name]
        return lastSpec
    }

    /// Asks that the call being run be answered later: when it succeeds, its result is given to `receive`
    /// instead of written, and the caller writes the reply when it is due (a reply after an animation
    /// ends). A failure is answered at once, as always. False (nothing held) for a notification, which gets
    /// no reply, and for a batch entry, whose reply goes out with the batch's.
    public func holdReply(_ receive: @escaping (RPCResult) -> Void) -> Bool {
        guard let call, call.id != nil, !call.isInBatch else { return false }
        call.heldReply = receive
        return true
    }

    public init(registry: MethodRegistry<Context>, limits: RPCLimits = RPCLimits()) {
        self.registry = registry
        self.limits = limits
    }

    /// One message of a line (or one entry of a batch), validated.
    public enum Incoming {
        /// `id` nil: a notification.
        case request(method: String, id: JSONValue?, params: JSONValue?)
        case invalid(id: JSONValue, RPCError)
    }

    enum Reply {
        case result(id: JSONValue, RPCResult)
        case error(id: JSONValue, RPCError)
    }

    /// One line, read and validated but not yet run: what the loop dispatches. Made by `read`, which
    /// touches no host state, so it may run on the parser thread.
    public enum ReadLine {
        case single(Incoming)
        case batch([Incoming])
        /// The whole line failed (not JSON, too deep, an empty or oversized batch).
        case failed(RPCError, isBatch: Bool)
    }

    /// Handles one framed line: a request, a notification or a batch.
    public func handle(line: UnsafeRawBufferPointer, context: Context, out: OutboundBuffer) {
        dispatch(Self.read(line, limits: limits), context: context, out: out)
    }

    /// Handles complete lines in order. Long runs are read with the parser thread's help when one is
    /// running; `isClosed` is asked before each line is dispatched (lines after a close are dropped).
    public func handle(lines: UnsafeBufferPointer<UnsafeRawBufferPointer>, context: Context, out: OutboundBuffer,
                       isClosed: () -> Bool) {
        guard let ahead, lines.count >= aheadMinimum else {
            for line in lines {
                if isClosed() { return }
                handle(line: line, context: context, out: out)
            }
            return
        }
        var start = 0
        while start < lines.count {
            let end = min(lines.count, start + AheadParser<ReadLine>.maxJob)
            ahead.run(UnsafeBufferPointer(rebasing: lines[start..<end])) { read in
                if !isClosed() { dispatch(read, context: context, out: out) }
            }
            start = end
        }
    }

    /// Parses and validates one line (no handler runs, no counter changes: safe on any thread).
    public static func read(_ line: UnsafeRawBufferPointer, limits: RPCLimits) -> ReadLine {
        do {
            return try JSONCodec.parse(line, maxDepth: limits.maxDepth) { root -> ReadLine in
                guard root.kind == .array else { return .single(validate(root)) }
                let n = root.count
                if n == 0 {
                    return .failed(RPCError(.invalidRequest, "Invalid request: empty batch", kind: "emptyBatch"), isBatch: true)
                }
                if n > limits.maxBatch {
                    return .failed(RPCError(.invalidRequest,
                        "Invalid request: batch of \(n) entries exceeds the limit of \(limits.maxBatch)",
                        kind: "batchTooLarge", ["limit": "batch", "max": .int(limits.maxBatch), "actual": .int(n)]), isBatch: true)
                }
                var entries: [Incoming] = []
                entries.reserveCapacity(n)
                for i in 0..<n { entries.append(validate(root.element(i))) }
                return .batch(entries)
            }
        } catch {
            switch error {
            case .syntax(let text, let line, let column, let position):
                let place: JSONObject = ["line": .int(line), "column": .int(column), "position": .int(position)]
                if text.hasPrefix("too big") {
                    // Jansson reads integers as 64-bit: a longer one is this parser's limit (RFC 8259 §6
                    // lets a parser set one), said plainly.
                    return .failed(RPCError(.parseError, "Parse error: \(text); integers must fit in 64 bits (signed)",
                                            kind: "numberOutOfRange", place), isBatch: false)
                }
                return .failed(RPCError(.parseError, "Parse error: \(text)", place), isBatch: false)
            case .tooDeep(let limit):
                return .failed(RPCError(.invalidRequest, "Invalid request: JSON nested deeper than \(limit)",
                    kind: "tooDeep", ["limit": "depth", "max": .int(limit)]), isBatch: false)
            }
        }
    }

    /// Runs a read line and writes its reply (or batch of replies) after the events it caused, unless
    /// the pipeline takes it to run later.
    @inline(__always)
    func dispatch(_ read: ReadLine, context: Context, out: OutboundBuffer) {
        guard let pipeline else { return dispatchNow(read, context: context, out: out) }
        let line = pipeline.lineNumber(of: context)
        if case .failed(var error, let isBatch) = read, error.code == .parseError {
            // The parser saw one line alone: where it is in the connection is counted here.
            error.data["line"] = .int(line)
            return dispatchNow(.failed(error, isBatch: isBatch), context: context, out: out)
        }
        if pipeline.takes(read, from: context) { return }
        dispatchNow(read, context: context, out: out)
    }

    /// Runs a read line now: one the pipeline did not take, whose calls never wait.
    public func dispatchNow(_ read: ReadLine, context: Context, out: OutboundBuffer) {
        switch read {
        case .failed(let error, let isBatch):
            failed(error, isBatch: isBatch, out: out)
        case .single(let entry):
            write(run(entry, context: context, inBatch: false), to: out)
        case .batch(let entries):
            counters.batches += 1
            let replies = BatchReplies(count: entries.count)
            for entry in entries { replies.add(run(entry, context: context, inBatch: true), self) }
            replies.write(to: out)
        }
    }

    /// Runs a read line that the pipeline took (`CallPipeline.takes`), in the task it runs in: its calls
    /// may wait.
    public func dispatchTaken(_ read: ReadLine, context: Context, out: OutboundBuffer) async {
        switch read {
        case .failed(let error, let isBatch):
            failed(error, isBatch: isBatch, out: out)
        case .single(let entry):
            write(await runTaken(entry, context: context, inBatch: false), to: out)
        case .batch(let entries):
            counters.batches += 1
            let replies = BatchReplies(count: entries.count)
            for entry in entries { replies.add(await runTaken(entry, context: context, inBatch: true), self) }
            replies.write(to: out)
        }
    }

    /// Answers every request of a line with `error` instead of running it (the pipeline refused it: a
    /// limit), as a batch when the line is one.
    public func refuse(_ read: ReadLine, with error: RPCError, out: OutboundBuffer) {
        func refusal(_ entry: Incoming) -> Reply? {
            counters.errors += 1
            switch entry {
            case .invalid(let id, let e): return .error(id: id, e)
            case .request(_, let id, _):
                if id == nil { counters.notifications += 1 } else { counters.requests += 1 }
                return id.map { .error(id: $0, error) }
            }
        }
        switch read {
        case .failed(let e, let isBatch):
            failed(e, isBatch: isBatch, out: out)
        case .single(let entry):
            write(refusal(entry), to: out)
        case .batch(let entries):
            counters.batches += 1
            let replies = BatchReplies(count: entries.count)
            for entry in entries { replies.add(refusal(entry), self) }
            replies.write(to: out)
        }
    }

    private func failed(_ error: RPCError, isBatch: Bool, out: OutboundBuffer) {
        counters.errors += 1
        if isBatch { counters.batches += 1 }
        out.writeErrorMessage(id: .null, error)
    }

    private func write(_ reply: Reply?, to out: OutboundBuffer) {
        guard let reply else { return }
        let mark = out.beginMessage()
        write(reply, into: out)
        out.endMessage(mark)
    }

    /// A batch's replies, gathered and written after the events its entries caused, as one array.
    private final class BatchReplies {
        let buffer: ByteBuffer
        init(count: Int) { buffer = ByteBuffer(capacity: 256 * count) }
        func add(_ reply: Reply?, _ processor: RPCProcessor) {
            guard let reply else { return }
            buffer.append(buffer.isEmpty ? 0x5B : 0x2C)
            processor.write(reply, into: buffer)
        }
        func write(to out: OutboundBuffer) {
            guard !buffer.isEmpty else { return }
            buffer.append(0x5D)
            let mark = out.beginMessage()
            out.append(buffer)
            out.endMessage(mark)
        }
    }

    // MARK: Reading ahead

    /// The parser thread, when started.
    public private(set) var ahead: AheadParser<ReadLine>?
    /// Runs shorter than this are read inline (waking the parser costs more than it saves).
    public var aheadMinimum = 8

    /// Starts a thread that reads pipelined lines ahead of the loop (see `AheadParser`).
    public func startReadingAhead() {
        guard ahead == nil else { return }
        let limits = self.limits
        let parser = AheadParser<ReadLine> { Self.read($0, limits: limits) }
        if parser.isRunning { ahead = parser }
    }

    public func stopReadingAhead() {
        ahead?.stop()
        ahead = nil
    }

    /// The reply to a line longer than the message limit.
    public func handleOversized(out: OutboundBuffer) {
        counters.errors += 1
        out.writeErrorMessage(id: .null, RPCError(.invalidRequest,
            "Invalid request: message longer than \(limits.maxMessageBytes) bytes",
            kind: "messageTooLarge", ["limit": "messageBytes", "max": .int(limits.maxMessageBytes)]))
    }

    fileprivate func write(_ reply: Reply, into buffer: ByteBuffer) {
        switch reply {
        case .result(let id, .value(let value)): buffer.writeResult(id: id, value)
        case .result(let id, .encoded(let e)): buffer.writeResult(id: id, encoded: e)
        case .error(let id, let error): buffer.writeError(id: id, error)
        }
    }

    /// Checks one message against the Request object's rules, reading the borrowed tree.
    static func validate(_ node: JSONNode) -> Incoming {
        guard node.kind == .object else {
            return .invalid(id: .null, RPCError(.invalidRequest, "Invalid request: expected an object, got \(node.typeName)", ["path": ""]))
        }
        // The id is echoed only when it is a valid id; otherwise the reply's id is null.
        let idNode = node.member("id")
        var id: JSONValue?
        var idValid = true
        if let idNode {
            switch idNode.kind {
            case .string, .integer, .real, .null: id = idNode.value
            default: idValid = false
            }
        }
        let replyID = id ?? .null
        func invalid(_ reason: String, _ path: String) -> Incoming {
            .invalid(id: replyID, RPCError(.invalidRequest, "Invalid request: \(reason)", ["path": .string(path)]))
        }
        guard node.member("jsonrpc")?.isString("2.0") == true else { return invalid("\"jsonrpc\" must be \"2.0\"", "jsonrpc") }
        guard idValid else { return invalid("\"id\" must be a string, number or null", "id") }
        guard let method = node.member("method")?.string else { return invalid("\"method\" must be a string", "method") }
        var params: JSONValue?
        if let p = node.member("params") {
            guard p.kind == .object || p.kind == .array else { return invalid("\"params\" must be an object or an array", "params") }
            params = p.value
        }
        return .request(method: method, id: id, params: params)
    }

    /// A validated message ready for its handler, or the reply it already has (nil: none).
    private enum Prepared {
        case done(Reply?)
        case call(MethodSpec<Context>, Params, RPCCall)
    }

    /// Counts the message, admits it, finds its method and checks its params.
    private func prepare(_ incoming: Incoming, context: Context, inBatch: Bool) -> Prepared {
        switch incoming {
        case .invalid(let id, let error):
            counters.errors += 1
            return .done(.error(id: id, error))
        case .request(let method, let id, let params):
            if id == nil { counters.notifications += 1 } else { counters.requests += 1 }
            let call = RPCCall(id: id, method: method, context: context, isInBatch: inBatch)
            do throws(RPCError) {
                if let pipeline { try pipeline.admit(context, method: method) }
                guard let spec = spec(method) else {
                    throw RPCError(.methodNotFound, "Method not found: \(method)", ["method": .string(method)])
                }
                return .call(spec, try spec.normalise(params), call)
            } catch {
                return .done(finish(.failure(error), call))
            }
        }
    }

    /// The reply to a call that ran (nil for a notification, or a reply that is held).
    private func finish(_ result: Result<RPCResult, RPCError>, _ call: RPCCall) -> Reply? {
        guard let id = call.id else {
            // A notification gets no reply, but its failure still counts.
            if case .failure = result { counters.errors += 1 }
            return nil
        }
        switch result {
        case .success(let value):
            if let held = call.heldReply {
                held(value)
                return nil
            }
            return .result(id: id, value)
        case .failure(let error):
            counters.errors += 1
            return .error(id: id, error)
        }
    }

    /// Dispatches one validated message of a line run now; nil for a notification.
    func run(_ incoming: Incoming, context: Context, inBatch: Bool) -> Reply? {
        switch prepare(incoming, context: context, inBatch: inBatch) {
        case .done(let reply):
            return reply
        case .call(let spec, let params, let call):
            func handle() -> Result<RPCResult, RPCError> {
                Result { () throws(RPCError) -> RPCResult in
                    if let pipeline { return try pipeline.run(spec, context, params) }
                    return try spec.call(context, params)
                }
            }
            // In a task (a line run after the lane's line, in its task) the call is the task's own; outside
            // one, nothing can suspend it, and it is kept in `callRunNow` (nested when a handler runs
            // another line: a lane item that a host with no loop runs where it is queued).
            if !withUnsafeCurrentTask(body: { $0 == nil }) { return finish(RPCCall.$current.withValue(call, operation: handle), call) }
            let outer = callRunNow
            callRunNow = call
            let result = handle()
            callRunNow = outer
            return finish(result, call)
        }
    }

    /// Dispatches one validated message of a line the pipeline took; nil for a notification.
    func runTaken(_ incoming: Incoming, context: Context, inBatch: Bool) async -> Reply? {
        switch prepare(incoming, context: context, inBatch: inBatch) {
        case .done(let reply):
            return reply
        case .call(let spec, let params, let call):
            let result = await RPCCall.$current.withValue(call) {
                let outcome: Result<RPCResult, RPCError>
                do throws(RPCError) {
                    if let pipeline { outcome = .success(try await pipeline.run(spec, context, params)) }
                    else { outcome = .success(try await spec.callTaken(context, params)) }
                } catch {
                    outcome = .failure(error)
                }
                return outcome
            }
            return finish(result, call)
        }
    }
}
