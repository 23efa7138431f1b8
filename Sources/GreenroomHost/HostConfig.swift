import GreenroomCore
import GreenroomRPC
import Logging

/// Everything the host is told at start-up. The server fills it from flags; tests build it directly.
public struct HostConfig {
    public enum ClockMode: String, Sendable { case real, virtual }

    public var clockMode: ClockMode = .real
    /// The UIKit whose hooks containers get (`UIKitGeneration`): iOS 17's `viewIsAppearing` by default.
    public var uikit = UIKitGeneration.current
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
    /// Host-wide budget for the memory scripted classes' instances hold (`memoryBytes` times live
    /// instances); creating one past it is -32005.
    public var scriptedMemoryBudgetBytes = 1 << 30
    /// Calls that wait (on a plugin worker or a scripted cost) or wait their turn behind one, host-wide:
    /// past it a call that would wait gets -32005 with `data.limit: "waitingCalls"`. A connection has at
    /// most one such line at a time (its later lines wait behind it, unread).
    public var maxWaitingCalls = 1024
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
    /// After a memory warning, pools refill only on demand until this much host time passed.
    public var poolCoolDownMs: Double = 5000
    /// Host-wide budget for the bytes idle pooled containers hold.
    public var poolBudgetBytes = 256 << 20
    /// `serve --record DIR`: a sink for each connection's transcript (nil: nothing is recorded, at no cost).
    public var transcriptSink: ((_ connection: String) -> TranscriptSink?)?
    public var logger = Logger(label: "greenroom", factory: { _ in SwiftLogNoOpLogHandler() })
    /// How native plugins run: isolation, deadlines, output limit, restarts.
    public var plugins = PluginConfig()

    public init() {}
}

public enum GreenroomVersion {
    public static let version = "0.1.0"
    /// Bumped when the wire contract changes incompatibly.
    public static let protocolVersion = 1
}

/// How native plugins run (`serve --plugin-isolation`, `--hook-timeout-ms`, `--plugin-output-limit`,
/// `--plugin-restart-limit`).
public struct PluginConfig: Sendable {
    public enum Isolation: String, Sendable { case process, none }
    /// `process`: each plugin in a worker process of its own; `none`: dlopened into the host.
    public var isolation: Isolation = .process
    /// A hook (or create, destroy) running longer fails its container and its worker is killed.
    /// In-process plugins cannot be stopped, so there it is not enforced.
    public var hookTimeoutMs = 2000
    /// The hooks one call runs in a worker go there in one message (`Containers.planned`).
    public var batchesHooks = true
    /// Most bytes of output one hook may give; more fails the hook (never a truncated reply).
    public var maxOutputBytes = 1 << 20
    /// Most worker restarts per plugin in a minute; one more crash marks the plugin failed until
    /// `plugins.restart`.
    public var restartLimitPerMinute = 5
    /// How long a starting worker may take to send its ready frame (a process start, a library load or
    /// an interpreter's start-up); past it the worker is killed and refused.
    public var startTimeoutMs = 20_000
    /// The executable started as a plugin worker (`greenroom plugin-worker`).
    public var workerExecutable = "/proc/self/exe"
    public init() {}
}
