import GreenroomJSON

/// One JSON-RPC method as a Swift type (sourcekit-lsp's `RequestType`): its wire name, its typed params,
/// its result's schema and its documentation. The registry takes the type with its
/// handler (`MethodRegistry.register(_:_:)`); the OpenRPC document is generated from the types
/// (`OpenRPCGenerator`), and the clients from the document.
///
/// Adding a method: one type conforming to this protocol (beside its group's others), its line in the
/// host's list of methods, its handler, and a fixture in rpc-schema/fixtures.
public protocol RPCMethod: Sendable {
    associatedtype Params: RPCParams = NoParams
    /// The wire name (`"page.didScroll"`).
    static var name: String { get }
    static var summary: String { get }
    static var description: String { get }
    /// The document's tags (its groups: `host`, `stacks`, `pages`, ...).
    static var tags: [String] { get }
    /// The result: its name and schema.
    static var result: ResultSpec { get }
    /// The errors the method can answer.
    static var errors: [ErrorDoc] { get }
}

/// One error a method can answer, as the document shows it: a name for `components.errors` and an error
/// object (`code`, `message`, an example `data`). Several may share a code (an out-of-order scroll
/// stream call is one kind of -32003).
public struct ErrorDoc: Sendable {
    public let name: String
    public let object: JSONValue
    public init(_ name: String, _ object: JSONValue) {
        self.name = name
        self.object = object
    }
}

/// A method's result: its name (OpenRPC's content descriptor name) and schema.
public struct ResultSpec: Sendable {
    public let name: String
    public let schema: Schema
    public init(_ name: String, _ schema: Schema) {
        self.name = name
        self.schema = schema
    }
}

/// A method's params as a Swift value: `fields` lists them in positional order, each with its decoder,
/// its schema and its description. Decoding fills a value made by `init()` (so a member's default is the
/// property's initial value), refusing unknown members and surplus positional values with -32602.
public protocol RPCParams {
    init()
    static var fields: [ParamField<Self>] { get }
}

/// The params of a method that takes none.
public struct NoParams: RPCParams {
    public init() {}
    public static var fields: [ParamField<NoParams>] { [] }
}

/// One member of a method's params: its name, description and schema, whether it is required, and how
/// it is decoded into the params value. Decoding errors are -32602 with `data.path` naming the member
/// (and the element or member inside it).
///
/// `@unchecked Sendable`: its closures are not `@Sendable`, but each only writes through a key path into
/// the params value it is given; they capture nothing mutable and are built once, in static tables.
public struct ParamField<P>: @unchecked Sendable {
    public let name: String
    public let description: String
    public let schema: Schema
    public let isRequired: Bool
    /// Decodes a present, non-null member into `params`.
    let decode: (inout P, JSONValue) throws(RPCError) -> Void
    /// Keeps a member that is present but null (for the members whose null means something).
    let keepsNull: Bool
    /// Fills in an absent member (nil: the property keeps its initial value).
    var absent: ((inout P) -> Void)? = nil

    /// A required member: absent or null is -32602 "is required".
    public static func required<T: ParamDecodable>(_ name: String, _ keyPath: WritableKeyPath<P, T>, _ schema: Schema,
                                                   _ description: String) -> ParamField<P> {
        ParamField(name: name, description: description, schema: schema, isRequired: true, decode: { p, v throws(RPCError) in
            p[keyPath: keyPath] = try T.decodeParam(v, path: name)
        }, keepsNull: false)
    }

    /// An optional member: absent or null leaves the property as `init()` made it (nil, or the default).
    public static func optional<T: ParamDecodable>(_ name: String, _ keyPath: WritableKeyPath<P, T?>, _ schema: Schema,
                                                   _ description: String) -> ParamField<P> {
        ParamField(name: name, description: description, schema: schema, isRequired: false, decode: { p, v throws(RPCError) in
            p[keyPath: keyPath] = try T.decodeParam(v, path: name)
        }, keepsNull: false)
    }

    /// An optional member with a default: the property's initial value is the default.
    public static func optional<T: ParamDecodable>(_ name: String, _ keyPath: WritableKeyPath<P, T>, _ schema: Schema,
                                                   _ description: String) -> ParamField<P> {
        ParamField(name: name, description: description, schema: schema, isRequired: false, decode: { p, v throws(RPCError) in
            p[keyPath: keyPath] = try T.decodeParam(v, path: name)
        }, keepsNull: false)
    }

    /// A member of any JSON value, null included (business data: `null` is data too); with `required`,
    /// absent is -32602 "is required".
    public static func value(_ name: String, _ keyPath: WritableKeyPath<P, JSONValue?>, _ schema: Schema,
                             _ description: String, required: Bool = false) -> ParamField<P> {
        ParamField(name: name, description: description, schema: schema, isRequired: required, decode: { p, v throws(RPCError) in
            p[keyPath: keyPath] = v
        }, keepsNull: true)
    }

    /// An optional string member that must be one of the schema's `enum` values ("must be one of ..."
    /// otherwise); absent, it is the schema's `default`.
    public static func choice(_ name: String, _ keyPath: WritableKeyPath<P, String>, _ schema: Schema,
                              _ description: String, allowed: [String]? = nil) -> ParamField<P> {
        let values = allowed ?? schema.enumStrings
        guard case .string(let fallback)? = schema["default"] else {
            preconditionFailure("choice \(name): the schema gives no default")
        }
        var f = ParamField(name: name, description: description, schema: schema, isRequired: false, decode: { p, v throws(RPCError) in
            p[keyPath: keyPath] = try Params.choice(v, path: name, values)
        }, keepsNull: false)
        f.absent = { $0[keyPath: keyPath] = fallback }
        return f
    }

    /// An optional string member that must be one of the `enum` values (`allowed`, else the schema's);
    /// absent, nil.
    public static func choice(_ name: String, _ keyPath: WritableKeyPath<P, String?>, _ schema: Schema,
                              _ description: String, allowed: [String]? = nil) -> ParamField<P> {
        let values = allowed ?? schema.enumStrings
        return ParamField(name: name, description: description, schema: schema, isRequired: false, decode: { p, v throws(RPCError) in
            p[keyPath: keyPath] = try Params.choice(v, path: name, values)
        }, keepsNull: false)
    }
}

extension RPCParams {
    /// The member names in positional order.
    public static var names: [String] { fields.map(\.name) }

    /// Decodes normalised params (an object; positional params already mapped onto the names).
    public static func decode(_ p: Params) throws(RPCError) -> Self {
        var value = Self()
        for field in fields {
            guard let v = p.object[field.name] else {
                if field.isRequired { throw .invalidParams(path: field.name, "is required") }
                field.absent?(&value)
                continue
            }
            if v.isNull && !field.keepsNull {
                // Given by name, null is not a value of its schema (by position it was taken as absent).
                if field.isRequired { throw .invalidParams(path: field.name, "is required") }
                throw .invalidParams(path: field.name, "is null: leave it out to take the default (null stands for an absent param only by position)")
            }
            try field.decode(&value, v)
        }
        return value
    }
}

/// One event topic as a Swift type: its name (the notification's `method`), its documentation and its
/// params' schema. The document's `x-notifications` is generated from these.
public protocol RPCEvent: Sendable {
    static var topic: String { get }
    static var summary: String { get }
    static var description: String { get }
    static var params: Schema { get }
}
