import GreenroomJSON

/// A JSON Schema (draft 7, the dialect OpenRPC 1.3 uses), written in Swift beside the message it
/// describes. The OpenRPC document (`greenroom schema`, `rpc.discover`) and the clients generated from it
/// are made from these declarations, so a member is described once, where its decoder is.
///
/// Builders give the common shapes (`.string`, `.object`, `.ref`, ...); modifiers add one keyword each
/// (`.minimum(0)`, `.default(false)`); `with(_:_:)` adds any other keyword. Keywords keep the order they
/// were given in, so the generated document reads as it was written.
public struct Schema: Sendable {
    /// The schema's keywords, in order.
    public private(set) var keywords: [(String, JSONValue)]

    public init(_ keywords: [(String, JSONValue)] = []) { self.keywords = keywords }

    /// The schema as a JSON object.
    public var json: JSONValue { .object(JSONObject(keywords.map { (key: $0.0, value: $0.1) })) }

    /// A `$ref` to the component schema `name` (`OpenRPCGenerator.danglingReferences` finds a name that
    /// names none).
    public static func ref(named name: String) -> Schema { Schema([("$ref", .string("#/components/schemas/\(name)"))]) }

    public static func string(_ description: String? = nil) -> Schema { typed("string", description) }
    public static func integer(_ description: String? = nil) -> Schema { typed("integer", description) }
    public static func number(_ description: String? = nil) -> Schema { typed("number", description) }
    public static func boolean(_ description: String? = nil) -> Schema { typed("boolean", description) }
    public static func null(_ description: String? = nil) -> Schema { typed("null", description) }

    /// Any JSON value.
    public static func any(_ description: String? = nil) -> Schema { Schema().described(description) }

    public static func array(_ items: Schema, _ description: String? = nil) -> Schema {
        var s = typed("array", description)
        s.keywords.append(("items", items.json))
        return s
    }

    /// An object with `properties` (in order), of which `required` must be present; members not listed are
    /// refused unless `additionalProperties` says otherwise (nil: the keyword is left out).
    public static func object(_ description: String? = nil, _ properties: KeyValuePairs<String, Schema> = [:],
                              required: [String] = [], additionalProperties: Bool? = false) -> Schema {
        var s = typed("object", description)
        if !properties.isEmpty {
            s.keywords.append(("properties", .object(JSONObject(properties.map { (key: $0.key, value: $0.value.json) }))))
        }
        if !required.isEmpty { s.keywords.append(("required", .array(required.map { .string($0) }))) }
        if let additionalProperties { s.keywords.append(("additionalProperties", .bool(additionalProperties))) }
        return s
    }

    public static func oneOf(_ schemas: [Schema], _ description: String? = nil) -> Schema {
        Schema([("oneOf", .array(schemas.map(\.json)))]).described(description)
    }

    public static func anyOf(_ schemas: [Schema], _ description: String? = nil) -> Schema {
        Schema([("anyOf", .array(schemas.map(\.json)))]).described(description)
    }

    public static func allOf(_ schemas: [Schema], _ description: String? = nil) -> Schema {
        Schema([("allOf", .array(schemas.map(\.json)))]).described(description)
    }

    private static func typed(_ type: String, _ description: String?) -> Schema {
        Schema([("type", .string(type))]).described(description)
    }

    /// The value of `keyword`, if the schema has it.
    public subscript(keyword: String) -> JSONValue? { keywords.first { $0.0 == keyword }?.1 }

    /// The strings of its `enum` (empty without one).
    public var enumStrings: [String] { self["enum"]?.arrayValue?.compactMap(\.stringValue) ?? [] }

    // MARK: Modifiers

    /// Adds `keyword: value` (any keyword; the named modifiers below are this with their keyword).
    public func with(_ keyword: String, _ value: JSONValue) -> Schema {
        var s = self
        s.keywords.append((keyword, value))
        return s
    }

    public func described(_ description: String?) -> Schema {
        guard let description else { return self }
        return with("description", .string(description))
    }

    public func `default`(_ value: JSONValue) -> Schema { with("default", value) }
    public func const(_ value: JSONValue) -> Schema { with("const", value) }
    public func oneOfValues(_ values: [JSONValue]) -> Schema { with("enum", .array(values)) }
    public func pattern(_ p: String) -> Schema { with("pattern", .string(p)) }
    public func minimum(_ v: JSONValue) -> Schema { with("minimum", v) }
    public func maximum(_ v: JSONValue) -> Schema { with("maximum", v) }
    public func exclusiveMinimum(_ v: JSONValue) -> Schema { with("exclusiveMinimum", v) }
    public func minLength(_ n: Int) -> Schema { with("minLength", .int(n)) }
    public func maxLength(_ n: Int) -> Schema { with("maxLength", .int(n)) }
    public func minItems(_ n: Int) -> Schema { with("minItems", .int(n)) }
    public func maxItems(_ n: Int) -> Schema { with("maxItems", .int(n)) }
    public func uniqueItems() -> Schema { with("uniqueItems", true) }
    public func additionalProperties(_ s: Schema) -> Schema { with("additionalProperties", s.json) }
    public func not(_ s: Schema) -> Schema { with("not", s.json) }
    public func `if`(_ s: Schema) -> Schema { with("if", s.json) }
    public func then(_ s: Schema) -> Schema { with("then", s.json) }
    public func `else`(_ s: Schema) -> Schema { with("else", s.json) }
    public func propertyNames(_ s: Schema) -> Schema { with("propertyNames", s.json) }
}

/// A named schema of the document's `components.schemas`, referred to with `Schema.ref`.
public struct Component: Sendable {
    public let name: String
    public let schema: Schema
    public init(_ name: String, _ schema: Schema) {
        self.name = name
        self.schema = schema
    }
}
