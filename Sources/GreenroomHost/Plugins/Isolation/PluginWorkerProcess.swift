import Glibc
import GreenroomRPC
import GreenroomCore
import GreenroomJSON

/// How a worker ended: what the call in flight reports in its -32004 `data`.
struct WorkerDeath: Error {
    /// crashed (a signal), exited, closed (its socket), timeout, protocol.
    var reason: String
    var signal: Int32?
    var exitStatus: Int32?
    var detail: String

    var data: JSONObject {
        var d: JSONObject = ["reason": .string(reason)]
        if let signal {
            d["signal"] = .int(Int(signal))
            d["signalName"] = .string(WorkerDeath.signalName(signal))
        }
        if let exitStatus { d["exitStatus"] = .int(Int(exitStatus)) }
        return d
    }

    static func signalName(_ s: Int32) -> String {
        switch s {
        case SIGABRT: "SIGABRT"
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGFPE: "SIGFPE"
        case SIGILL: "SIGILL"
        case SIGKILL: "SIGKILL"
        case SIGTERM: "SIGTERM"
        case SIGTRAP: "SIGTRAP"
        case SIGPIPE: "SIGPIPE"
        default: "signal \(s)"
        }
    }
}

/// What a worker runs: a native library (loaded by `greenroom plugin-worker`) or any executable that
/// speaks the worker protocol (`serve --plugin-command`; docs/worker-protocol.md).
public enum WorkerSource: Equatable, Sendable, CustomStringConvertible {
    case library(String)
    case command([String])

    /// The library's path, or the command as one line (for messages and `host.info`).
    public var description: String {
        switch self {
        case .library(let path): path
        case .command(let argv): CommandLineWords.join(argv)
        }
    }

    var kind: String {
        switch self {
        case .library: "library"
        case .command: "command"
        }
    }
}

/// One running worker process, seen from the host: its pid and its end of the socketpair, as a link the
/// loop reads. A call queues its request and parks in the call lane until the loop has read the reply
/// (or the hook deadline passes): nothing waits on the loop's thread meanwhile.
final class PluginWorkerProcess {
    let pid: pid_t
    /// The socket (nil once closed).
    private(set) var link: WorkerLink?
    /// What the worker wrote and no frame was made of yet. Its `maxBody` is the largest reply accepted (the
    /// worker enforces the output limit; more is a protocol error).
    private var incoming: FrameBuffer
    let plugin: String
    let version: String
    let classNames: [String]
    /// The optional hooks each class asked for (by name; classes that asked for none are absent).
    let optionalHooks: [String: Set<Hook>]
    /// The worker protocol version it speaks (its `ready` frame).
    let protocolVersion: Int

    /// Which hook of a batch the worker is in (nil: the page could not be made, or the worker is a
    /// command: see `streamsBatches`).
    private let progress: BatchProgress?
    /// A worker without the shared page that said `"batches": true` in its ready frame: it writes each
    /// hook's reply of a batch as that hook ends, so the replies themselves say which hook it is in.
    /// Workers with neither get one hook at a time.
    private let streamsBatches: Bool

    /// Where calls park while the worker answers.
    private let lane: CallLane

    private init(pid: pid_t, link: WorkerLink, incoming: FrameBuffer, ready: Ready, progress: BatchProgress?,
                 lane: CallLane) {
        self.lane = lane
        self.optionalHooks = ready.optionalHooks
        self.progress = progress
        self.pid = pid
        self.link = link
        self.incoming = incoming
        self.plugin = ready.plugin
        self.version = ready.version
        self.classNames = ready.classes
        self.protocolVersion = ready.protocolVersion
        self.streamsBatches = progress == nil && ready.batches
    }

    /// What a worker's `ready` frame declares.
    struct Ready {
        var protocolVersion: Int
        var plugin: String
        var version: String
        var classes: [String]
        var optionalHooks: [String: Set<Hook>]
        var batches: Bool

        struct Refusal: Error { let why: String }

