/// Files the WebSocket listener serves over plain HTTP GET, embedded in the binary so a browser needs
/// nothing else: the start page, the JavaScript client, the OpenRPC document, and the demo and
/// inspector pages of examples/web (`/demo`, `/inspect`).
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

    /// `/` (the start page), `/greenroom.js` and `/greenroom.d.ts` from this module, `/openrpc.json` as given (the host
    /// embeds the schema; this module does not depend on it).
    public static func standard(openRPC: [UInt8]) -> StaticFiles {
        StaticFiles(files: [
            "/": File(contentType: "text/html; charset=utf-8", bytes: PackageResources.index_html),
            "/greenroom.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.greenroom_js),
            // Its TypeScript declarations, generated from the OpenRPC document: an editor completes method
            // names, params and event payloads.
            "/greenroom.d.ts": File(contentType: "application/typescript; charset=utf-8", bytes: PackageResources.greenroom_d_ts),
            "/openrpc.json": File(contentType: "application/json", bytes: openRPC),
            // examples/web: the demo and the inspector (plain modules on /greenroom.js).
            "/demo/article.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.demo_article_js),
            "/demo/backend.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.demo_backend_js),
            "/demo/classes.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.demo_classes_js),
            "/demo/demo.css": File(contentType: "text/css; charset=utf-8", bytes: PackageResources.demo_demo_css),
            "/demo/feed.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.demo_feed_js),
            "/demo": File(contentType: "text/html; charset=utf-8", bytes: PackageResources.demo_index_html),
            "/demo/main.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.demo_main_js),
            "/demo/pager.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.demo_pager_js),
            "/inspect": File(contentType: "text/html; charset=utf-8", bytes: PackageResources.inspect_index_html),
            "/inspect/inspect.css": File(contentType: "text/css; charset=utf-8", bytes: PackageResources.inspect_inspect_css),
            "/inspect/main.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.inspect_main_js),
            "/inspect/model.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.inspect_model_js),
            "/inspect/view.js": File(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.inspect_view_js),
        ])
    }
}
