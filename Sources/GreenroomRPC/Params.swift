import GreenroomJSON

/// A value that can be read out of request params, with errors that name the field's path.
public protocol ParamDecodable {
    static func decodeParam(_ v: JSONValue, path: String) throws(RPCError) -> Self
}

extension String: ParamDecodable {
    public static func decodeParam(_ v: JSONValue, path: String) throws(RPCError) -> String {
        guard let s = v.stringValue else { throw .invalidParams(path: path, "expected string, got \(v.typeName)") }
        return s
    }
}

extension Bool: ParamDecodable {
    public static func decodeParam(_ v: JSONValue, path: String) throws(RPCError) -> Bool {
        guard let b = v.boolValue else { throw .invalidParams(path: path, "expected boolean, got \(v.typeName)") }
        return b
    }
}

extension Int: ParamDecodable {
    public static func decodeParam(_ v: JSONValue, path: String) throws(RPCError) -> Int {
        guard let i = v.intValue else {
            throw .invalidParams(path: path, v.doubleValue != nil ? "expected an integer, got a fraction" : "expected integer, got \(v.typeName)")
        }
        return i
    }
}

extension Double: ParamDecodable {
    public static func decodeParam(_ v: JSONValue, path: String) throws(RPCError) -> Double {
        guard let d = v.doubleValue else { throw .invalidParams(path: path, "expected number, got \(v.typeName)") }
        guard d.isFinite else { throw .invalidParams(path: path, "expected a finite number") }
        return d
    }
}

extension JSONValue: ParamDecodable {
    public static func decodeParam(_ v: JSONValue, path: String) throws(RPCError) -> JSONValue { v }
}

extension JSONObject: ParamDecodable {
    public static func decodeParam(_ v: JSONValue, path: String) throws(RPCError) -> JSONObject {
        guard let o = v.objectValue else { throw .invalidParams(path: path, "expected object, got \(v.typeName)") }
        return o
    }
}

extension Array: ParamDecodable where Element: ParamDecodable {
    public static func decodeParam(_ v: JSONValue, path: String) throws(RPCError) -> [Element] {
        guard let a = v.arrayValue else { throw .invalidParams(path: path, "expected array, got \(v.typeName)") }
        var out: [Element] = []
        out.reserveCapacity(a.count)
        for (i, item) in a.enumerated() { out.append(try Element.decodeParam(item, path: "\(path)[\(i)]")) }
        return out
    }
}

/// The params of one call, normalised to an object (positional arrays are mapped onto the method's
/// declared parameter names). Accessors throw -32602 with `data.path` naming the field.
public struct Params: Sendable {
    public let object: JSONObject
    /// The params as sent, for methods that take any shape.
    public let raw: JSONValue?
    public init(_ object: JSONObject = [:], raw: JSONValue? = nil) {
        self.object = object
        self.raw = raw
    }

    /// The member `name`, null included.
    public func value(_ name: String) -> JSONValue? { object[name] }

    public func has(_ name: String) -> Bool {
        if let v = object[name], !v.isNull { return true }
        return false
    }

    /// A required member; null counts as missing.
    public func require<T: ParamDecodable>(_ name: String, as: T.Type = T.self) throws(RPCError) -> T {
        guard let v = object[name], !v.isNull else { throw .invalidParams(path: name, "is required") }
        return try T.decodeParam(v, path: name)
    }

    /// An optional member; absent or null gives nil.
    public func optional<T: ParamDecodable>(_ name: String, as: T.Type = T.self) throws(RPCError) -> T? {
        guard let v = object[name], !v.isNull else { return nil }
        return try T.decodeParam(v, path: name)
    }

    /// A string member that must be one of `allowed`.
    public func choice(_ name: String, _ allowed: [String], default def: String? = nil) throws(RPCError) -> String? {
        guard let v = object[name], !v.isNull else { return def }
        return try Params.choice(v, path: name, allowed)
    }

    /// `v`, a string that must be one of `allowed`.
    public static func choice(_ v: JSONValue, path: String, _ allowed: [String]) throws(RPCError) -> String {
        let s = try String.decodeParam(v, path: path)
        guard allowed.contains(s) else {
            throw .invalidParams(path: path, "must be one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", ")), got \"\(s)\"")
        }
        return s
    }
}
