/// Host time in milliseconds since the host started: a monotonic real clock, or `VirtualClock` for
/// deterministic scripts. Core never reads a clock: the host passes the time in.
public protocol HostClock: AnyObject {
    /// Milliseconds since the host started.
    var nowMs: Double { get }
    /// True when time moves only by `advance`.
    var isVirtual: Bool { get }
}

/// A clock that moves only when told to. Every run of a script against it is identical.
public final class VirtualClock: HostClock {
    public private(set) var nowMs: Double
    public var isVirtual: Bool { true }

    public init(startMs: Double = 0) { nowMs = startMs }

    /// The latest time it can show exactly: 2^53 ms (past it a double no longer holds every millisecond).
    /// It never moves past it, and nothing may be due after it.
    public static let latestExactMs = 9.007199254740992e15

    /// Moves time forward to `ms`; time never goes back.
    public func set(_ ms: Double) {
        if ms > nowMs { nowMs = ms }
    }
}

/// The real clock: read through a function the server provides (libuv's monotonic hrtime).
public final class FunctionClock: HostClock {
    private let read: () -> Double
    public var isVirtual: Bool { false }
    public var nowMs: Double { read() }
    public init(_ read: @escaping () -> Double) { self.read = read }
}
