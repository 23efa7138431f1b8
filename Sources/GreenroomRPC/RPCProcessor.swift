import GreenroomJSON

/// A connection's outbound bytes, shared by replies and events so that events caused by a request are
/// written before its reply simply by being appended first.
public final class OutboundBuffer {
    public var bytes: [UInt8] = []
    public init() {}
    public var isEmpty: Bool { bytes.isEmpty }

    /// Appends one JSON text and its newline.
    public func write(_ v: JSONValue) {
        JSONCodec.encode(v, into: &bytes)
        bytes.append(0x0A)
    }

    public func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
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

    /// Handles one framed line.
    public func handle(line: UnsafeRawBufferPointer, context: Context, out: OutboundBuffer) {
        let message: JSONValue
        do {
            message = try JSONCodec.decode(line, maxDepth: limits.maxDepth)
        } catch {
            counters.errors += 1
            switch error {
            case .syntax(let text, let line, let column, let position):
                out.write(Self.errorReply(id: .null, RPCError(.parseError, "Parse error: \(text)",
                    ["line": .int(line), "column": .int(column), "position": .int(position)])))
            case .tooDeep(let limit):
                out.write(Self.errorReply(id: .null, RPCError(.invalidRequest, "Invalid request: JSON nested deeper than \(limit)",
                    kind: "tooDeep", ["limit": .string("depth"), "max": .int(limit)])))
            }
            return
        }
        switch message {
        case .array(let entries):
            counters.batches += 1
            if entries.isEmpty {
                counters.errors += 1
                out.write(Self.errorReply(id: .null, RPCError(.invalidRequest, "Invalid request: empty batch", kind: "emptyBatch")))
                return
            }
            if entries.count > limits.maxBatch {
                counters.errors += 1
                out.write(Self.errorReply(id: .null, RPCError(.invalidRequest,
                    "Invalid request: batch of \(entries.count) entries exceeds the limit of \(limits.maxBatch)",
                    kind: "batchTooLarge", ["limit": .string("batch"), "max": .int(limits.maxBatch), "actual": .int(entries.count)])))
                return
            }
            var replies: [JSONValue] = []
            for entry in entries {
                if let reply = handle(entry, context: context) { replies.append(reply) }
            }
            if !replies.isEmpty { out.write(.array(replies)) }
        default:
            if let reply = handle(message, context: context) { out.write(reply) }
        }
    }

    /// The reply to a line longer than the message limit.
    public func handleOversized(out: OutboundBuffer) {
        counters.errors += 1
        out.write(Self.errorReply(id: .null, RPCError(.invalidRequest,
            "Invalid request: message longer than \(limits.maxMessageBytes) bytes",
            kind: "messageTooLarge", ["limit": .string("messageBytes"), "max": .int(limits.maxMessageBytes)])))
    }

    /// Handles one request object; returns its reply, or nil for a notification.
    public func handle(_ message: JSONValue, context: Context) -> JSONValue? {
        guard case .object(let o) = message else {
            counters.errors += 1
            return Self.errorReply(id: .null, RPCError(.invalidRequest,
                "Invalid request: expected an object, got \(message.typeName)", ["path": ""]))
        }
        // The id is echoed only when it is a valid id; otherwise the reply's id is null.
        let rawID = o["id"]
        let idValid: Bool
        switch rawID {
        case nil, .null?, .string?, .int?, .double?: idValid = true
        default: idValid = false
        }
        let replyID = idValid ? (rawID ?? .null) : .null
        func invalid(_ reason: String, path: String) -> JSONValue {
            counters.errors += 1
            return Self.errorReply(id: replyID, RPCError(.invalidRequest, "Invalid request: \(reason)", ["path": .string(path)]))
        }
        guard o["jsonrpc"] == .string("2.0") else { return invalid("\"jsonrpc\" must be \"2.0\"", path: "jsonrpc") }
        guard idValid else { return invalid("\"id\" must be a string, number or null", path: "id") }
        guard case .string(let method)? = o["method"] else { return invalid("\"method\" must be a string", path: "method") }
        let params = o["params"]
        switch params {
        case nil, .object?, .array?: break
        default: return invalid("\"params\" must be an object or an array", path: "params")
        }
        let isNotification = rawID == nil
        if isNotification { counters.notifications += 1 } else { counters.requests += 1 }

        let result: Result<JSONValue, RPCError>
        do throws(RPCError) {
            if let gate { try gate(context, method) }
            guard let spec = registry[method] else {
                throw RPCError(.methodNotFound, "Method not found: \(method)", ["method": .string(method)])
            }
            let p = try spec.normalise(params)
            result = .success(try spec.handler(context, p))
        } catch {
            result = .failure(error)
        }
        if isNotification { return nil }
        switch result {
        case .success(let value):
            return .object(["jsonrpc": "2.0", "id": replyID, "result": value])
        case .failure(let error):
            counters.errors += 1
            return Self.errorReply(id: replyID, error)
        }
    }

    public static func errorReply(id: JSONValue, _ error: RPCError) -> JSONValue {
        .object(["jsonrpc": "2.0", "id": id, "error": error.json])
    }
}
