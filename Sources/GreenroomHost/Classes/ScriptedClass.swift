import GreenroomCore
import GreenroomJSON
import GreenroomRPC
import Glibc

/// What a scripted hook does: take `costMs` of real time, then return `output` (or fail). The time is
/// the main-thread work it stands for: its call (and whatever waits behind it in the call lane) takes
/// that long, while the host goes on serving everyone else.
public struct ScriptedHook: Sendable {
    public var costMs: Double = 0
    public var output: JSONValue?
    public var fail = false
}

/// A class defined at run time with `classes.define`, so tests and prototypes need no compiled plugin.
/// Instances hold `memoryBytes` of real, touched memory, so pools and purges move real bytes.
public final class ScriptedClass: ContainerClass {
    public let name: String
    public let hooks: [Hook: ScriptedHook]
    public let memoryBytes: Int
    public var pluginName: String? { nil }
    public var isScripted: Bool { true }
    /// The optional hooks it lists (a scripted class asks for one by naming it in `hooks`).
    public let optionalHooks: Set<Hook>
    /// How a hook's cost is spent: set by the host to park the call in the call lane; nil burns the CPU
    /// where the hook runs.
    var spend: ((Double) async -> Void)?

    public init(name: String, hooks: [Hook: ScriptedHook], memoryBytes: Int) {
        self.name = name
        self.hooks = hooks
        self.memoryBytes = memoryBytes
        optionalHooks = Hook.optional.filter { hooks[$0] != nil }
    }

    public func makeInstance(containerID: String) async throws(HookFailure) -> ContainerInstance {
        ScriptedInstance(cls: self)
    }

    /// Parses `classes.define` params.
    static func define(_ p: ClassesDefine.Params) throws(RPCError) -> ScriptedClass {
        let name = p.name
        guard !name.isEmpty, name.utf8.count <= 128 else { throw .invalidParams(path: "name", "must be 1 to 128 bytes") }
        var hooks: [Hook: ScriptedHook] = [:]
        if let spec = p.hooks {
            for (key, value) in spec.members {
                let path = "hooks.\(key)"
                guard let hook = Hook(rawValue: key) else {
                    throw .invalidParams(path: path, "unknown hook (hooks: \(Hook.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                guard case .object(let o) = value else { throw .invalidParams(path: path, "expected object, got \(value.typeName)") }
                var h = ScriptedHook()
                for key in o.keys where !["costMs", "output", "fail"].contains(key) {
                    throw .invalidParams(path: "\(path).\(key)", "unknown member (known: costMs, output, fail)")
                }
                if let c = o["costMs"], !c.isNull {
                    let cost = try Double.decodeParam(c, path: "\(path).costMs")
                    guard cost >= 0, cost <= 10_000 else { throw .invalidParams(path: "\(path).costMs", "must be between 0 and 10000") }
                    h.costMs = cost
                }
                h.output = o["output"]
                if let f = o["fail"], !f.isNull { h.fail = try Bool.decodeParam(f, path: "\(path).fail") }
                hooks[hook] = h
            }
        }
        let bytes = p.memoryBytes ?? 0
        guard bytes >= 0, bytes <= 1 << 30 else { throw .invalidParams(path: "memoryBytes", "must be between 0 and 1073741824") }
        return ScriptedClass(name: name, hooks: hooks, memoryBytes: bytes)
    }
}

final class ScriptedInstance: ContainerInstance {
    let cls: ScriptedClass
    /// Memory held for `memoryBytes`: mapped and touched so it counts in RSS, unmapped on destroy so a
    /// purge really returns it.
    private var region: UnsafeMutableRawPointer?
    private var regionBytes = 0

    init(cls: ScriptedClass) {
        self.cls = cls
        if cls.memoryBytes > 0 {
            let p = mmap(nil, cls.memoryBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            if let p, p != MAP_FAILED {
                memset(p, 0x5A, cls.memoryBytes)
                region = p
                regionBytes = cls.memoryBytes
            }
        }
    }

    var memoryBytes: Int { regionBytes }

    func run(_ hook: Hook, input: JSONObject) async throws(HookFailure) -> JSONValue? {
        guard let h = cls.hooks[hook] else { return nil }
        if h.costMs > 0 {
            if let spend = cls.spend { await spend(h.costMs) } else { burnCPU(ms: h.costMs) }
        }
        if h.fail { throw HookFailure("\(cls.name).\(hook.rawValue) failed (scripted fail: true)", ["hook": .string(hook.rawValue)]) }
        return h.output
    }

    func destroy() async {
        if let region { munmap(region, regionBytes) }
        region = nil
        regionBytes = 0
    }
}

/// Burns `ms` of this thread's CPU time (real work for the scheduler, not a sleep).
func burnCPU(ms: Double) {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    let start = Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    var x: UInt64 = 0x9E37_79B9
    while true {
        for _ in 0..<1000 { x = x &* 6364136223846793005 &+ 1442695040888963407 }
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        if Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6 - start >= ms { break }
    }
    if x == 42 { print("") }  // keeps the loop from being optimised away
}

/// The built-in class: every hook does nothing.
final class PlainClass: ContainerClass, ContainerInstance {
    let name: String
    init(name: String) { self.name = name }
    var pluginName: String? { nil }
    var isScripted: Bool { false }
    func makeInstance(containerID: String) async throws(HookFailure) -> ContainerInstance { PlainClass(name: name) }
    func run(_ hook: Hook, input: JSONObject) async throws(HookFailure) -> JSONValue? { nil }
    var memoryBytes: Int { 0 }
    func destroy() async {}
}
