/// Error lines for connections the host does not admit.
enum RPCRefusal {
    static func limit(_ max: Int) -> String {
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32005,\"message\":\"Too many connections (limit \(max))\",\"data\":{\"kind\":\"limitExceeded\",\"limit\":\"connections\",\"max\":\(max)}}}\n"
    }
    static func unauthenticatedLimit(_ max: Int) -> String {
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32005,\"message\":\"Too many connections waiting to authenticate (limit \(max))\",\"data\":{\"kind\":\"limitExceeded\",\"limit\":\"unauthenticatedConnections\",\"max\":\(max)}}}\n"
    }
    static func peer(uid: UInt32?) -> String {
        let u = uid.map { String($0) } ?? "null"
        return "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32006,\"message\":\"Unauthorized: peer uid \(u) is not the host's\",\"data\":{\"kind\":\"unauthorized\",\"peerUid\":\(u)}}}\n"
    }
}
