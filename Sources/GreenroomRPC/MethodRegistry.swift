import GreenroomJSON

/// One method: its wire name, its parameter names (for positional params and for rejecting unknown
/// members), and its handler. Adding a method = one `MethodSpec` + one registry line + schema + fixture.
public struct MethodSpec<Context> {
    public typealias Handler = (Context, Params) throws(RPCError) -> JSONValue
    /// For hot methods whose result is usually the same bytes (a scroll stream's reply): the handler
    /// returns a result Jansson encoded earlier, and the processor copies it.
    public typealias EncodedHandler = (Context, Params) throws(RPCError) -> EncodedJSON

    public let name: String
    /// Declared parameter names in positional order; nil accepts any object.
    public let params: [String]?
    let run: (Context, Params) throws(RPCError) -> RPCResult

    public init(_ name: String, params: [String]? = [], _ handler: @escaping Handler) {
        self.name = name
        self.params = params
        self.run = { (c: Context, p: Params) throws(RPCError) -> RPCResult in .value(try handler(c, p)) }
    }

    public init(_ name: String, params: [String]? = [], encoded handler: @escaping EncodedHandler) {
        self.name = name
        self.params = params
        self.run = { (c: Context, p: Params) throws(RPCError) -> RPCResult in .encoded(try handler(c, p)) }
    }

    /// Runs the handler.
    public func call(_ c: Context, _ p: Params) throws(RPCError) -> RPCResult {
        try run(c, p)
    }

    /// Runs the handler and returns its result as a value (encoded results are decoded back).
    public func handler(_ c: Context, _ p: Params) throws(RPCError) -> JSONValue {
        try run(c, p).value
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

    /// Registers method `M` with a handler whose result is JSON encoded earlier (a hot method's reply that
    /// is usually the same bytes).
    public mutating func register<M: RPCMethod>(_ method: M.Type,
                                                encoded handler: @escaping (Context, M.Params) throws(RPCError) -> EncodedJSON) {
        register(MethodSpec(M.name, params: M.Params.names, encoded: { (c: Context, p: Params) throws(RPCError) -> EncodedJSON in
            try handler(c, try M.Params.decode(p))
        }))
    }

    public subscript(name: String) -> MethodSpec<Context>? { methods[name] }
    public var names: [String] { methods.keys.sorted() }
}
