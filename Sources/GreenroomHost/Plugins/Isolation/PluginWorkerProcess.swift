import Glibc
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

/// One running worker process, seen from the host: its pid and its end of the socketpair. Calls are
/// synchronous: the loop thread writes a request and waits for the reply under the hook deadline.
final class PluginWorkerProcess {
    let pid: pid_t
    private(set) var fd: Int32
    let plugin: String
    let version: String
    let classNames: [String]
    /// The optional hooks each class asked for (by name; classes that asked for none are absent).
    let optionalHooks: [String: Set<Hook>]
    /// The largest reply body accepted (the worker enforces the output limit; more is a protocol error).
    let maxReplyBytes: Int

    /// Which hook of a batch the worker is in (nil: the page could not be made; batches then go one hook
    /// at a time).
    private let progress: BatchProgress?

    private init(pid: pid_t, fd: Int32, plugin: String, version: String, classNames: [String],
                 optionalHooks: [String: Set<Hook>], maxReplyBytes: Int, progress: BatchProgress?) {
        self.optionalHooks = optionalHooks
        self.progress = progress
        self.pid = pid
        self.fd = fd
        self.plugin = plugin
        self.version = version
        self.classNames = classNames
        self.maxReplyBytes = maxReplyBytes
    }

    /// Starts `greenroom plugin-worker` for `path` and waits for its ready frame. A library the worker
    /// refuses is the same start-up error as in process.
    /// A restart runs in the call lane (`lane`): the wait for the new worker's ready frame (a process start
    /// and a library load) then happens off the loop.
    static func start(path: String, config: PluginConfig, maxDepth: Int, readyTimeoutMs: Int = 20_000, lane: CallLane? = nil)
        throws(PluginLoadError) -> PluginWorkerProcess
    {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
            throw .worker(path: path, message: "cannot create a socketpair for its worker: errno \(errno)")
        }
        let (host, child) = (fds[0], fds[1])
        _ = fcntl(host, F_SETFD, FD_CLOEXEC)
        _ = fcntl(host, F_SETFL, fcntl(host, F_GETFL) | O_NONBLOCK)

        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        // Its own process group: a terminal's ^C reaches the host, which stops workers after its graceful
        // shutdown. Default signal handling and an empty mask, whatever the loop thread had.
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGINT, SIGTERM, SIGCHLD] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setpgroup(&attr, 0)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let shared = BatchProgress.create()
        var args = [config.workerExecutable, "plugin-worker", "--fd", "\(child)", "--parent", "\(getpid())",
                    "--max-output-bytes", "\(config.maxOutputBytes)", "--max-depth", "\(maxDepth)"]
        if let shared { args += ["--progress-fd", "\(shared.fd)"] }
        args.append(path)
        let argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, config.workerExecutable, nil, &attr, argv, environ)
        close(child)
        if let shared { close(shared.fd) }
        guard rc == 0 else {
            close(host)
            throw .worker(path: path, message: "cannot start its worker (\(config.workerExecutable)): \(String(cString: strerror(rc)))")
        }
        let maxReply = config.maxOutputBytes.multipliedReportingOverflow(by: 2).overflow ? Int.max : config.maxOutputBytes * 2 + (64 << 10)
        let deadline = Wire.nowNanos() + UInt64(readyTimeoutMs) * 1_000_000
        let readReady = { try? Wire.readFrame(host, maxBody: 1 << 20, deadline: deadline) }
        let ready: WireReader? = if let lane { lane.waitForWorker(readReady) } else { readReady() }
        if let frame = ready {
            switch WorkerFrame(rawValue: frame.kind) {
            case .ready:
                if case .object(let o)? = try? JSONCodec.decode(frame.body),
                   case .string(let plugin)? = o["plugin"], case .array(let names)? = o["classes"] {
                    let version: String = if case .string(let v)? = o["version"] { v } else { "" }
                    let classNames = names.compactMap { v -> String? in if case .string(let s) = v { s } else { nil } }
                    var optional: [String: Set<Hook>] = [:]
                    if case .object(let byClass)? = o["optionalHooks"] {
                        for m in byClass.members {
                            optional[m.key] = Set((m.value.arrayValue ?? []).compactMap { $0.stringValue.flatMap(Hook.init(rawValue:)) })
                        }
                    }
                    return PluginWorkerProcess(pid: pid, fd: host, plugin: plugin, version: version, classNames: classNames,
                                               optionalHooks: optional, maxReplyBytes: maxReply, progress: shared?.progress)
                }
            case .refused:
                close(host)
                _ = reap(pid, graceMs: 1000)
                throw .worker(path: path, message: String(decoding: frame.body, as: UTF8.self))
            default: break
            }
        }
        close(host)
        kill(pid, SIGKILL)
        let death = reap(pid, graceMs: 0)
        throw .worker(path: path, message: "its worker did not start (\(death.detail))")
    }

    var isAlive: Bool { fd >= 0 }

    /// One request and its reply at a time on the socket, whichever thread holds the loop.
    private let exchanging: UnsafeMutablePointer<pthread_mutex_t> = {
        let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(m, nil)
        return m
    }()

    deinit {
        pthread_mutex_destroy(exchanging)
        exchanging.deallocate()
    }

    /// How long a reply is waited for in place before the loop is handed over (`CallLane`): most hooks
    /// answer well within it, and a hand-over costs two thread wake-ups.
    static let inPlaceWaitMs: Int32 = 1
    /// How long a reply is looked for awake before sleeping for it.
    static let spinNanos: UInt64 = 100_000

    /// Sends one request and waits for its reply, up to `timeoutMs`: in place for a moment, then (when
    /// `lane` runs this call) with the loop handed over, so other clients are served meanwhile. Any
    /// failure to get a reply ends the worker (killed if need be, then reaped) and says how it ended.
    func call(_ request: [UInt8], timeoutMs: Int, lane: CallLane? = nil) throws(WorkerDeath) -> WireReader {
        try exchange(request, timeoutMs: timeoutMs, lane: lane).get()
    }

    /// Sends `wake`: the worker wakes now and looks for the next request awake for a moment. Best effort:
    /// a full socket or a dead worker is found by the call that follows.
    func wake() {
        guard isAlive else { return }
        pthread_mutex_lock(exchanging)
        let frame = WireWriter(.wake).finished()
        _ = frame.withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        pthread_mutex_unlock(exchanging)
    }

    /// Runs `frames` (hook requests) as one batch: the worker runs them in order and stops at the first
    /// that fails. Returns one entry per hook that ran, in order, up to and including a failed one: its
    /// reply, or nil for a hook that ran but whose reply went down with the worker. When the worker died
    /// (or ran past a hook's deadline and was killed) on the hook after those, `death` says how. Each hook
    /// has `timeoutMs` of its own, from when the worker starts it.
    func callBatch(_ batch: BatchRequest, timeoutMs: Int, lane: CallLane? = nil) -> (replies: [WireReader?], death: WorkerDeath?) {
        let request = batch.frame()
        let count = batch.count
        guard let progress else {
            // No shared page to tell which hook a crash was in: one hook at a time.
            var replies: [WireReader?] = []
            for k in 0..<count {
                switch exchange(batch.hookFrame(k, in: request), timeoutMs: timeoutMs, lane: lane) {
                case .failure(let death): return (replies, death)
                case .success(let r):
                    replies.append(r)
                    if r.kind == WorkerFrame.failed.rawValue { return (replies, nil) }
                }
            }
            return (replies, nil)
        }
        guard isAlive else { return ([], WorkerDeath(reason: "closed", detail: "the worker is not running")) }
        let timeout = UInt64(max(1, timeoutMs)) * 1_000_000
        pthread_mutex_lock(exchanging)
        let (fd, maxBody, lock) = (self.fd, maxReplyBytes, exchanging)
        progress.started = 0
        var incoming = FrameBuffer(maxBody: maxBody)
        var replies: [WireReader?] = []
        replies.reserveCapacity(count)
        /// Reads until every hook answered or one failed; the deadline runs from the start of the hook
        /// the worker is in.
        func readAll() -> WireError? {
            var seen = 0
            var since = Wire.nowNanos()
            while true {
                do {
                    while let frame = try incoming.next() {
                        replies.append(frame)
                        if frame.kind == WorkerFrame.failed.rawValue || replies.count == count { return nil }
                    }
                    if try incoming.receive(fd) { continue }
                } catch {
                    return error
                }
                let now = Wire.nowNanos()
                if progress.started != seen {
                    seen = progress.started
                    since = now
                }
                guard now - since < timeout else { return .timeout }
                // A short wait, then a look at the worker's progress again.
                _ = Wire.readable(fd, withinMs: Int32(min(10, (since + timeout - now + 999_999) / 1_000_000)))
            }
        }
        var failure: WireError?
        do {
            try Wire.writeAll(fd, request, deadline: Wire.nowNanos() + timeout)
            if let lane, !Wire.readable(fd, spinningNanos: Self.spinNanos, thenWithinMs: Self.inPlaceWaitMs) {
                // Late: the rest is waited for off the loop; the lock goes before the loop is taken back.
                failure = lane.waitForWorker { () -> WireError? in
                    defer { pthread_mutex_unlock(lock) }
                    return readAll()
                }
                return finishBatch(replies, failure, progress: progress, timeoutMs: timeoutMs)
            }
            failure = readAll()
        } catch {
            failure = error
        }
        pthread_mutex_unlock(lock)
        return finishBatch(replies, failure, progress: progress, timeoutMs: timeoutMs)
    }

    /// A batch's outcome: the hooks the worker started before the one it died on ran (their replies, if
    /// any, were lost with it).
    private func finishBatch(_ replies: [WireReader?], _ failure: WireError?, progress: BatchProgress, timeoutMs: Int)
        -> (replies: [WireReader?], death: WorkerDeath?)
    {
        guard let failure else { return (replies, nil) }
        var all = replies
        let ran = max(0, progress.started - 1)
        while all.count < ran { all.append(nil) }
        return (all, death(after: failure, timeoutMs: timeoutMs))
    }

    private func exchange(_ request: [UInt8], timeoutMs: Int, lane: CallLane?) -> Result<WireReader, WorkerDeath> {
        guard isAlive else { return .failure(WorkerDeath(reason: "closed", detail: "the worker is not running")) }
        let deadline = Wire.nowNanos() + UInt64(max(1, timeoutMs)) * 1_000_000
        pthread_mutex_lock(exchanging)
        let (fd, maxBody, lock) = (self.fd, maxReplyBytes, exchanging)
        func reply() -> Result<WireReader, WireError> {
            defer { pthread_mutex_unlock(lock) }
            return Result { () throws(WireError) in try Wire.readFrame(fd, maxBody: maxBody, deadline: deadline) }
        }
        let outcome: Result<WireReader, WireError>
        do {
            try Wire.writeAll(fd, request, deadline: deadline)
            // A late reply is waited for off the loop. The lock goes before the loop is taken back, so a
            // thread that holds the loop never waits for it behind a thread that waits for the loop.
            if let lane, !Wire.readable(fd, spinningNanos: Self.spinNanos, thenWithinMs: Self.inPlaceWaitMs) { outcome = lane.waitForWorker(reply) } else { outcome = reply() }
        } catch {
            pthread_mutex_unlock(lock)
            outcome = .failure(error)
        }
        return outcome.mapError { death(after: $0, timeoutMs: timeoutMs) }
    }

    /// Ends the worker after `error` and says how it ended.
    private func death(after error: WireError, timeoutMs: Int) -> WorkerDeath {
        switch error {
        case .timeout: end(killing: true, reason: "timeout", detail: "no reply within \(timeoutMs) ms")
        case .tooLarge(let n): end(killing: true, reason: "protocol", detail: "a reply of \(n) bytes, over the limit")
        case .io(let e): end(killing: true, reason: "protocol", detail: "socket error \(e)")
        case .closed: end(killing: false, reason: "closed", detail: "its socket closed")
        }
    }

    /// Whether the worker's end of the socket is gone (it died): a peek, between calls, finds end of file
    /// or a reset rather than nothing to read.
    var hasHungUp: Bool {
        guard fd >= 0 else { return true }
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if n == 0 { return true }
        return n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR
    }

    /// Called before the socket is closed (whatever watches it must stop first).
    var willClose: (() -> Void)?

    /// Stops the worker: closes its socket (it exits on EOF), then kills it if it lingers.
    func stop(graceMs: Int = 1000) {
        guard isAlive else { return }
        willClose?()
        willClose = nil
        close(fd)
        fd = -1
        _ = PluginWorkerProcess.reap(pid, graceMs: graceMs)
    }

    /// Ends the worker after a failed call and reports how it ended.
    func end(killing: Bool, reason: String, detail: String) -> WorkerDeath {
        if fd >= 0 {
            willClose?()
            willClose = nil
            close(fd)
            fd = -1
        }
        if killing { kill(pid, SIGKILL) }
        var death = PluginWorkerProcess.reap(pid, graceMs: killing ? 0 : 1000)
        // A killed worker's status is our SIGKILL: the reason is what made us kill it.
        if killing {
            death.reason = reason
            death.signal = nil
            death.detail = detail
        }
        return death
    }

    /// Waits for `pid` to end (up to `graceMs`, then SIGKILL) and describes its status.
    static func reap(_ pid: pid_t, graceMs: Int) -> WorkerDeath {
        var status: Int32 = 0
        let deadline = Wire.nowNanos() + UInt64(graceMs) * 1_000_000
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { break }
            if r < 0 && errno != EINTR { return WorkerDeath(reason: "closed", detail: "already reaped") }
            if Wire.nowNanos() >= deadline {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                break
            }
            usleep(1000)
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
