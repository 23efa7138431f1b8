import CLibUV
import Glibc

/// The rule every network listener binds under: loopback only, unless `--bind-any`, which needs a
/// token (the host never listens on the network without one).
struct TCPBindRules {
    var bindAny: Bool
    var hasToken: Bool

    func check(_ endpoint: TCPEndpoint) throws {
        if !endpoint.isLoopback && !bindAny {
            throw ServerSetupError("refusing to listen on non-loopback \(endpoint.host) without --bind-any (which needs --token-file)")
        }
        if bindAny && !hasToken {
            throw ServerSetupError("--bind-any requires --token-file")
        }
    }
}

/// A bound, listening TCP socket and what the TCP listeners share about their streams (TCP_NODELAY,
/// peers named by address). Owns its heap-allocated handle, freed in the close callback.
final class TCPListeningSocket {
    let endpoint: TCPEndpoint
    private(set) var handle: UnsafeMutablePointer<uv_tcp_t>?
    /// The port actually bound (the endpoint's, or the one the kernel picked for port 0).
    private(set) var port = 0

    init(endpoint: TCPEndpoint) {
        self.endpoint = endpoint
    }

    /// `HOST:PORT` as bound, an IPv6 host in brackets.
    var authority: String { "\(endpoint.shownHost):\(port)" }

    /// Binds on `loop`; `spec` names the listener in error messages.
    func bind(on loop: UnsafeMutablePointer<uv_loop_t>, spec: String) throws -> UnsafeMutablePointer<uv_stream_t> {
        let tcp = allocateZeroed(uv_tcp_t.self)
        try uvCheck(uv_tcp_init(loop, tcp), "uv_tcp_init")
        handle = tcp
        var storage = sockaddr_storage()
        let host = endpoint.host, wanted = endpoint.port, v6 = endpoint.isIPv6
        let addrRC: Int32 = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { a6 in
                v6 ? uv_ip6_addr(host, wanted, a6)
                    : a6.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { uv_ip4_addr(host, wanted, $0) }
            }
        }
        try uvCheck(addrRC, "parsing address \(host)")
        _ = try withUnsafePointer(to: &storage) { p in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                try uvCheck(uv_tcp_bind(tcp, sa, 0), "binding \(spec)")
            }
        }
        var bound = sockaddr_storage()
        var len = Int32(MemoryLayout<sockaddr_storage>.size)
        port = withUnsafeMutablePointer(to: &bound) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                uvReport(uv_tcp_getsockname(tcp, sa, &len), "uv_tcp_getsockname (the bound port)")
                return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        }
        return asStream(tcp)
    }

    func close() {
        if let handle { closeAndFree(asHandle(handle)) }
        handle = nil
    }

    static func makeStream(_ loop: UnsafeMutablePointer<uv_loop_t>) -> UnsafeMutablePointer<uv_stream_t> {
        let t = allocateZeroed(uv_tcp_t.self)
        uvReport(uv_tcp_init(loop, t), "uv_tcp_init (a TCP connection)")
        return asStream(t)
    }

    /// Replies go out as soon as they are written (the host coalesces per loop pass itself).
    static func accepted(_ stream: UnsafeMutablePointer<uv_stream_t>) {
        uvReport(uv_tcp_nodelay(UnsafeMutableRawPointer(stream).assumingMemoryBound(to: uv_tcp_t.self), 1), "uv_tcp_nodelay")
    }

    /// `HOST:PORT` of the peer, for the logs.
    static func describePeer(_ stream: UnsafeMutablePointer<uv_stream_t>) -> String? {
        var storage = sockaddr_storage()
        var len = Int32(MemoryLayout<sockaddr_storage>.size)
        let tcp = UnsafeMutableRawPointer(stream).assumingMemoryBound(to: uv_tcp_t.self)
        let ok = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_getpeername(tcp, $0, &len) == 0 }
        }
        guard ok else { return nil }
        var name = [CChar](repeating: 0, count: 64)
        let family = storage.ss_family
        return withUnsafePointer(to: &storage) { p -> String? in
            if family == sa_family_t(AF_INET6) {
                return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { a in
                    uv_ip6_name(a, &name, name.count)
                    return "[\(String(cString: name))]:\(UInt16(bigEndian: a.pointee.sin6_port))"
                }
            }
            return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { a in
                uv_ip4_name(a, &name, name.count)
                return "\(String(cString: name)):\(UInt16(bigEndian: a.pointee.sin_port))"
            }
        }
    }
}
