/// The host's open connections: in the order they were opened and by id, with the two tallies the host
/// keeps over all of them (connections still to authenticate, bytes held in partial input lines).
public final class ConnectionTable: Sequence {
    private var ordered: [HostConnection] = []
    private var byID: [String: HostConnection] = [:]
    private var nextNumber = 1

    /// Open connections that still have to call `host.auth`.
    public internal(set) var unauthenticated = 0
    /// Bytes held in partial input lines across all connections.
    public internal(set) var bufferedInputBytes = 0

    init() {}

    public var count: Int { ordered.count }
    public var isEmpty: Bool { ordered.isEmpty }
    public subscript(id: String) -> HostConnection? { byID[id] }
    public func makeIterator() -> IndexingIterator<[HostConnection]> { ordered.makeIterator() }

    /// The id the next connection gets ("conn-1", "conn-2", ...).
    func nextID() -> String {
        defer { nextNumber += 1 }
        return "conn-\(nextNumber)"
    }

    func add(_ c: HostConnection) {
        ordered.append(c)
        byID[c.id] = c
        if !c.isAuthenticated { unauthenticated += 1 }
    }

    /// Takes a closing connection out, with what it counted for.
    func remove(_ c: HostConnection) {
        if !c.isAuthenticated { unauthenticated -= 1 }
        bufferedInputBytes -= c.bufferedInputBytes
        ordered.removeAll { $0 === c }
        byID[c.id] = nil
    }

    /// Takes every connection out (the host is exiting).
    func removeAll() {
        ordered.removeAll()
        byID.removeAll()
        unauthenticated = 0
        bufferedInputBytes = 0
    }

    /// Those holding partial input, most bytes first (the input budget refuses them in this order).
    func holdingInput() -> [HostConnection] {
        ordered.filter { $0.bufferedInputBytes > 0 }.sorted { $0.bufferedInputBytes > $1.bufferedInputBytes }
    }
}
