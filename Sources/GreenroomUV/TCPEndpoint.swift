/// A network listener's `HOST:PORT` ("127.0.0.1:7000", "[::1]:7000", "localhost:0"), parsed.
struct TCPEndpoint: Equatable {
    /// An IPv4 or IPv6 literal, without brackets; `localhost` is read as 127.0.0.1.
    var host: String
    /// 0 picks a free port when bound.
    var port: Int32

    init(host: String, port: Int32) {
        self.host = host
        self.port = port
    }

    init(parsing text: String) throws {
        guard let colon = text.lastIndex(of: ":"), let port = Int32(text[text.index(after: colon)...]),
              (0...65535).contains(port) else {
            throw ServerSetupError("--listen tcp:HOST:PORT or ws:HOST:PORT expected, got \(text)")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" { host = "127.0.0.1" }
        self.init(host: host, port: port)
    }

    var isIPv6: Bool { host.contains(":") }

    var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

    /// The host as addresses show it: an IPv6 literal in brackets.
    var shownHost: String { isIPv6 ? "[\(host)]" : host }
}
