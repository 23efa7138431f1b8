import GreenroomJSON
import GreenroomRPC

/// Greenroom's wire contract as one value, made from the message types: `greenroom schema` prints it,
/// `rpc.discover` answers it, rpc-schema/openrpc.json is a copy of it (a test keeps the copy equal), and
/// the clients are generated from that file.
public enum GreenroomProtocol {
    /// The OpenRPC document, made once.
    public static let document: JSONValue = OpenRPCGenerator(
        info: ProtocolCatalog.info, methods: ProtocolCatalog.methods, events: ProtocolCatalog.events,
        components: SchemaName.allCases.map { Component($0.rawValue, $0.schema) } + ViewabilitySchema.components + PresentationSchemas.components + TabSchemas.components, errors: ProtocolCatalog.errors
    ).document()

    /// The document as rpc-schema/openrpc.json holds it.
    public static var documentText: String { PrettyJSON.string(document) }

    /// The wire names of every method, in the document's order.
    public static var methodNames: [String] { ProtocolCatalog.methods.map { $0.name } }
}
