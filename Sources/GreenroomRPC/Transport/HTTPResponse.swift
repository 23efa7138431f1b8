import GreenroomJSON

/// A complete HTTP/1.1 response that ends the connection (`Connection: close`): what a transport
/// answers to HTTP it does not serve as messages (an HTTP request on `tcp:`, a refused upgrade, a
/// static file).
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, contentType: String = "text/plain; charset=utf-8", headers: [(String, String)] = [], body: [UInt8]) {
        self.status = status
        self.headers = [("Content-Type", contentType)] + headers
        self.body = body
    }

    /// A plain-text error: the body is `text` and a newline.
    public static func error(_ status: Int, _ text: String, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: Array((text + "\n").utf8))
    }

    /// The reason phrase for the statuses Greenroom sends.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 101: return "Switching Protocols"
        case 200: return "OK"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 426: return "Upgrade Required"
        case 431: return "Request Header Fields Too Large"
        case 505: return "HTTP Version Not Supported"
        default: return "Error"
        }
    }

    /// Appends the response's bytes (without the body for a HEAD request).
    public func write(into out: ByteBuffer, headOnly: Bool = false) {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n"
        out.append(Array(head.utf8))
        if !headOnly { out.append(body) }
    }
}
