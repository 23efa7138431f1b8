import GreenroomJSON

/// A connection's outbound bytes, shared by replies and events so that events caused by a request are
/// written before its reply simply by being appended first.
public typealias OutboundBuffer = ByteBuffer

extension ByteBuffer {
    /// Appends one JSON text and its newline.
    public func writeLine(_ v: JSONValue) {
        JSONCodec.encode(v, into: self)
        append(0x0A)
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

    /// Appends one notification line: `{"jsonrpc":"2.0","method":TOPIC,"params":PARAMS}`.
    public func writeNotification(method: String, params: JSONValue) {
        append("{\"jsonrpc\":\"2.0\",\"method\":")
        JSONCodec.encode(.string(method), into: self)
        append(",\"params\":")
        JSONCodec.encode(params, into: self)
        append("}\n")
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
    public var registry: MethodRegistry<Context>
    public var limits: RPCLimits
    public var counters = RPCCounters()
    /// Consulted before dispatch; a thrown error is the reply (e.g. unauthenticated TCP clients).
    public var gate: ((Context, String) throws(RPCError) -> Void)?

    public init(registry: MethodRegistry<Context>, limits: RPCLimits = RPCLimits()) {
        self.registry = registry
        self.limits = limits
    }

    /// One message of a line (or one entry of a batch), validated.
    enum Incoming {
        /// `id` nil: a notification.
        case request(method: String, id: JSONValue?, params: JSONValue?)
        case invalid(id: JSONValue, RPCError)
    }

    enum Reply {
        case result(id: JSONValue, RPCResult)
        case error(id: JSONValue, RPCError)
    }

    /// Handles one framed line: a request, a notification or a batch.
    public func handle(line: UnsafeRawBufferPointer, context: Context, out: OutboundBuffer) {
        var entries: [Incoming] = []
        var isBatch = false
        var messageError: RPCError?
        do {
            try JSONCodec.parse(line, maxDepth: limits.maxDepth) { root in
                guard root.kind == .array else {
                    entries.append(Self.validate(root))
                    return
                }
                isBatch = true
                let n = root.count
                if n == 0 {
                    messageError = RPCError(.invalidRequest, "Invalid request: empty batch", kind: "emptyBatch")
                } else if n > limits.maxBatch {
                    messageError = RPCError(.invalidRequest,
                        "Invalid request: batch of \(n) entries exceeds the limit of \(limits.maxBatch)",
                        kind: "batchTooLarge", ["limit": "batch", "max": .int(limits.maxBatch), "actual": .int(n)])
                } else {
                    entries.reserveCapacity(n)
                    for i in 0..<n { entries.append(Self.validate(root.element(i))) }
                }
            }
        } catch {
            switch error {
            case .syntax(let text, let line, let column, let position):
                messageError = RPCError(.parseError, "Parse error: \(text)",
                    ["line": .int(line), "column": .int(column), "position": .int(position)])
            case .tooDeep(let limit):
                messageError = RPCError(.invalidRequest, "Invalid request: JSON nested deeper than \(limit)",
                    kind: "tooDeep", ["limit": "depth", "max": .int(limit)])
            }
        }
        if let messageError {
            counters.errors += 1
            if isBatch { counters.batches += 1 }
            out.writeError(id: .null, messageError)
            out.append(0x0A)
            return
        }
        if !isBatch {
            if let reply = run(entries[0], context: context) {
                write(reply, into: out)
                out.append(0x0A)
            }
            return
        }
        counters.batches += 1
        // Events caused by entries go straight to `out`; the replies are gathered and written after
        // them as one array.
        let replies = ByteBuffer(capacity: 256 * entries.count)
        for entry in entries {
            guard let reply = run(entry, context: context) else { continue }
            replies.append(replies.isEmpty ? 0x5B : 0x2C)
            write(reply, into: replies)
        }
        if !replies.isEmpty {
            replies.append("]\n")
            out.append(replies)
        }
    }

    /// The reply to a line longer than the message limit.
    public func handleOversized(out: OutboundBuffer) {
        counters.errors += 1
        out.writeError(id: .null, RPCError(.invalidRequest,
            "Invalid request: message longer than \(limits.maxMessageBytes) bytes",
            kind: "messageTooLarge", ["limit": "messageBytes", "max": .int(limits.maxMessageBytes)]))
        out.append(0x0A)
    }

    private func write(_ reply: Reply, into buffer: ByteBuffer) {
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

    /// Dispatches one validated message; nil for a notification.
    func run(_ incoming: Incoming, context: Context) -> Reply? {
        switch incoming {
        case .invalid(let id, let error):
            counters.errors += 1
            return .error(id: id, error)
        case .request(let method, let id, let params):
            if id == nil { counters.notifications += 1 } else { counters.requests += 1 }
            let result: Result<RPCResult, RPCError>
            do throws(RPCError) {
                if let gate { try gate(context, method) }
                guard let spec = registry[method] else {
                    throw RPCError(.methodNotFound, "Method not found: \(method)", ["method": .string(method)])
                }
                result = .success(try spec.run(context, try spec.normalise(params)))
            } catch {
                result = .failure(error)
            }
            guard let id else { return nil }
            switch result {
            case .success(let value): return .result(id: id, value)
            case .failure(let error):
                counters.errors += 1
                return .error(id: id, error)
            }
        }
    }
}
