import GreenroomJSON

/// One method: its wire name, its parameter names (for positional params and for rejecting unknown
/// members), and its handler. Adding a method = one `MethodSpec` + one registry line + schema + fixture.
public struct MethodSpec<Context> {
    public typealias Handler = (Context, Params) throws(RPCError) -> JSONValue
    /// For hot methods whose result is usually the same bytes (a scroll stream's reply): the handler
    /// returns a result Jansson encoded earlier, and the processor copies it.
    public typealias EncodedHandler = (Context, Params) throws(RPCError) -> EncodedJSON
    /// For methods whose calls may wait (a container hook in a plugin worker, a scripted cost): it runs in
    /// the task of a line the pipeline took (`CallPipeline.takes`), and every wait is an `await`.
    public typealias WaitingHandler = (Context, Params) async throws(RPCError) -> JSONValue

    public let name: String
    /// Declared parameter names in positional order; nil accepts any object.
    public let params: [String]?
    private let run: ((Context, Params) throws(RPCError) -> RPCResult)?
    private let runWaiting: ((Context, Params) async throws(RPCError) -> RPCResult)?
    /// Whether its calls may wait: they run only in a line the pipeline took (unless `canRunNow` and the
    /// host knows the call cannot wait).
    public var mayWait: Bool { runWaiting != nil }
    /// Whether it has a synchronous handler: a method whose calls may wait can have one too, for the calls
    /// the host knows cannot wait (a scroll step on a session with no cells), which then run with no task.
    public var canRunNow: Bool { run != nil }

    public init(_ name: String, params: [String]? = [], _ handler: @escaping Handler) {
        self.name = name
        self.params = params
        self.run = { (c: Context, p: Params) throws(RPCError) -> RPCResult in .value(try handler(c, p)) }
        self.runWaiting = nil
    }

    public init(_ name: String, params: [String]? = [], encoded handler: @escaping EncodedHandler) {
        self.name = name
        self.params = params
        self.run = { (c: Context, p: Params) throws(RPCError) -> RPCResult in .encoded(try handler(c, p)) }
        self.runWaiting = nil
    }

    public init(_ name: String, params: [String]? = [], mayWait handler: @escaping WaitingHandler) {
        self.name = name
        self.params = params
        self.run = nil
        self.runWaiting = { (c: Context, p: Params) async throws(RPCError) -> RPCResult in .value(try await handler(c, p)) }
    }

    public init(_ name: String, params: [String]? = [],
                mayWaitEncoded handler: @escaping (Context, Params) async throws(RPCError) -> EncodedJSON) {
        self.name = name
        self.params = params
        self.run = nil
        self.runWaiting = { (c: Context, p: Params) async throws(RPCError) -> RPCResult in .encoded(try await handler(c, p)) }
    }

    /// A method whose calls may wait (`waiting`), with `now` for the calls that the host knows cannot.
    public init(_ name: String, params: [String]? = [], encoded now: @escaping EncodedHandler,
                mayWaitEncoded waiting: @escaping (Context, Params) async throws(RPCError) -> EncodedJSON) {
        self.name = name
        self.params = params
        self.run = { (c: Context, p: Params) throws(RPCError) -> RPCResult in .encoded(try now(c, p)) }
        self.runWaiting = { (c: Context, p: Params) async throws(RPCError) -> RPCResult in .encoded(try await waiting(c, p)) }
    }

    /// Runs the handler where the line was read. A method whose calls may wait runs only in a line the
    /// pipeline took: here it is an internal error (the pipeline failed to take its line).
    public func call(_ c: Context, _ p: Params) throws(RPCError) -> RPCResult {
        guard let run else {
            throw RPCError(.internalError, "Internal error: \(name) may wait, and its line was not taken to run in a task",
                           ["method": .string(name)])
        }
        return try run(c, p)
    }

    /// Runs the handler in the task of a line the pipeline took.
    public func callTaken(_ c: Context, _ p: Params) async throws(RPCError) -> RPCResult {
        if let runWaiting { return try await runWaiting(c, p) }
        return try call(c, p)
    }

