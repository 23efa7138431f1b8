import Glibc

/// Nanoseconds on the monotonic clock: for deadlines and intervals (never wall time). The one reading of
/// it for the host, its worker wire, the read-ahead parser and the bench.
@inline(__always) @Sendable public func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
