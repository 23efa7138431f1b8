import GreenroomRPC
import Logging

/// Everything the host is told at start-up. The server fills it from flags; tests build it directly.
public struct HostConfig {
    public enum ClockMode: String, Sendable { case real, virtual }

    public var clockMode: ClockMode = .real
    public var limits = RPCLimits()
    public var maxConnections = 1024
    public var maxOutboundBytes = 8 << 20
    /// A peer paused by backpressure, or with more than `maxOutboundBytes` queued, that takes no bytes
    /// for this long is closed as a slow reader (the server's watchdog).
    public var slowReaderGraceMs = 5000
    /// Before `host.auth` succeeds (TCP with a token): the longest message, the time allowed to
    /// authenticate, the wrong tokens allowed, and how many such connections may be open at once
    /// (capped at half of `maxConnections`, so they never lock out authenticated or Unix clients).
    public var maxUnauthenticatedMessageBytes = 4096
    public var authTimeoutMs = 10_000
    public var maxAuthFailures = 3
    public var maxUnauthenticated = 64
    /// Host-wide budget for bytes held in partial (not yet newline-terminated) input lines across all
    /// connections; past it, the connections holding the most are refused first.
    public var maxBufferedInputBytes = 64 << 20
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
    /// Where the host and its transports log (swift-log). A library takes a logger and never makes
    /// one: the executable bootstraps logging from `--log-level`; tests and embedders get silence.
    /// `host.reset` under a real clock too (it is always allowed under the virtual clock).
    public var allowReset = false
    public var logger = Logger(label: "greenroom", factory: { _ in SwiftLogNoOpLogHandler() })

    public init() {}
}

public enum GreenroomVersion {
    public static let version = "0.1.0"
    /// Bumped when the wire contract changes incompatibly.
    public static let protocolVersion = 1
}
