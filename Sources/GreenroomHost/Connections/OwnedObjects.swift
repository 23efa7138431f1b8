import GreenroomRPC

extension HostConnection {
    /// Looks up the object whose id is in param `key`, if this connection owns it; otherwise -32002
    /// naming what was expected. Objects belong to the connection that created them.
    func owned<T>(_ id: String, _ key: String, in table: [String: T], expected: String,
                  owner: (T) -> String?) throws(RPCError) -> T {
        guard let object = table[id], owner(object) == self.id else {
            throw RPCError(.unknownObject, "No \(expected) with id \(id) on this connection",
                           ["id": .string(id), "expected": .string(expected), "path": .string(key)])
        }
        return object
    }
}
