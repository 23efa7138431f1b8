import GreenroomRPC

/// Who may use the WebSocket listener, decided from the upgrade's headers alone (pure functions).
///
/// Browsers let any page open a WebSocket to any host, so without these rules every page the user
/// visits could drive the host (cross-site WebSocket hijacking, CWE-1385), and a name rebound to
/// 127.0.0.1 could reach it (DNS rebinding). As Chrome's DevTools endpoint does: no `Origin` (a native
/// client) is accepted, the listener's own origin is accepted, any other needs `--allow-origin`; the
/// `Host` header must name a loopback address unless the host was started with `--bind-any` (which
/// requires a token).
public struct BrowserPolicy: Sendable {
    /// `HOST:PORT` of the listener as it reports itself ("127.0.0.1:8765", "[::1]:8765").
    public var listenerAuthority: String
    /// Origins allowed besides the listener's own (`--allow-origin`); "*" allows every origin.
    public var allowedOrigins: [String]
    /// `--bind-any`: any Host header is accepted (a token is then required).
    public var bindAny: Bool
    /// The host's token, when it has one: an upgrade carrying it is authenticated.
    public var token: String?

    public init(listenerAuthority: String, allowedOrigins: [String] = [], bindAny: Bool = false, token: String? = nil) {
        self.listenerAuthority = listenerAuthority
        self.allowedOrigins = allowedOrigins
        self.bindAny = bindAny
        self.token = token
    }

    /// The listener's port, from its authority.
    var port: Substring { listenerAuthority[listenerAuthority.index(after: listenerAuthority.lastIndex(of: ":")!)...] }

    /// The origins a page served by this listener has: `http://HOST:PORT`, and `http://localhost:PORT`
    /// when the listener is on loopback.
    public var ownOrigins: [String] {
        var own = ["http://\(listenerAuthority)"]
        let host = Self.hostName(ofAuthority: listenerAuthority)
        if Self.isLoopbackHost(host) && host != "localhost" { own.append("http://localhost:\(port)") }
        return own
    }

    /// A refusal: the HTTP status, the rule that refused (for the counters) and the body.
    public struct Refusal: Error, Equatable, Sendable {
        public var status: Int
        public var rule: String
        public var message: String
    }

    /// Checks the `Origin` header (nil when absent).
    public func checkOrigin(_ origin: String?) -> Refusal? {
        guard let origin else { return nil }
        if ownOrigins.contains(origin) || allowedOrigins.contains("*") || allowedOrigins.contains(origin) { return nil }
        // The origin is echoed: it is the page's own, never a secret.
        return Refusal(status: 403, rule: "origin", message:
            "Origin \(origin) may not use this Greenroom host: a page may connect only from the host's own origin (\(ownOrigins.joined(separator: ", "))). To allow this origin, start the host with --allow-origin \(origin) (repeatable).")
    }

    /// Checks the `Host` header (nil when absent, which HTTP/1.1 forbids).
    public func checkHost(_ host: String?) -> Refusal? {
        guard let host, !host.isEmpty else {
            return Refusal(status: 400, rule: "host", message: "The request has no Host header.")
        }
        if bindAny { return nil }
        guard Self.isLoopbackHost(Self.hostName(ofAuthority: host)) else {
            return Refusal(status: 403, rule: "host", message:
                "Host \(host) is not a loopback name or address: the host answers only requests for localhost, 127.0.0.0/8 or [::1] (a defence against DNS rebinding). To serve other names, start it with --bind-any and --token-file.")
        }
        return nil
    }

    /// Where the upgrade carries a token: the `token` query parameter, or a `Sec-WebSocket-Protocol`
    /// entry `greenroom.token.TOKEN` (browsers cannot set other headers).
    public static let tokenProtocolPrefix = "greenroom.token."

    /// The token the upgrade carries, if any.
    public static func token(in head: HTTPRequestHead) -> String? {
        if let t = head.queryParameter("token") { return t }
        for p in head.values("Sec-WebSocket-Protocol").flatMap({ $0.split(separator: ",") }) {
            let entry = p.trimmingSpaces()
            if entry.hasPrefix(tokenProtocolPrefix) { return String(entry.dropFirst(tokenProtocolPrefix.count)) }
        }
        return nil
    }

    /// Checks a token the upgrade carries: nil (not authenticated, `host.auth` may follow) when it
    /// carries none or the host has none to check; true when it matches; a refusal when it does not.
    /// The token is never echoed.
    public func checkToken(_ given: String?) -> Result<Bool, Refusal> {
        guard let given else { return .success(token == nil) }
        guard let token else { return .success(true) }
        guard constantTimeEqual(given, token) else {
            return .failure(Refusal(status: 401, rule: "token", message: "The token given in the upgrade is not the host's token."))
        }
        return .success(true)
    }

    /// The host part of `HOST[:PORT]` ("[::1]:80" -> "::1").
    public static func hostName(ofAuthority authority: String) -> String {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return authority }
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        if let colon = authority.lastIndex(of: ":") { return String(authority[..<colon]) }
        return authority
    }

    /// `localhost`, a name under `.localhost` (RFC 6761), an address in 127.0.0.0/8 or `::1`.
    public static func isLoopbackHost(_ host: String) -> Bool {
        let h = host.lowercased().hasSuffix(".") ? String(host.lowercased().dropLast()) : host.lowercased()
        if h == "localhost" || h.hasSuffix(".localhost") || h == "::1" { return true }
        let octets = h.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { o in
            !o.isEmpty && o.count <= 3 && o.allSatisfy(\.isASCII) && o.allSatisfy(\.isNumber) && Int(o)! <= 255
        }
    }
}
