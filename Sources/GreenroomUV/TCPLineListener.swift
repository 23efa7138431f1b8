import CLibUV
import GreenroomHost
import GreenroomRPC

/// `--listen tcp:HOST:PORT`: JSON-RPC lines over TCP, exactly as on the Unix socket, except that a
/// first line that is an HTTP request gets one HTTP 400 naming `--listen ws:` (see `LineCodec`).
final class TCPLineListener: Listener {
    private let socket: TCPListeningSocket
    private let maxMessageBytes: Int

    init(endpoint: TCPEndpoint, rules: TCPBindRules, maxMessageBytes: Int) throws {
        try rules.check(endpoint)
        socket = TCPListeningSocket(endpoint: endpoint)
        self.maxMessageBytes = maxMessageBytes
    }

    var kind: HostConnection.Kind { .tcp }
    var address: String { "tcp:\(socket.authority)" }

    func listen(on loop: UnsafeMutablePointer<uv_loop_t>) throws {
        let spec = "tcp:\(socket.endpoint.host):\(socket.endpoint.port)"
        try startListening(try socket.bind(on: loop, spec: spec), spec)
    }

    func makeStream(_ loop: UnsafeMutablePointer<uv_loop_t>) -> UnsafeMutablePointer<uv_stream_t> { TCPListeningSocket.makeStream(loop) }
    func accepted(_ stream: UnsafeMutablePointer<uv_stream_t>) { TCPListeningSocket.accepted(stream) }
    func describePeer(_ stream: UnsafeMutablePointer<uv_stream_t>) -> String? { TCPListeningSocket.describePeer(stream) }

    func makeCodec() -> MessageCodec { LineCodec(maxMessageBytes: maxMessageBytes, refusesHTTP: true) }

    func close() { socket.close() }
}
