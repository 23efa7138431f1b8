/// Files the WebSocket listener serves over plain HTTP GET, embedded in the binary so a browser needs
/// nothing else: the start page, the JavaScript client and the OpenRPC document.
public struct StaticFiles: Sendable {
    public struct File: Sendable {
        public var contentType: String
        public var bytes: [UInt8]
        public init(contentType: String, bytes: [UInt8]) {
            self.contentType = contentType
            self.bytes = bytes
        }
    }

    public var files: [String: File]

    public init(files: [String: File]) { self.files = files }

    /// `/` (the start page) and `/greenroom.js` from this module, `/openrpc.json` as given (the host
    /// embeds the schema; this module does not depend on it).
    public static func standard(openRPC: [UInt8]) -> StaticFiles {
        StaticFiles(files: [
            "/": File(contentType: "text/html; charset=utf-8", bytes: PackageResources.index_html),
            "/greenroom.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.greenroom_js),
            "/openrpc.json": File(contentType: "application/json", bytes: openRPC),
        ])
    }
}
