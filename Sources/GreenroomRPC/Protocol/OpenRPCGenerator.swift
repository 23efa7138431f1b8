import GreenroomJSON

/// Makes the OpenRPC 1.3 document from the method and event types: each method's params (from its
/// fields), result, errors and documentation, the component schemas, and the events as `x-notifications`.
/// Error objects are written inline in each method (OpenRPC allows a `$ref` there, but common
/// third-party tools read only inline ones), and once more under `components.errors` by name.
public struct OpenRPCGenerator {
    public var info: JSONObject
    public var methods: [any RPCMethod.Type]
    public var events: [any RPCEvent.Type]
    public var components: [Component]
    public var errors: [ErrorDoc]

    public init(info: JSONObject, methods: [any RPCMethod.Type], events: [any RPCEvent.Type], components: [Component],
                errors: [ErrorDoc]) {
        self.info = info
        self.methods = methods
        self.events = events
        self.components = components
        self.errors = errors
    }

    /// The document.
    public func document() -> JSONValue {
        var schemas = JSONObject()
        for c in components { schemas[c.name] = c.schema.json }
        var errorObjects = JSONObject()
        for e in errors { errorObjects[e.name] = e.object }
        return [
            "openrpc": "1.3.2",
            "info": .object(info),
            "methods": .array(methods.map(method)),
            "components": ["schemas": .object(schemas), "errors": .object(errorObjects)],
            "x-notifications": .array(events.map { e in
                ["name": .string(e.topic), "summary": .string(e.summary), "description": .string(e.description),
                 "params": e.params.json]
            }),
        ]
    }

    private func method(_ m: any RPCMethod.Type) -> JSONValue {
        [
            "name": .string(m.name),
            "summary": .string(m.summary),
            "description": .string(m.description),
            "tags": .array(m.tags.map { ["name": .string($0)] }),
            "paramStructure": "either",
            "params": .array(Self.params(of: m)),
            "result": ["name": .string(m.result.name), "schema": m.result.schema.json],
            "errors": .array(m.errors.map(\.object)),
        ]
    }

    private static func params(of m: any RPCMethod.Type) -> [JSONValue] {
        func described<M: RPCMethod>(_: M.Type) -> [JSONValue] {
            M.Params.fields.map { f in
                ["name": .string(f.name), "description": .string(f.description), "required": .bool(f.isRequired),
                 "schema": f.schema.json]
            }
        }
        return described(m)
    }

    /// Every `$ref` of `document` that names no component (a typo in a declaration), as paths.
    public static func danglingReferences(in document: JSONValue) -> [String] {
        guard let schemas = document["components"]?["schemas"]?.objectValue else { return ["components.schemas"] }
        var found: [String] = []
        func walk(_ v: JSONValue, _ path: String) {
            switch v {
            case .object(let o):
                for m in o.members {
                    if m.key == "$ref", case .string(let ref) = m.value {
                        let prefix = "#/components/schemas/"
                        if !ref.hasPrefix(prefix) || schemas[String(ref.dropFirst(prefix.count))] == nil { found.append(path) }
                    } else {
                        walk(m.value, "\(path).\(m.key)")
                    }
                }
            case .array(let a):
                for (i, x) in a.enumerated() { walk(x, "\(path)[\(i)]") }
            default:
                break
            }
        }
        walk(document, "$")
        return found
    }
}

/// JSON written for people and for diffs: two spaces of indent, one member or element per line, `": "`
/// between a key and its value, strings with only the escapes JSON requires (UTF-8 kept), integers as
/// integers and reals in their shortest form. The checked-in document is this output.
public enum PrettyJSON {
    public static func string(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: 0, into: &out)
        out += "\n"
        return out
    }

    private static func write(_ v: JSONValue, indent: Int, into out: inout String) {
        switch v {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += number(d)
        case .string(let s): quote(s, into: &out)
        case .array(let a):
            guard !a.isEmpty else { out += "[]"; return }
            out += "[\n"
            for (i, x) in a.enumerated() {
                out += String(repeating: " ", count: indent + 2)
                write(x, indent: indent + 2, into: &out)
                out += i == a.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: " ", count: indent) + "]"
        case .object(let o):
            guard !o.isEmpty else { out += "{}"; return }
            out += "{\n"
            for (i, m) in o.members.enumerated() {
                out += String(repeating: " ", count: indent + 2)
                quote(m.key, into: &out)
                out += ": "
                write(m.value, indent: indent + 2, into: &out)
                out += i == o.members.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: " ", count: indent) + "}"
        }
    }

    private static func number(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) + ".0" }
        return "\(d)"
    }

    private static func quote(_ s: String, into out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }
}
