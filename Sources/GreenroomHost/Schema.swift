/// The OpenRPC document, embedded at build time from rpc-schema/openrpc.json.
public enum OpenRPCDocument {
    public static var bytes: [UInt8] { PackageResources.openrpc_json }
}
