import CNettle
import GreenroomRPC

/// The server side of the RFC 6455 opening handshake (section 4.2): checks an upgrade request and
/// computes `Sec-WebSocket-Accept` (SHA-1 and base64 from nettle).
public enum WebSocketHandshake {
    static let guid = Array("258EAFA5-E914-47DA-95CA-C5AB0DC85B11".utf8)

    /// base64(SHA-1(key + GUID)).
    public static func acceptValue(forKey key: String) -> String {
        var ctx = sha1_ctx()
        nettle_sha1_init(&ctx)
        let input = Array(key.utf8) + guid
        input.withUnsafeBufferPointer { nettle_sha1_update(&ctx, $0.count, $0.baseAddress) }
        var digest = [UInt8](repeating: 0, count: Int(SHA1_DIGEST_SIZE))
        nettle_sha1_digest(&ctx, digest.count, &digest)
        return base64(digest)
    }

    static func base64(_ bytes: [UInt8]) -> String {
        var encoded = [CChar](repeating: 0, count: (bytes.count + 2) / 3 * 4)
        encoded.withUnsafeMutableBufferPointer { dst in
            nettle_base64_encode_raw(dst.baseAddress, bytes.count, bytes)
        }
        return String(decoding: encoded.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The number of bytes `text` decodes to as strict base64, nil when it is not base64.
    static func decodedLength(_ text: String) -> Int? {
        var ctx = base64_decode_ctx()
        nettle_base64_decode_init(&ctx)
        let src = Array(text.utf8).map { CChar(bitPattern: $0) }
        guard src.allSatisfy({ $0 > 0x20 }) else { return nil }  // nettle skips whitespace; a key has none
        var dst = [UInt8](repeating: 0, count: (src.count + 1) * 6 / 8 + 1)
        var n = dst.count
        guard nettle_base64_decode_update(&ctx, &n, &dst, src.count, src) == 1,
              nettle_base64_decode_final(&ctx) == 1 else { return nil }
        return n
    }

    /// A refusal of the upgrade: the status, the response's extra headers and the reason.
    public struct Failure: Error, Equatable, Sendable {
        public var status: Int
        public var reason: String
        public var headers: [HTTPHeader] = []
    }

    public struct HTTPHeader: Equatable, Sendable {
        public var name: String
        public var value: String
    }

    /// Checks that `head` is a WebSocket upgrade a server must accept (RFC 6455 section 4.2.1) and
    /// returns its key.
    public static func validate(_ head: HTTPRequestHead) -> Result<String, Failure> {
        guard head.method == "GET" else {
            return .failure(Failure(status: 405, reason: "a WebSocket upgrade is a GET", headers: [.init(name: "Allow", value: "GET")]))
        }
        guard head.minorVersion >= 1 else { return .failure(Failure(status: 400, reason: "a WebSocket upgrade needs HTTP/1.1")) }
        guard head.tokens("Upgrade").contains("websocket"), head.tokens("Connection").contains("upgrade") else {
            return .failure(Failure(status: 426, reason: "this path takes a WebSocket upgrade (Upgrade: websocket, Connection: Upgrade)",
                                    headers: [.init(name: "Upgrade", value: "websocket"), .init(name: "Connection", value: "Upgrade")]))
        }
        guard head.value("Sec-WebSocket-Version") == "13" else {
            return .failure(Failure(status: 426, reason: "only WebSocket version 13 is spoken",
                                    headers: [.init(name: "Sec-WebSocket-Version", value: "13")]))
        }
        guard let key = head.value("Sec-WebSocket-Key"), decodedLength(key) == 16 else {
            return .failure(Failure(status: 400, reason: "Sec-WebSocket-Key must be 16 bytes in base64"))
        }
        return .success(key)
    }
}
