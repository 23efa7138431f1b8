import CLibUV
import GreenroomHost
import GreenroomJSON
import GreenroomRPC
import GreenroomWeb

/// `--listen ws:HOST:PORT`: the WebSocket upgrade at /rpc and the static files over HTTP on one TCP
/// port (see `WebSocketCodec`), under the browser-safety rules of `BrowserPolicy`, which needs the
/// port actually bound (a page's own origin names it).
final class WebSocketListener: Listener {
    private let socket: TCPListeningSocket
    private let allowedOrigins: [String]
    private let bindAny: Bool
    private let token: String?
    private let maxMessageBytes: Int
    private let files: StaticFiles
    /// Set once bound.
    private var config: WebSocketConfig?

    init(endpoint: TCPEndpoint, rules: TCPBindRules, allowedOrigins: [String], token: String?,
         maxMessageBytes: Int, files: StaticFiles) throws {
        try rules.check(endpoint)
        socket = TCPListeningSocket(endpoint: endpoint)
        self.allowedOrigins = allowedOrigins
        bindAny = rules.bindAny
        self.token = token
        self.maxMessageBytes = maxMessageBytes
        self.files = files
    }

    var kind: HostConnection.Kind { .ws }
    var address: String { "ws:\(socket.authority)" }

    func listen(on loop: UnsafeMutablePointer<uv_loop_t>) throws {
        let spec = "ws:\(socket.endpoint.host):\(socket.endpoint.port)"
        let handle = try socket.bind(on: loop, spec: spec)
        let policy = BrowserPolicy(listenerAuthority: socket.authority, allowedOrigins: allowedOrigins, bindAny: bindAny, token: token)
        config = WebSocketConfig(policy: policy, maxMessageBytes: maxMessageBytes, files: files)
        try startListening(handle, spec)
    }

    func makeStream(_ loop: UnsafeMutablePointer<uv_loop_t>) -> UnsafeMutablePointer<uv_stream_t> { TCPListeningSocket.makeStream(loop) }
    func accepted(_ stream: UnsafeMutablePointer<uv_stream_t>) { TCPListeningSocket.accepted(stream) }
    func describePeer(_ stream: UnsafeMutablePointer<uv_stream_t>) -> String? { TCPListeningSocket.describePeer(stream) }

    /// A peer refused before its upgrade is answered in HTTP (503), never with a JSON line.
    func refusalBytes(_ line: String) -> [UInt8] {
        let out = ByteBuffer()
        HTTPResponse.error(503, "The host refused the connection: \(line.trimmingWhitespace())").write(into: out)
        return Array(out.bytes)
    }

    func makeCodec() -> MessageCodec { WebSocketCodec(config: config!) }

    func close() { socket.close() }
}
