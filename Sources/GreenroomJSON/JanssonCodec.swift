import CJansson

/// Why a text could not be decoded.
public enum JSONDecodeError: Error, Equatable, Sendable {
    /// Not JSON: Jansson's message, line and column.
    case syntax(message: String, line: Int, column: Int, position: Int)
    /// Valid JSON nested deeper than the limit.
    case tooDeep(limit: Int)
}

extension JSONDecodeError: CustomStringConvertible {
    /// One sentence a person can read: what was wrong and where.
    public var description: String {
        switch self {
        case .syntax(let message, let line, let column, _):
            return "\(message) at line \(line), column \(column)"
        case .tooDeep(let limit):
            return "nested deeper than \(limit) levels"
        }
    }
}

/// Encodes and decodes JSON text with Jansson. All Jansson values are owned and released here; none
/// escapes.
public enum JSONCodec {
    /// Decodes any JSON text (top-level scalars included, so callers can tell "not a request" from
    /// "not JSON"). Depth counts containers: `[]` is 1, `[[]]` is 2.
    public static func decode(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 512) throws(JSONDecodeError) -> JSONValue {
        try parse(bytes, maxDepth: maxDepth) { $0.value }
    }

    public static func decode(_ bytes: [UInt8], maxDepth: Int = 512) throws(JSONDecodeError) -> JSONValue {
        let result: Result<JSONValue, JSONDecodeError> = bytes.withUnsafeBytes { raw in
            do throws(JSONDecodeError) { return .success(try decode(raw, maxDepth: maxDepth)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    public static func decode(_ text: String, maxDepth: Int = 512) throws(JSONDecodeError) -> JSONValue {
        try decode(Array(text.utf8), maxDepth: maxDepth)
    }

    private static func string(_ p: UnsafePointer<CChar>, count: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(start: p, count: count), as: UTF8.self)
    }

    /// Converts a Jansson value (depth already checked).
    static func convert(_ j: UnsafeMutablePointer<json_t>) -> JSONValue {
        switch json_type(rawValue: UInt32(gr_json_typeof(j))) {
        case JSON_OBJECT:
            var members: [(key: String, value: JSONValue)] = []
            members.reserveCapacity(json_object_size(j))
            var it = json_object_iter(j)
            while let i = it {
                if let kp = json_object_iter_key(i), let vp = json_object_iter_value(i) {
                    members.append((key: string(kp, count: json_object_iter_key_len(i)), value: convert(vp)))
                }
                it = json_object_iter_next(j, i)
            }
            return .object(JSONObject(members))
        case JSON_ARRAY:
            let n = json_array_size(j)
            var items: [JSONValue] = []
            items.reserveCapacity(n)
            for i in 0..<n { items.append(convert(json_array_get(j, i))) }
            return .array(items)
        case JSON_STRING:
            return .string(string(json_string_value(j), count: json_string_length(j)))
        case JSON_INTEGER:
            return .int(Int(json_integer_value(j)))
        case JSON_REAL:
            return .double(json_real_value(j))
        case JSON_TRUE:
            return .bool(true)
        case JSON_FALSE:
            return .bool(false)
        default:
            return .null
        }
    }

    /// Builds a Jansson value (owned: the caller decrefs). Non-finite doubles, which JSON cannot
    /// express, become null.
    static func build(_ v: JSONValue) -> UnsafeMutablePointer<json_t> {
        switch v {
        case .null: return json_null()
        case .bool(let b): return b ? json_true() : json_false()
        case .int(let i): return json_integer(json_int_t(i))
        case .double(let d): return d.isFinite ? json_real(d) : json_null()
        case .string(let s):
            var s = s
            return s.withUTF8 { u in
                u.withMemoryRebound(to: CChar.self) { c in json_stringn_nocheck(c.baseAddress, c.count) }
            }
        case .array(let items):
            let a = json_array()!
            for item in items { json_array_append_new(a, build(item)) }
            return a
        case .object(let o):
            let obj = json_object()!
            for m in o.members {
                var k = m.key
                k.withUTF8 { u in
                    u.withMemoryRebound(to: CChar.self) { c in
                        _ = json_object_setn_new_nocheck(obj, c.baseAddress, c.count, build(m.value))
                    }
                }
            }
            return obj
        }
    }

    /// Appends the compact encoding of `v` to `out`. The output never contains a raw newline
    /// (Jansson escapes control characters inside strings), so it can be framed by lines.
    public static func encode(_ v: JSONValue, into out: ByteBuffer) {
        // What replies, events and hook inputs are mostly made of (ids, names, flags, whole sizes) is
        // written directly, byte for byte what Jansson writes, without building a value; anything
        // else goes through Jansson whole.
        let mark = out.count
        if appendDirect(v, to: out, depth: 0) { return }
        out.truncate(to: mark)
        JanssonArena.scope {
            let j = build(v)
            out.dump(j)
            gr_json_decref(j)
        }
    }

    /// Writes `v` when every part of it can be written exactly as Jansson would: integers, booleans,
    /// null, strings that need no escape, finite doubles (as Jansson formats a real), and arrays and
    /// objects of those (objects without a repeated key, which Jansson would merge). Returns false,
    /// having written part of it, otherwise.
    static func appendDirect(_ v: JSONValue, to out: ByteBuffer, depth: Int) -> Bool {
        switch v {
        case .int(let i): out.appendDecimal(i)
        case .null: out.append("null")
        case .bool(let b): out.append(b ? "true" : "false")
        case .string(let s): return out.appendPlainString(s)
        case .double(let d): return out.appendReal(d)
        case .array(let items):
            guard depth < 64 else { return false }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                guard appendDirect(item, to: out, depth: depth + 1) else { return false }
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            guard depth < 64, !hasRepeatedKey(o) else { return false }
            out.append(UInt8(ascii: "{"))
            for (i, m) in o.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                guard out.appendPlainString(m.key) else { return false }
                out.append(UInt8(ascii: ":"))
                guard appendDirect(m.value, to: out, depth: depth + 1) else { return false }
            }
            out.append(UInt8(ascii: "}"))
        }
        return true
    }

    private static func hasRepeatedKey(_ o: JSONObject) -> Bool {
        let m = o.members
        if m.count > 16 { return Set(m.lazy.map(\.key)).count != m.count }
        for i in m.indices { for j in 0..<i where m[j].key == m[i].key { return true } }
        return false
    }

    /// Always through a Jansson value (tests compare the direct scalar paths with it).
    static func encodeWithJansson(_ v: JSONValue) -> [UInt8] {
        let out = ByteBuffer(capacity: 256)
        JanssonArena.scope {
            let j = build(v)
            out.dump(j)
            gr_json_decref(j)
        }
        return Array(out.bytes)
    }

    public static func encode(_ v: JSONValue) -> [UInt8] {
        let out = ByteBuffer(capacity: 256)
        encode(v, into: out)
        return Array(out.bytes)
    }

    public static func encodeString(_ v: JSONValue) -> String {
        String(decoding: encode(v), as: UTF8.self)
    }
}
