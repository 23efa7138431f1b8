/// Ways to cut a byte stream: every codec and parser must give the same result for each.
enum Feeding {
    /// All at once, one byte at a time, and cut in two at every point.
    static func cuts(_ bytes: [UInt8]) -> [(name: String, chunks: [[UInt8]])] {
        var result: [(String, [[UInt8]])] = [("all at once", [bytes]), ("byte by byte", bytes.map { [$0] })]
        for cut in 0...bytes.count { result.append(("split at \(cut)", [Array(bytes[..<cut]), Array(bytes[cut...])])) }
        return result
    }
}

/// Client-side WebSocket frames for tests (masked, as a client must send them).
enum ClientFrame {
    static let text: UInt8 = 0x1, binary: UInt8 = 0x2, continuation: UInt8 = 0x0, close: UInt8 = 0x8, ping: UInt8 = 0x9, pong: UInt8 = 0xA

    static func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true, rsv: UInt8 = 0) -> [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | (rsv << 4) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            out.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            out.append(maskBit | 126)
            out += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            out.append(maskBit | 127)
            for i in (0..<8).reversed() { out.append(UInt8((payload.count >> (8 * i)) & 0xFF)) }
        }
        guard masked else { return out + payload }
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        out += key
        for (i, b) in payload.enumerated() { out.append(b ^ key[i % 4]) }
        return out
    }

    static func text(_ s: String, fin: Bool = true) -> [UInt8] { frame(text, Array(s.utf8), fin: fin) }

    static func close(_ code: UInt16, _ reason: String = "") -> [UInt8] {
        frame(close, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8))
    }
}

/// Server-side frames as read back from the codec's output.
struct ServerFrame: Equatable {
    var fin: Bool
    var opcode: UInt8
    var payload: [UInt8]

    var text: String { String(decoding: payload, as: UTF8.self) }
    var closeCode: Int? { opcode == 8 && payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil }

    /// Splits `bytes` into frames; fails the parse (nil) on a masked or truncated frame.
    static func parse(_ bytes: [UInt8]) -> [ServerFrame]? {
        var frames: [ServerFrame] = []
        var i = 0
        while i < bytes.count {
            guard i + 2 <= bytes.count, bytes[i + 1] & 0x80 == 0 else { return nil }
            var len = Int(bytes[i + 1] & 0x7F)
            var p = i + 2
            if len == 126 {
                guard p + 2 <= bytes.count else { return nil }
                len = Int(bytes[p]) << 8 | Int(bytes[p + 1])
                guard len >= 126 else { return nil }  // minimal length encoding
                p += 2
            } else if len == 127 {
                guard p + 8 <= bytes.count else { return nil }
                len = 0
                for k in 0..<8 { len = len << 8 | Int(bytes[p + k]) }
                guard len > 0xFFFF else { return nil }
                p += 8
            }
            guard p + len <= bytes.count else { return nil }
            frames.append(ServerFrame(fin: bytes[i] & 0x80 != 0, opcode: bytes[i] & 0x0F, payload: Array(bytes[p..<(p + len)])))
            i = p + len
        }
        return frames
    }
}
