import GreenroomHost
import GreenroomWeb

/// Where and how to listen (docs/security.md), as `greenroom serve`'s flags give it.
public struct ListenOptions {
    /// The Unix socket path; nil for the default location.
    public var socketPath: String?
    /// Network listeners besides the Unix socket, in order: `tcp:HOST:PORT` (lines) and
    /// `ws:HOST:PORT` (WebSocket at /rpc, with HTTP for the static files).
    public var network: [NetworkListener] = []
    /// Origins a page may connect to a `ws:` listener from, besides the listener's own ("*": any).
    public var allowedOrigins: [String] = []
    public var bindAny = false
    /// Unix peers with these uids are accepted besides the host's own.
    public var allowedUIDs: [UInt32] = []
    public init() {}

    /// The listeners these options describe, for `host`'s limits and token: the Unix socket first,
    /// then each network listener in order. Nothing is bound yet; a malformed address or one the
    /// bind rules refuse throws `ServerSetupError` here.
    public func listeners(for host: Host) throws -> [Listener] {
        let maxMessageBytes = host.config.limits.maxMessageBytes
        var list: [Listener] = [UnixSocketListener(path: socketPath ?? defaultSocketPath(), isDefault: socketPath == nil,
                                                   allowedUIDs: allowedUIDs, maxMessageBytes: maxMessageBytes)]
        let token = host.config.token
        for spec in network {
            let endpoint = try TCPEndpoint(parsing: spec.address)
            let rules = TCPBindRules(bindAny: bindAny, hasToken: token != nil)
            switch spec.kind {
            case .tcp:
                list.append(try TCPLineListener(endpoint: endpoint, rules: rules, maxMessageBytes: maxMessageBytes))
            case .ws:
                list.append(try WebSocketListener(endpoint: endpoint, rules: rules, allowedOrigins: allowedOrigins, token: token,
                                                  maxMessageBytes: maxMessageBytes, files: .standard(openRPC: Array(GreenroomProtocol.documentText.utf8))))
            }
        }
        return list
    }
}

/// One network listener as given on the command line: its protocol and "HOST:PORT".
public struct NetworkListener: Equatable {
    public enum Kind: String { case tcp, ws }
    public var kind: Kind
    public var address: String

    public init(kind: Kind, address: String) {
        self.kind = kind
        self.address = address
    }

    /// Parses `tcp:HOST:PORT` or `ws:HOST:PORT`.
    public init?(_ spec: String) {
        for kind in [Kind.tcp, .ws] where spec.hasPrefix(kind.rawValue + ":") {
            self.init(kind: kind, address: String(spec.dropFirst(kind.rawValue.count + 1)))
            return
        }
        return nil
    }
}