    /// Maps raw params (absent, object or array) onto a `Params` object, rejecting unknown members
    /// and surplus positional values with -32602.
    public func normalise(_ raw: JSONValue?) throws(RPCError) -> Params {
        switch raw {
        case nil, .null?:
            return Params()
        case .object(let o)?:
            if let declared = params {
                for member in o.members where !declared.contains(member.key) {
                    let known = declared.isEmpty ? "takes no params" : "known: \(declared.joined(separator: ", "))"
                    throw .invalidParams(path: member.key, "unknown member (\(name) \(known))")
                }
            }
            return Params(o, raw: .object(o))
        case .array(let a)?:
            guard let declared = params else { return Params([:], raw: .array(a)) }
            guard a.count <= declared.count else {
                throw .invalidParams(path: "params[\(declared.count)]", "\(name) takes at most \(declared.count) positional params")
            }
            // By position, null stands for an absent param (so that a later one can be given).
            return Params(JSONObject(zip(declared, a).filter { !$0.1.isNull }.map { (key: $0.0, value: $0.1) }))
        default:
            throw .invalidParams(path: "params", "expected object or array")
        }
    }
}

/// A JSON text Jansson encoded earlier (compact, no newline), reused as a result.
public struct EncodedJSON: Equatable, Sendable {
    public let bytes: [UInt8]
    public init(_ value: JSONValue) { bytes = JSONCodec.encode(value) }
}

/// What a handler produced.
public enum RPCResult {
    case value(JSONValue)
    case encoded(EncodedJSON)

    /// The result as a value (an encoded one is decoded back).
    public var value: JSONValue {
        switch self {
        case .value(let v): return v
        case .encoded(let e): return (try? JSONCodec.decode(e.bytes)) ?? .null
        }
    }
}

/// Every method the host answers, by name.
public struct MethodRegistry<Context> {
    private var methods: [String: MethodSpec<Context>] = [:]
    public init() {}

    public mutating func register(_ spec: MethodSpec<Context>) {
        precondition(methods[spec.name] == nil, "method \(spec.name) registered twice")
        methods[spec.name] = spec
    }

    /// Registers method `M` with its handler, which gets the decoded params.
    public mutating func register<M: RPCMethod>(_ method: M.Type,
                                                _ handler: @escaping (Context, M.Params) throws(RPCError) -> JSONValue) {
        register(MethodSpec(M.name, params: M.Params.names) { (c: Context, p: Params) throws(RPCError) -> JSONValue in
            try handler(c, try M.Params.decode(p))
        })
    }

    /// Registers method `M` with a handler whose calls may wait (`MethodSpec.WaitingHandler`): a handler
    /// that awaits is one (the overload a closure with no `await` in it never picks).
    @_disfavoredOverload
    public mutating func register<M: RPCMethod>(_ method: M.Type,
                                                _ handler: @escaping (Context, M.Params) async throws(RPCError) -> JSONValue) {
        register(MethodSpec(M.name, params: M.Params.names, mayWait: { (c: Context, p: Params) async throws(RPCError) -> JSONValue in
            try await handler(c, try M.Params.decode(p))
        }))
    }

    /// Registers method `M` with a handler whose result is JSON encoded earlier (a hot method's reply that
    /// is usually the same bytes).
    public mutating func register<M: RPCMethod>(_ method: M.Type,
                                                encoded handler: @escaping (Context, M.Params) throws(RPCError) -> EncodedJSON) {
        register(MethodSpec(M.name, params: M.Params.names, encoded: { (c: Context, p: Params) throws(RPCError) -> EncodedJSON in
            try handler(c, try M.Params.decode(p))
        }))
    }

    /// `register(_:encoded:)` for a handler whose calls may wait.
    @_disfavoredOverload
    public mutating func register<M: RPCMethod>(_ method: M.Type,
                                                encoded handler: @escaping (Context, M.Params) async throws(RPCError) -> EncodedJSON) {
        register(MethodSpec(M.name, params: M.Params.names, mayWaitEncoded: { (c: Context, p: Params) async throws(RPCError) -> EncodedJSON in
            try await handler(c, try M.Params.decode(p))
        }))
    }

    /// `register(_:encoded:)` for a method whose calls may wait (`waiting`) unless the host knows they
    /// cannot: those run `now`, where they are read, with no task (`MethodSpec.canRunNow`).
    public mutating func register<M: RPCMethod>(_ method: M.Type,
                                                encoded now: @escaping (Context, M.Params) throws(RPCError) -> EncodedJSON,
                                                waiting: @escaping (Context, M.Params) async throws(RPCError) -> EncodedJSON) {
        register(MethodSpec(M.name, params: M.Params.names, encoded: { (c: Context, p: Params) throws(RPCError) -> EncodedJSON in
            try now(c, try M.Params.decode(p))
        }, mayWaitEncoded: { (c: Context, p: Params) async throws(RPCError) -> EncodedJSON in
            try await waiting(c, try M.Params.decode(p))
        }))
    }

    public subscript(name: String) -> MethodSpec<Context>? { methods[name] }
    public var names: [String] { methods.keys.sorted() }
}