        /// Reads a ready frame's body, or says in one sentence what is wrong with it.
        static func parse(_ body: [UInt8]) -> Result<Ready, Refusal> {
            guard case .object(let o)? = try? JSONCodec.decode(body, maxDepth: 8) else {
                return .failure(Refusal(why: "its ready frame is not a JSON object"))
            }
            guard case .int(let proto)? = o["protocol"] else {
                return .failure(Refusal(why: "its ready frame names no protocol version (\"protocol\": 1 is what this host speaks)"))
            }
            guard WorkerProtocol.supported.contains(proto) else {
                return .failure(Refusal(why: "it speaks worker protocol version \(proto); this host speaks version "
                    + WorkerProtocol.supported.sorted().map(String.init).joined(separator: ", ")
                    + " (docs/worker-protocol.md)"))
            }
            guard case .string(let plugin)? = o["plugin"], !plugin.isEmpty else {
                return .failure(Refusal(why: "its ready frame has no \"plugin\" name"))
            }
            let version: String = if case .string(let v)? = o["version"] { v } else { "" }
            guard case .array(let names)? = o["classes"], !names.isEmpty else {
                return .failure(Refusal(why: "its ready frame declares no classes"))
            }
            var classes: [String] = []
            for v in names {
                guard case .string(let name) = v, !name.isEmpty else {
                    return .failure(Refusal(why: "its ready frame has a class name that is not a non-empty string"))
                }
                guard !classes.contains(name) else { return .failure(Refusal(why: "it declares class \(name) twice")) }
                classes.append(name)
            }
            var optional: [String: Set<Hook>] = [:]
            if let byClass = o["optionalHooks"], byClass != .null {
                guard case .object(let members) = byClass else {
                    return .failure(Refusal(why: "its ready frame's optionalHooks is not an object of class names"))
                }
                let known = Hook.optional.map(\.rawValue).sorted().joined(separator: ", ")
                for m in members.members {
                    guard classes.contains(m.key) else {
                        return .failure(Refusal(why: "its optionalHooks names class \(m.key), which it does not declare"))
                    }
                    guard case .array(let hooks) = m.value else {
                        return .failure(Refusal(why: "its optionalHooks for class \(m.key) is not an array of hook names"))
                    }
                    var set = Set<Hook>()
                    for h in hooks {
                        guard let name = h.stringValue, let hook = Hook(rawValue: name), Hook.optional.contains(hook) else {
                            return .failure(Refusal(why: "class \(m.key) asks for optional hook \(JSONCodec.encodeString(h)), which is not an optional hook (\(known))"))
                        }
                        set.insert(hook)
                    }
                    if !set.isEmpty { optional[m.key] = set }
                }
            }
            let batches = o["batches"] == .bool(true)
            return .success(Ready(protocolVersion: proto, plugin: plugin, version: version, classes: classes,
                                  optionalHooks: optional, batches: batches))
        }
    }

    /// Starts a worker for `source` (`greenroom plugin-worker` for a library, the command itself for a
    /// command, both through the same executable so that each dies with the host), says hello and waits
    /// for its ready frame. A worker that refuses, or says nothing sensible in time, is a start-up error.
    /// The wait for the ready frame (a process start and a library load) parks in `lane`: at start-up the
    /// loop turns meanwhile; a restart runs in the lane's item, and the loop serves everyone else.
    static func start(_ source: WorkerSource, config: PluginConfig, maxDepth: Int, lane: CallLane)
        async throws(PluginLoadError) -> PluginWorkerProcess
    {
        let label = source.description
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
            throw .worker(path: label, message: "cannot create a socketpair for its worker: errno \(errno)")
        }
        let (host, child) = (fds[0], fds[1])
        _ = fcntl(host, F_SETFD, FD_CLOEXEC)
        _ = fcntl(host, F_SETFL, fcntl(host, F_GETFL) | O_NONBLOCK)

