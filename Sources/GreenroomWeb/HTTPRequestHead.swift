/// The request line and headers of an HTTP/1.x request: all the WebSocket listener reads of HTTP
/// (an upgrade or a GET carries no body it needs).
public struct HTTPRequestHead: Sendable, Equatable {
    public var method: String
    /// The request target as sent ("/rpc?token=..."): may hold a token, so it is never logged.
    public var target: String
    /// The minor version of HTTP/1.x.
    public var minorVersion: Int
    /// Header fields in order, names as sent.
    public var headers: [Field]

    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    /// The target's path, without the query.
    public var path: Substring { target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0] }

    /// The value of a query parameter of the target (no percent-decoding: tokens are hex).
    public func queryParameter(_ name: String) -> String? {
        guard let q = target.firstIndex(of: "?") else { return nil }
        for pair in target[target.index(after: q)...].split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if kv[0] == name { return kv.count > 1 ? String(kv[1]) : "" }
        }
        return nil
    }

    /// Every value of the header `name` (case-insensitive), in order; repeated fields are separate values.
    public func values(_ name: String) -> [String] {
        let lower = name.lowercased()
        return headers.filter { $0.name.lowercased() == lower }.map(\.value)
    }

    /// The single value of header `name`; nil when absent (or when sent more than once).
    public func value(_ name: String) -> String? {
        let all = values(name)
        return all.count == 1 ? all[0] : nil
    }

    /// The comma-separated tokens of header `name` over all its fields, trimmed and lowercased.
    public func tokens(_ name: String) -> [String] {
        values(name).flatMap { $0.split(separator: ",") }.map { $0.trimmingSpaces().lowercased() }.filter { !$0.isEmpty }
    }
}

/// Reads an HTTP/1.x request head incrementally and strictly: the request line `METHOD SP TARGET SP
/// HTTP/1.x`, header fields `name: value`, each line ended by CRLF, an empty line last. Anything else
/// (a bare LF, folded lines, a space before the colon, control characters, a head over `maxBytes`) is
/// refused with the status to answer. Pure: bytes in, a result out, so it is tested byte by byte.
public struct HTTPHeadParser {
    public enum Result: Equatable {
        /// The head is not complete yet.
        case needMore
        /// The head, and the bytes that followed it in the input (WebSocket frames sent early).
        case head(HTTPRequestHead, rest: [UInt8])
        /// Not an acceptable HTTP request head: answer `status` with `reason` and close.
        case failed(status: Int, reason: String)
    }

    public let maxBytes: Int
    private var buffer: [UInt8] = []
    private var finished = false

    public init(maxBytes: Int = 8192) { self.maxBytes = maxBytes }

    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Result {
        guard !finished else { return .needMore }
        // Look for CRLF CRLF from just before the new bytes.
        let searchFrom = max(0, buffer.count - 3)
        buffer.append(contentsOf: bytes)
        var end: Int?
        if buffer.count >= 4 {
            var i = searchFrom
            while i + 3 < buffer.count {
                if buffer[i] == 0x0D && buffer[i + 1] == 0x0A && buffer[i + 2] == 0x0D && buffer[i + 3] == 0x0A { end = i; break }
                i += 1
            }
        }
        guard let end else {
            if buffer.count > maxBytes {
                finished = true
                return .failed(status: 431, reason: "the request head is longer than \(maxBytes) bytes")
            }
            // A bare LF is refused as soon as it is seen, not after waiting for a CRLF CRLF that never comes.
            for i in max(0, searchFrom)..<buffer.count where buffer[i] == 0x0A && (i == 0 || buffer[i - 1] != 0x0D) {
                finished = true
                return .failed(status: 400, reason: "lines of an HTTP request must end with CRLF")
            }
            return .needMore
        }
        finished = true
        if end + 4 > maxBytes { return .failed(status: 431, reason: "the request head is longer than \(maxBytes) bytes") }
        let rest = Array(buffer[(end + 4)...])
        switch Self.parse(buffer[..<end]) {
        case .success(let head): return .head(head, rest: rest)
        case .failure(let f): return .failed(status: f.status, reason: f.reason)
        }
    }

    struct Failure: Error { var status: Int; var reason: String }

    /// Parses the head without its final CRLF CRLF.
    static func parse(_ bytes: ArraySlice<UInt8>) -> Swift.Result<HTTPRequestHead, Failure> {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == 0x0A { return .failure(Failure(status: 400, reason: "lines of an HTTP request must end with CRLF")) }
            if bytes[i] == 0x0D {
                guard i + 1 < bytes.endIndex, bytes[i + 1] == 0x0A else {
                    return .failure(Failure(status: 400, reason: "a bare CR in the request head"))
                }
                lines.append(bytes[start..<i])
                i += 2
                start = i
                continue
            }
            i += 1
        }
        lines.append(bytes[start..<bytes.endIndex])
        guard let requestLine = lines.first else { return .failure(Failure(status: 400, reason: "no request line")) }
        let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
              parts[0].allSatisfy(isTokenByte), parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(Failure(status: 400, reason: "the request line must be METHOD SP TARGET SP HTTP/1.x"))
        }
        let version = Array(parts[2])
        guard version.count == 8, Array(version[0..<7]) == Array("HTTP/1.".utf8), (0x30...0x39).contains(version[7]) else {
            if version.starts(with: Array("HTTP/".utf8)) {
                return .failure(Failure(status: 505, reason: "only HTTP/1.x is served"))
            }
            return .failure(Failure(status: 400, reason: "the request line must be METHOD SP TARGET SP HTTP/1.x"))
        }
        var head = HTTPRequestHead(method: String(decoding: parts[0], as: UTF8.self), target: String(decoding: parts[1], as: UTF8.self),
                                   minorVersion: Int(version[7] - 0x30), headers: [])
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: 0x3A) else {
                return .failure(Failure(status: 400, reason: "a header line without a colon"))
            }
            let name = line[line.startIndex..<colon]
            // RFC 9112: no whitespace between the name and the colon; obsolete line folding is refused.
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
                return .failure(Failure(status: 400, reason: "a header name that is not a token"))
            }
            var value = line[(colon + 1)...]
            while let f = value.first, f == 0x20 || f == 0x09 { value = value.dropFirst() }
            while let l = value.last, l == 0x20 || l == 0x09 { value = value.dropLast() }
            guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                return .failure(Failure(status: 400, reason: "a control character in a header value"))
            }
            head.headers.append(.init(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
        }
        return .success(head)
    }

    /// RFC 9110 `tchar`.
    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: return true
        default: return false
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
