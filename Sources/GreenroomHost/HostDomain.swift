import GreenroomJSON
import GreenroomRPC

/// A part of the host (containers with their stacks and pools, page sessions, range sessions) that adds
/// methods and takes part in the host-wide moments: a connection closing, a memory warning, stats,
/// shutdown.
public protocol HostDomain: AnyObject {
    /// Adds this component's methods.
    func register(into registry: inout MethodRegistry<HostConnection>)
    /// Tears down the objects `connection` owns, with correct lifecycle events.
    func connectionClosed(_ connection: HostConnection) async
    /// Purges what it can; returns what it purged (merged into the `host.memoryWarning` reply).
    func memoryWarning(level: String, caller: HostConnection?) async -> JSONObject
    /// Adds its counters to `host.stats`.
    func addStats(to stats: inout JSONObject)
    /// `host.reset`: every connection's objects were torn down (`connectionClosed`); go back to how the
    /// host started (no pools, no scripted classes, ids from 1). Returns what it removed.
    func reset(caller: HostConnection) async -> JSONObject
}

extension HostDomain {
    public func connectionClosed(_ connection: HostConnection) async {}
    public func memoryWarning(level: String, caller: HostConnection?) async -> JSONObject { [:] }
    public func addStats(to stats: inout JSONObject) {}
    public func reset(caller: HostConnection) async -> JSONObject { [:] }
}
