import CJansson
import Glibc

/// A borrowed view of one value in a parsed Jansson tree, valid only inside `JSONCodec.parse`'s body.
/// It lets the RPC layer read a request's envelope (jsonrpc, id, method) without converting it, and
/// convert only what handlers need (params).
public struct JSONNode {
    let raw: UnsafeMutablePointer<json_t>

    public enum Kind { case object, array, string, integer, real, bool, null }

    public var kind: Kind {
        switch json_type(rawValue: UInt32(gr_json_typeof(raw))) {
        case JSON_OBJECT: .object
        case JSON_ARRAY: .array
        case JSON_STRING: .string
        case JSON_INTEGER: .integer
        case JSON_REAL: .real
        case JSON_TRUE, JSON_FALSE: .bool
        default: .null
        }
    }

    /// The JSON type name, for error messages.
    public var typeName: String {
        switch kind {
        case .object: "object"
        case .array: "array"
        case .string: "string"
        case .integer, .real: "number"
        case .bool: "boolean"
        case .null: "null"
        }
    }

    /// An object member by key.
    public func member(_ key: StaticString) -> JSONNode? {
        guard let j = json_object_get(raw, UnsafeRawPointer(key.utf8Start).assumingMemoryBound(to: CChar.self)) else { return nil }
        return JSONNode(raw: j)
    }

    public var count: Int { kind == .array ? json_array_size(raw) : json_object_size(raw) }
    public func element(_ i: Int) -> JSONNode { JSONNode(raw: json_array_get(raw, i)) }

    /// The string's bytes (strings may hold NUL).
    public var stringBytes: UnsafeRawBufferPointer? {
        guard kind == .string else { return nil }
        return UnsafeRawBufferPointer(start: json_string_value(raw), count: json_string_length(raw))
    }

    public var string: String? { stringBytes.map { String(decoding: $0, as: UTF8.self) } }

    /// Compares a string node with a literal without allocating.
    public func isString(_ literal: StaticString) -> Bool {
        guard let b = stringBytes, b.count == literal.utf8CodeUnitCount else { return false }
        return memcmp(b.baseAddress!, literal.utf8Start, b.count) == 0
    }

    /// Converts the whole subtree to a Swift value.
    public var value: JSONValue { JSONCodec.convert(raw) }
}

extension JSONCodec {
    /// Parses any JSON text and hands the borrowed root to `body`; the tree is released afterwards.
    /// Depth counts containers (`[]` is 1); deeper input throws `.tooDeep`.
    public static func parse<R>(_ bytes: UnsafeRawBufferPointer, maxDepth: Int, _ body: (JSONNode) -> R) throws(JSONDecodeError) -> R {
        let outcome: Result<R, JSONDecodeError> = JanssonArena.scope {
            var error = json_error_t()
            let empty: CChar = 0
            let root = withUnsafePointer(to: empty) { p in
                json_loadb(bytes.baseAddress?.assumingMemoryBound(to: CChar.self) ?? p, bytes.count, gr_json_flags_load(), &error)
            }
            guard let root else { return .failure(syntaxError(&error)) }
            defer { gr_json_decref(root) }
            guard depthWithin(root, maxDepth) else { return .failure(.tooDeep(limit: maxDepth)) }
            return .success(body(JSONNode(raw: root)))
        }
        return try outcome.get()
    }

    static func syntaxError(_ error: inout json_error_t) -> JSONDecodeError {
        let message = withUnsafeBytes(of: &error.text) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return .syntax(message: message, line: Int(error.line), column: Int(error.column), position: Int(error.position))
    }

    /// True when no container is nested deeper than `limit` (no allocation; stops early).
    static func depthWithin(_ j: UnsafeMutablePointer<json_t>, _ limit: Int) -> Bool {
        switch json_type(rawValue: UInt32(gr_json_typeof(j))) {
        case JSON_OBJECT:
            if limit < 1 { return false }
            var it = json_object_iter(j)
            while let i = it {
                if let v = json_object_iter_value(i), !depthWithin(v, limit - 1) { return false }
                it = json_object_iter_next(j, i)
            }
            return true
        case JSON_ARRAY:
            if limit < 1 { return false }
            for i in 0..<json_array_size(j) where !depthWithin(json_array_get(j, i), limit - 1) { return false }
            return true
        default:
            return true
        }
    }
}
