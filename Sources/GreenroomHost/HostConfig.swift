import GreenroomRPC

/// Everything the host is told at start-up. The server fills it from flags; tests build it directly.
public struct HostConfig {
    public enum ClockMode: String, Sendable { case real, virtual }

    public var clockMode: ClockMode = .real
    public var limits = RPCLimits()
    public var maxConnections = 1024
    public var maxOutboundBytes = 8 << 20
    /// Host-wide budget for the memory scripted classes' instances hold (`memoryBytes` times live
    /// instances); creating one past it is -32005.
    public var scriptedMemoryBudgetBytes = 1 << 30
    /// When set, TCP clients must call `host.auth` with this token before anything else.
    public var token: String?
    public var pid = 0
    /// Reads the process's resident set size; the server passes one that reads /proc.
    public var residentBytes: () -> Int = { 0 }
    /// Idle-task time slice per loop pass, in ms.
    public var taskSliceMs: Double = 4
    /// Read pipelined requests ahead of the loop on a second thread (the server enables it when the
    /// machine has more than one CPU).
    public var readAhead = false

    public init() {}
}

public enum GreenroomVersion {
    public static let version = "0.1.0"
    /// Bumped when the wire contract changes incompatibly.
    public static let protocolVersion = 1
}
