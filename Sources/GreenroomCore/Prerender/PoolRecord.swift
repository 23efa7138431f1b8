/// How a pool refills (docs/pools.md).
public enum PoolPolicy: String, Sendable, CaseIterable {
    /// The prerendering article's: a miss returns a fresh container and schedules one warm-up for next time.
    case lazy
    /// Keeps `depth` containers warm, refilling after every take.
    case eager
}

/// One pool per class and size; pools never mix classes.
public struct PoolKey: Hashable, Sendable, CustomStringConvertible {
    public let className: String
    public let size: Size
    public init(className: String, size: Size) {
        self.className = className
        self.size = size
    }
    /// "Card@375x667", "Card@320.25x480": exact, so pools at fractional sizes never share a key.
    public var description: String { "\(className)@\(Self.number(size.width))x\(Self.number(size.height))" }

    static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}

/// A prerender pool: its green-room stack holds the idle (warm) containers, newest on top.
public final class PoolRecord {
    public let key: PoolKey
    public var depth: Int
    public var policy: PoolPolicy
    public let greenRoom: StackRecord
    /// Warm-ups queued or running.
    public var warming = 0
    public var hits = 0
    public var misses = 0
    public var warmed = 0
    public var purged = 0
    public var evicted = 0
    /// After a memory warning: no refill before this host time except on demand.
    public var coolDownUntil: Double?

    public init(key: PoolKey, depth: Int, policy: PoolPolicy, greenRoom: StackRecord) {
        self.key = key
        self.depth = depth
        self.policy = policy
        self.greenRoom = greenRoom
    }

    public var idle: [ContainerRecord] { greenRoom.items }

    public func isCoolingDown(now: Double) -> Bool {
        if let until = coolDownUntil, now < until { return true }
        return false
    }

    /// Warm-ups an eager pool should queue now to get back to `depth`.
    public func refillCount(now: Double) -> Int {
        guard policy == .eager, !isCoolingDown(now: now) else { return 0 }
        return max(0, depth - greenRoom.items.count - warming)
    }
}
