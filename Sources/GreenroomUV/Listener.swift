import CLibUV
import GreenroomHost
import GreenroomRPC

/// One way into the host: a listening socket, the streams it accepts and the codec each speaks. The
/// server keeps a list of them and treats them alike (limits, the unauthenticated share, refusals,
/// authentication deadlines); adding a transport is a codec and a listener.
public protocol Listener: AnyObject {
    /// What its connections are, for the host (authentication, limits, stats).
    var kind: HostConnection.Kind { get }
    /// Binds and listens on `loop`; accepted streams go to the loop's server. Throws
    /// `ServerSetupError` or `UVError` with a sentence saying what failed.
    func listen(on loop: UnsafeMutablePointer<uv_loop_t>) throws
    /// The address the ready line and `host.info` show, once listening: `unix:PATH`, `tcp:HOST:PORT`,
    /// `ws:HOST:PORT` (with the port actually bound).
    var address: String { get }
    /// A fresh stream handle of this listener's type, initialised on `loop`, to accept into.
    func makeStream(_ loop: UnsafeMutablePointer<uv_loop_t>) -> UnsafeMutablePointer<uv_stream_t>
    /// Called once a stream is accepted, before anything is read (socket options).
    func accepted(_ stream: UnsafeMutablePointer<uv_stream_t>)
    /// Who is at the other end, for the logs (nil when unknown).
    func describePeer(_ stream: UnsafeMutablePointer<uv_stream_t>) -> String?
    /// A reason of this listener's own to refuse an accepted stream (the Unix socket's peer uid check),
    /// or nil to admit it.
    func refusal(for stream: UnsafeMutablePointer<uv_stream_t>) -> ListenerRefusal?
    /// The bytes that tell a refused peer why, from a JSON-RPC error line (a WebSocket peer, which has
    /// not upgraded yet, gets HTTP instead).
    func refusalBytes(_ line: String) -> [UInt8]
    /// The codec of one new connection.
    func makeCodec() -> MessageCodec
    /// Stops listening and releases what it holds (a Unix socket's file and lock). Safe to call twice,
    /// and after a failed `listen`.
    func close()
}

/// Why a listener refuses a peer: the line it is told, and what the host's log says.
public struct ListenerRefusal {
    public var line: String
    public var logReason: String
}

extension Listener {
    public func accepted(_ stream: UnsafeMutablePointer<uv_stream_t>) {}
    public func refusal(for stream: UnsafeMutablePointer<uv_stream_t>) -> ListenerRefusal? { nil }
    public func refusalBytes(_ line: String) -> [UInt8] { Array(line.utf8) }

    /// Listens on a bound `handle`: each connection is handed to the loop's server with this listener.
    func startListening(_ handle: UnsafeMutablePointer<uv_stream_t>, _ what: String) throws {
        handle.pointee.data = Unmanaged.passUnretained(self as AnyObject).toOpaque()
        try uvCheck(uv_listen(handle, 511) { s, status in
            guard status >= 0, let s, let data = s.pointee.data,
                  let listener = Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue() as? Listener else { return }
            UVServer.from(s).accept(from: listener, listening: s)
        }, "listening on \(what)")
    }
}
