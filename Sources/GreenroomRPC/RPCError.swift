import GreenroomJSON

/// A JSON-RPC error code. An extensible struct rather than a closed enum, as sourcekit-lsp does:
/// Greenroom's own codes sit beside the standard ones.
public struct RPCErrorCode: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let parseError = RPCErrorCode(rawValue: -32700)
    public static let invalidRequest = RPCErrorCode(rawValue: -32600)
    public static let methodNotFound = RPCErrorCode(rawValue: -32601)
    public static let invalidParams = RPCErrorCode(rawValue: -32602)
    public static let internalError = RPCErrorCode(rawValue: -32603)
    public static let unknownClass = RPCErrorCode(rawValue: -32001)
    public static let unknownObject = RPCErrorCode(rawValue: -32002)
    public static let invalidState = RPCErrorCode(rawValue: -32003)
    public static let pluginFailed = RPCErrorCode(rawValue: -32004)
    public static let limitExceeded = RPCErrorCode(rawValue: -32005)
    public static let unauthorized = RPCErrorCode(rawValue: -32006)
    public static let virtualClockOnly = RPCErrorCode(rawValue: -32007)

    /// The `data.kind` every error of this code carries unless the thrower says otherwise.
    public var defaultKind: String {
        switch self {
        case .parseError: "parseError"
        case .invalidRequest: "invalidRequest"
        case .methodNotFound: "methodNotFound"
        case .invalidParams: "invalidParams"
        case .internalError: "internalError"
        case .unknownClass: "unknownClass"
        case .unknownObject: "unknownObject"
        case .invalidState: "invalidState"
        case .pluginFailed: "pluginFailed"
        case .limitExceeded: "limitExceeded"
        case .unauthorized: "unauthorized"
        case .virtualClockOnly: "virtualClockOnly"
        default: "error"
        }
    }
}

/// A JSON-RPC error as sent on the wire: every one carries `data.kind`, and `data` says what was wrong.
public struct RPCError: Error, Equatable, Sendable {
    public var code: RPCErrorCode
    public var message: String
    public var data: JSONObject

    public init(_ code: RPCErrorCode, _ message: String, kind: String? = nil, _ data: JSONObject = [:]) {
        self.code = code
        self.message = message
        var d: JSONObject = ["kind": .string(kind ?? code.defaultKind)]
        for m in data.members where m.key != "kind" { d[m.key] = m.value }
        self.data = d
    }

    public var json: JSONValue {
        ["code": .int(code.rawValue), "message": .string(message), "data": .object(data)]
    }

    /// -32602 naming the bad field by its path ("viewport.width", "lengths[3]").
    public static func invalidParams(path: String, _ reason: String) -> RPCError {
        RPCError(.invalidParams, "Invalid params: \(path): \(reason)", ["path": .string(path), "reason": .string(reason)])
    }

    public static func unknownObject(_ id: String, expected: String) -> RPCError {
        RPCError(.unknownObject, "No \(expected) with id \(id) on this connection", ["id": .string(id), "expected": .string(expected)])
    }

    public static func invalidState(_ message: String, _ data: JSONObject = [:]) -> RPCError {
        RPCError(.invalidState, message, data)
    }

    public static func limitExceeded(_ limit: String, max: Int, _ message: String) -> RPCError {
        RPCError(.limitExceeded, message, ["limit": .string(limit), "max": .int(max)])
    }
}