        var shared: (progress: BatchProgress, fd: Int32)?
        if case .library = source { shared = BatchProgress.create() }
        var descriptors = [child]
        if let shared { descriptors.append(shared.fd) }
        // On the loop, the worker gets them as descriptors 3 and 4; spawned by hand, as they are.
        let onLoop = lane.waits?.canSpawn == true
        let seen = onLoop ? descriptors.indices.map { 3 + Int32($0) } : descriptors
        var args = ["plugin-worker", "--fd", "\(seen[0])", "--parent", "\(getpid())",
                    "--max-output-bytes", "\(config.maxOutputBytes)", "--max-depth", "\(maxDepth)"]
        switch source {
        case .library(let path):
            if shared != nil { args += ["--progress-fd", "\(seen[1])"] }
            args.append(path)
        case .command(let argv):
            // The worker executable only sets the process up (dies with the host, its socket on fd 3) and
            // execs the command: the pid the host watches is the command's.
            args += ["--exec", "--"] + argv
        }
        guard let waits = lane.waits else {
            for fd in [host, child] + (shared.map { [$0.fd] } ?? []) { close(fd) }
            throw .worker(path: label, message: "cannot start its worker: the host's loop has ended")
        }
        let started: Result<(pid: pid_t, process: (any SpawnedProcess)?), SpawnFailure>
        if onLoop {
            started = waits.spawn(config.workerExecutable, args, descriptors: descriptors).map { ($0.pid, $0) }
        } else {
            started = spawnByHand(config.workerExecutable, args).map { ($0, nil) }
        }
        close(child)
        if let shared { close(shared.fd) }
        let pid: pid_t
        let process: (any SpawnedProcess)?
        switch started {
        case .success(let s): (pid, process) = s
        case .failure(let failure):
            close(host)
            throw .worker(path: label, message: "cannot start its worker (\(config.workerExecutable)): \(failure.message)")
        }
        let link = waits.link(fd: host)
        let maxReply = config.maxOutputBytes.multipliedReportingOverflow(by: 2).overflow ? Int.max : config.maxOutputBytes * 2 + (64 << 10)
        let deadline = monotonicNanos() + UInt64(max(1, config.startTimeoutMs)) * 1_000_000
        var hello = WireWriter(.hello)
        hello.raw(JSONCodec.encode([
            "protocols": .array(WorkerProtocol.supported.sorted().map { .int($0) }),
            "maxOutputBytes": .int(config.maxOutputBytes), "maxDepth": .int(maxDepth),
            "hookTimeoutMs": .int(config.hookTimeoutMs),
        ]))
        let helloFrame = hello.finished()
        var incoming = FrameBuffer(maxBody: 1 << 20)
        let ready: Result<WireReader, WireError>
        do throws(WireError) {
            link.send(helloFrame)
            ready = .success(try await readFrame(link, &incoming, deadline: deadline, lane: lane))
        } catch {
            ready = .failure(error)
        }
        let refusal: String
        switch ready {
        case .success(let frame):
            switch WorkerFrame(rawValue: frame.kind) {
            case .ready:
                switch Ready.parse(frame.body) {
                case .success(let declared):
                    incoming.maxBody = maxReply
                    let w = PluginWorkerProcess(pid: pid, link: link, incoming: incoming, ready: declared,
                                                progress: shared?.progress, lane: lane)
                    w.process = process
                    return w
                case .failure(let r): refusal = r.why
                }
            case .refused:
                link.close()
                _ = await reap(pid, process, graceMs: 1000, lane: lane)
                throw .worker(path: label, message: String(decoding: frame.body, as: UTF8.self))
            default:
                refusal = "its first frame was of kind 0x\(String(frame.kind, radix: 16)), not ready (docs/worker-protocol.md)"
            }
        case .failure(let error):
            switch error {
            case .timeout: refusal = "it sent no ready frame within \(config.startTimeoutMs) ms (--plugin-start-timeout-ms)"
            case .tooLarge(let n): refusal = "its first frame claims \(n) bytes, more than a ready frame may have (is it writing something else on its socket?)"
            case .violation(let why): refusal = "it broke the worker protocol: \(why)"
            case .io(let e): refusal = "socket error \(e) while waiting for its ready frame"
            case .closed:
                link.close()
                let death = await reap(pid, process, graceMs: 1000, lane: lane)
                throw .worker(path: label, message: "its worker ended before it was ready (\(death.detail))")
            }
        }
        link.close()
        kill(pid, SIGKILL)
        _ = await reap(pid, process, graceMs: 0, lane: lane)
        throw .worker(path: label, message: "its worker did not start: \(refusal)")
    }

    var isAlive: Bool { link != nil }

    /// Whether a request is in flight (its caller parked on the reply).
    private var isBusy = false
    /// Callers parked until the request in flight is answered, in order.
    private var queued: [() -> Void] = []

    /// Runs `body` (one request and its reply, or one batch) with the socket to itself: the worker answers
    /// one request at a time. The lane keeps calls on one plugin in order, so this waits only when some
    /// other work (a teardown, a sweep) reaches the same worker while a call is parked on it.
    private func exclusively<T>(_ body: () async -> T) async -> T {
        while isBusy { await lane.park { wake in queued.append(wake) } }
        isBusy = true
        let result = await body()
        isBusy = false
        if !queued.isEmpty { queued.removeFirst()() }
        return result
    }

    /// Sends one request and parks until its reply, up to `timeoutMs`. Any failure to get a reply ends the
    /// worker (killed if need be, then reaped) and says how it ended.
    func call(_ request: [UInt8], timeoutMs: Int) async throws(WorkerDeath) -> WireReader {
        try await exclusively { await exchange(request, timeoutMs: timeoutMs) }.get()
    }

    /// Sends `wake`: the worker wakes now and looks for the next request awake for a moment. Best effort:
    /// a full socket or a dead worker is found by the call that follows.
    func wake() {
        guard let link, !isBusy else { return }
        link.send(WireWriter(.wake).finished())
    }

    /// Runs `frames` (hook requests) as one batch: the worker runs them in order and stops at the first
    /// that fails. Returns one entry per hook that ran, in order, up to and including a failed one: its
    /// reply, or nil for a hook that ran but whose reply went down with the worker. When the worker died
    /// (or ran past a hook's deadline and was killed) on the hook after those, `death` says how. Each hook
    /// has `timeoutMs` of its own, from when the worker starts it.
    func callBatch(_ batch: BatchRequest, timeoutMs: Int) async -> (replies: [WireReader?], death: WorkerDeath?) {
        await exclusively { await sendBatch(batch, timeoutMs: timeoutMs) }
    }

    private func sendBatch(_ batch: BatchRequest, timeoutMs: Int) async -> (replies: [WireReader?], death: WorkerDeath?) {
        let request = batch.frame()
        let count = batch.count
        let progress = self.progress
        guard progress != nil || streamsBatches else {
            // No shared page to tell which hook a crash was in: one hook at a time.
            var replies: [WireReader?] = []
            for k in 0..<count {
                switch await exchange(batch.hookFrame(k, in: request), timeoutMs: timeoutMs) {
                case .failure(let death): return (replies, death)
                case .success(let r):
                    replies.append(r)
                    if r.kind == WorkerFrame.failed.rawValue { return (replies, nil) }
                }
            }
            return (replies, nil)
        }
        guard let link else { return ([], WorkerDeath(reason: "closed", detail: "the worker is not running")) }
        let timeout = UInt64(max(1, timeoutMs)) * 1_000_000
        let lane = self.lane
        progress?.started = 0
        var replies: [WireReader?] = []
        replies.reserveCapacity(count)
        /// Reads until every hook answered or one failed; the deadline runs from the start of the hook
        /// the worker is in.
        func readAll() async -> WireError? {
            var seen = 0
            var since = monotonicNanos()
            while true {
                do throws(WireError) {
                    while let frame = try incoming.next() {
                        try Self.validate(frame)
                        replies.append(frame)
                        if frame.kind == WorkerFrame.failed.rawValue || replies.count == count {
                            // Whatever follows the last reply was asked for by no request.
                            if incoming.pending > 0 { return .violation("it wrote \(incoming.pending) bytes after the batch's last reply") }
                            return nil
                        }
                    }
                    if try link.take(into: &incoming) { continue }
                } catch {
                    return error
                }
                let now = monotonicNanos()
                // The hook the worker is in: from the shared page, or (a worker that streams its replies)
                // the one after the last reply.
                let started = progress?.started ?? replies.count + 1
                if started != seen {
                    seen = started
                    since = now
                }
                guard now - since < timeout else { return .timeout }
                // Parked until the reply comes, or for a while (then the worker's progress is read again).
                _ = await lane.waitReceived(link, timeoutMs: Int(min(10, (since + timeout - now + 999_999) / 1_000_000)))
            }
        }
        var failure: WireError?
        do {
            try checkNothingPending(link)
            link.send(request)
            failure = await readAll()
        } catch {
            failure = error
        }
        return await finishBatch(replies, failure, progress: progress, timeoutMs: timeoutMs)
    }

    /// A batch's outcome: the hooks the worker started before the one it died on ran (their replies, if
    /// any, were lost with it).
    private func finishBatch(_ replies: [WireReader?], _ failure: WireError?, progress: BatchProgress?, timeoutMs: Int) async
        -> (replies: [WireReader?], death: WorkerDeath?)
    {
        guard let failure else { return (replies, nil) }
        var all = replies
        let ran = progress.map { max(0, $0.started - 1) } ?? replies.count
        while all.count < ran { all.append(nil) }
        return (all, await death(after: failure, timeoutMs: timeoutMs))
    }

    private func exchange(_ request: [UInt8], timeoutMs: Int) async -> Result<WireReader, WorkerDeath> {
        guard let link else { return .failure(WorkerDeath(reason: "closed", detail: "the worker is not running")) }
        let deadline = monotonicNanos() + UInt64(max(1, timeoutMs)) * 1_000_000
        let failure: WireError
        do throws(WireError) {
            try checkNothingPending(link)
            link.send(request)
            // Read into a buffer of this call's own: no access to the process's buffer is held while the
            // call waits for the reply.
            var buffer = takeIncoming()
            defer { incoming = buffer }
            let frame = try await Self.readFrame(link, &buffer, deadline: deadline, lane: lane)
            try Self.validate(frame)
            return .success(frame)
        } catch {
            failure = error
        }
        return .failure(await death(after: failure, timeoutMs: timeoutMs))
    }

    /// What was received and not yet read, taken out (the process keeps an empty buffer meanwhile).
    private func takeIncoming() -> FrameBuffer {
        let taken = incoming
        incoming = FrameBuffer(maxBody: taken.maxBody)
        return taken
    }

    /// Refuses a reply a request cannot have: only `ok` (its value and memory bytes, then any output) and
    /// `failed` (a JSON object with a message) answer one.
    static func validate(_ frame: WireReader) throws(WireError) {
        switch WorkerFrame(rawValue: frame.kind) {
        case .ok:
            guard frame.body.count >= 16 else {
                throw .violation("an ok reply of \(frame.body.count) bytes (its value and memory bytes take 16)")
            }
        case .failed:
            guard case .object(let o)? = try? JSONCodec.decode(frame.body, maxDepth: 64), case .string? = o["message"] else {
                throw .violation("a failed reply that is not a JSON object with a message")
            }
        default:
            throw .violation("a frame of kind 0x\(String(frame.kind, radix: 16)) where a reply (ok or failed) was due")
        }
    }

    /// The next frame from `link`, parked for as long as it takes to come, up to `deadline`.
    private static func readFrame(_ link: WorkerLink, _ incoming: inout FrameBuffer, deadline: UInt64, lane: CallLane)
        async throws(WireError) -> WireReader
    {
        while true {
            if let frame = try incoming.next() { return frame }
            if try link.take(into: &incoming) { continue }
            _ = await lane.waitReceived(link, timeoutMs: try Wire.msLeft(until: deadline))
        }
    }

    /// Refuses bytes the worker wrote when no request was in flight: a worker speaks only when asked.
    /// The link's owner reads the socket (the loop reads as bytes come; a link with no loop reads what the
    /// kernel holds when asked), so what it has taken is what the worker wrote since its last reply.
    /// Bytes still on their way when the next request goes out are read as that request's reply, where
    /// they fail the reply's checks, or leave the real reply to be refused here next time.
    private func checkNothingPending(_ link: WorkerLink) throws(WireError) {
        _ = try link.take(into: &incoming)
        let n = incoming.pending
        if n > 0 { throw .violation("it wrote \(n) bytes no request asked for") }
    }

    /// Ends the worker after `error` and says how it ended.
    private func death(after error: WireError, timeoutMs: Int) async -> WorkerDeath {
        switch error {
        case .timeout: await end(killing: true, reason: "timeout", detail: "no reply within \(timeoutMs) ms")
        case .violation(let why): await end(killing: true, reason: "protocol", detail: "it broke the worker protocol: \(why)")
        case .tooLarge(let n): await end(killing: true, reason: "protocol", detail: "a reply of \(n) bytes, over the limit")
        case .io(let e): await end(killing: true, reason: "protocol", detail: "socket error \(e)")
        case .closed: await end(killing: false, reason: "closed", detail: "its socket closed")
        }
    }

    /// Whether the worker's end of the socket is gone (it died).
    var hasHungUp: Bool { link?.hasHungUp ?? true }

    /// Stops the worker: closes its socket (it exits on EOF), then kills it if it lingers.
    func stop(graceMs: Int = 1000) async {
        guard let link else { return }
        link.close()
        self.link = nil
        _ = await PluginWorkerProcess.reap(pid, process, graceMs: graceMs, lane: lane)
    }

    /// Ends the worker after a failed call and reports how it ended.
    func end(killing: Bool, reason: String, detail: String) async -> WorkerDeath {
        link?.close()
        link = nil
        if killing { kill(pid, SIGKILL) }
        var death = await PluginWorkerProcess.reap(pid, process, graceMs: killing ? 0 : 1000, lane: lane)
        // A killed worker's status is our SIGKILL: the reason is what made us kill it.
        if killing {
            death.reason = reason
            death.signal = nil
            death.detail = detail
        }
        return death
    }

    /// The process as the loop started it (nil when it was spawned by hand: a host with no loop).
    private var process: (any SpawnedProcess)?

    /// Starts `executable` with posix_spawn, for a host with no loop to start it on (`greenroom replay` in
    /// process): its own process group, default signal handling and an empty mask.
    private static func spawnByHand(_ executable: String, _ arguments: [String]) -> Result<pid_t, SpawnFailure> {
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGINT, SIGTERM, SIGCHLD] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setpgroup(&attr, 0)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, nil, &attr, argv, environ)
        return rc == 0 ? .success(pid) : .failure(SpawnFailure(message: String(cString: strerror(rc))))
    }

    /// Waits for the worker to end (up to `graceMs`, then SIGKILL) and describes how it ended. On the loop
    /// (`process`), the wait parks until the loop reports the end; a host with no loop polls waitpid.
    static func reap(_ pid: pid_t, _ process: (any SpawnedProcess)?, graceMs: Int, lane: CallLane) async -> WorkerDeath {
        // With no loop left (after it ended), the worker is killed and waited for by hand.
        if let process, lane.canWait {
            if process.ending == nil && graceMs > 0, let waits = lane.waits {
                await lane.park { wake in
                    let cancel = waits.after(ms: graceMs, wake)
                    process.whenEnded {
                        cancel()
                        wake()
                    }
                }
            }
            if process.ending == nil {
                kill(pid, SIGKILL)
                await lane.park { wake in process.whenEnded(wake) }
            }
            guard let (code, signal) = process.ending else { return WorkerDeath(reason: "closed", detail: "already reaped") }
            if signal != 0 {
                return WorkerDeath(reason: "crashed", signal: signal, detail: "killed by \(WorkerDeath.signalName(signal))")
            }
            return WorkerDeath(reason: "exited", exitStatus: code, detail: "exited with status \(code)")
        }
        return await reapByHand(pid, graceMs: graceMs, lane: lane)
    }

    /// `reap` for a worker spawned by hand.
    private static func reapByHand(_ pid: pid_t, graceMs: Int, lane: CallLane) async -> WorkerDeath {
        var status: Int32 = 0
        var waited = 0
        var step = 1
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { break }
            if r < 0 && errno != EINTR { return WorkerDeath(reason: "closed", detail: "already reaped") }
            if r < 0 { continue }
            if waited >= graceMs || !lane.canWait {
                // Killed: it ends at once, so this wait is short.
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                break
            }
            await lane.sleep(ms: step)
            waited += step
            step = min(step * 2, 50)
        }
        // WIFSIGNALED / WIFEXITED, by hand (the macros do not import).
        let signal = status & 0x7f
        if signal != 0 && signal != 0x7f {
            return WorkerDeath(reason: "crashed", signal: signal, detail: "killed by \(WorkerDeath.signalName(signal))")
        }
        let code = (status >> 8) & 0xff
        return WorkerDeath(reason: "exited", exitStatus: code, detail: "exited with status \(code)")
    }
}
