import Glibc
import GreenroomCore
import GreenroomJSON
import GreenroomHost

/// The plugin worker process (`greenroom plugin-worker`): loads one library exactly as the host would,
/// then runs the calls its host sends over `fd`, one at a time, until the host closes its end. A
/// crash here (abort, NULL, exit, a hang the host kills) ends only this process.
public enum PluginWorkerMain {
    /// Runs the worker; returns its exit status. `parent` is the host's pid: the worker dies with it.
    public static func run(fd: Int32, path: String, parent: Int32, maxOutputBytes: Int, maxDepth: Int,
                           progressFD: Int32? = nil) -> Int32 {
        // Die with the host, even when it is SIGKILLed (the socket's EOF covers the rest).
        dieWithParent()
        if parent > 0 && getppid() != parent { return 1 }
        // What a plugin prints must not mix with the host's stdout (its ready line, a client's output).
        dup2(2, 1)
        var flags = fcntl(fd, F_GETFD)
        flags |= FD_CLOEXEC
        _ = fcntl(fd, F_SETFD, flags)

        // The host speaks first: the versions it offers.
        if let refusal = readHello(fd) {
            var w = WireWriter(.refused)
            w.raw(refusal.utf8)
            try? BlockingWire.writeAll(fd, w.finished())
            return 2
        }

        let threads = WorkerThreads()
        PluginHostContext.processScheduler = threads
        let classes: [PluginClass]
        let context: PluginHostContext
        do {
            let entry = try PluginLoader.open(path: path)
            context = try PluginLoader.runInit(entry: entry, path: PluginLoader.realPath(path) ?? path, host: nil,
                                               log: PluginLoader.logToStandardError)
            classes = zip(context.registeredNames, context.registered).enumerated().map { i, entry in
                PluginClass(name: entry.0, plugin: context.pluginName, table: entry.1,
                            optionalHooks: context.registeredOptionalHooks[i], maxOutputDepth: maxDepth,
                            maxOutputBytes: maxOutputBytes)
            }
        } catch {
            var w = WireWriter(.refused)
            w.raw(error.description.utf8)
            try? BlockingWire.writeAll(fd, w.finished())
            return 2
        }
        var ready = WireWriter(.ready)
        ready.raw(JSONCodec.encode([
            "protocol": .int(WorkerProtocol.version),
            "plugin": .string(context.pluginName), "version": .string(context.pluginVersion),
            "classes": .array(context.registeredNames.map { .string($0) }),
            "optionalHooks": .object(JSONObject(classes.filter { !$0.optionalHooks.isEmpty }.map {
                (key: $0.name, value: .array($0.optionalHooks.map(\.rawValue).sorted().map { .string($0) }))
            })),
        ]))
        do { try BlockingWire.writeAll(fd, ready.finished()) } catch { return 1 }

        let progress = progressFD.flatMap { fd in
            defer { close(fd) }
            return BatchProgress.map(fd: fd)
        }
        var calls = WorkerCalls(classes: classes, maxDepth: maxDepth)
        while true {
            guard var frame = try? BlockingWire.readFrame(fd, maxBody: Int(Int32.max)) else { return 0 }
            // Background work that finished while the worker waited completes first, as on the host's loop.
            threads.runFinished()
            if frame.kind == WorkerFrame.wake.rawValue {
                // A batch follows while the host plans it: look for it awake, for up to 200 µs.
                _ = BlockingWire.readable(fd, spinningNanos: 200_000)
                continue
            }
            guard frame.kind == WorkerFrame.batch.rawValue else {
                guard let (reply, _) = calls.answer(&frame) else { return 3 }
                do { try BlockingWire.writeAll(fd, reply) } catch { return 0 }
                continue
            }
            // A batch: the hooks run in order until one fails, and their replies go back in one message.
            // Before each, the shared page says which it is, so a crash or a hang is known to be its.
            guard let count = frame.u32() else { return 3 }
            var replies: [UInt8] = []
            for i in 0..<count {
                guard let n = frame.u32(), n >= 1, let body = frame.bytes(n), body.first == WorkerFrame.hook.rawValue else { return 3 }
                var hook = WireReader(kind: WorkerFrame.hook.rawValue, body: Array(body.dropFirst()))
                threads.runFinished()
                progress?.started = i + 1
                guard let (reply, failed) = calls.answer(&hook) else { return 3 }
                replies.append(contentsOf: reply)
                if failed { break }
            }
            do { try BlockingWire.writeAll(fd, replies) } catch { return 0 }
        }
    }

    /// Reads the host's `hello`; nil when it offers this worker's protocol version, else why not.
    static func readHello(_ fd: Int32) -> String? {
        guard let frame = try? BlockingWire.readFrame(fd, maxBody: 1 << 20) else { return "the host sent no hello" }
        guard frame.kind == WorkerFrame.hello.rawValue else {
            return "the host's first frame is not hello (this worker speaks worker protocol version \(WorkerProtocol.version))"
        }
        if case .object(let o)? = try? JSONCodec.decode(frame.body), case .array(let offered)? = o["protocols"],
           offered.contains(.int(WorkerProtocol.version)) {
            return nil
        }
        return "the host does not offer worker protocol version \(WorkerProtocol.version), the one this worker speaks"
    }

    /// `greenroom plugin-worker --exec -- CMD ARGS`: sets up a command worker's process and becomes the
    /// command. The socket to the host is on descriptor 3 (`GREENROOM_WORKER_FD=3`), standard input is
    /// /dev/null, standard output goes where standard error does (the host's stdout carries its own lines),
    /// and the process dies with the host. Returns only when the command cannot run (after telling the
    /// host why, in a `refused` frame).
    public static func exec(fd: Int32, parent: Int32, command: [String]) -> Int32 {
        dieWithParent()
        if parent > 0 && getppid() != parent { return 1 }
        let devNull = open("/dev/null", O_RDONLY)
        if devNull >= 0 && devNull != 0 {
            dup2(devNull, 0)
            close(devNull)
        }
        dup2(2, 1)
        if fd != 3 {
            guard dup2(fd, 3) == 3 else { return 1 }
            close(fd)
        }
        var flags = fcntl(3, F_GETFD)
        flags &= ~FD_CLOEXEC
        _ = fcntl(3, F_SETFD, flags)
        setenv("GREENROOM_WORKER_FD", "3", 1)
        setenv("GREENROOM_WORKER_PROTOCOL", "\(WorkerProtocol.version)", 1)
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        execvp(command[0], argv)
        let why = String(cString: strerror(errno))
        // The host waits for a ready frame: tell it why there will be none (its hello is left unread).
        var w = WireWriter(.refused)
        w.raw("cannot run \(command[0]): \(why)".utf8)
        try? BlockingWire.writeAll(3, w.finished())
        return 127
    }

    /// prctl(PR_SET_PDEATHSIG, SIGKILL): variadic in C, so looked up rather than imported.
    private static func dieWithParent() {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return }
        let PR_SET_PDEATHSIG: Int32 = 1
        _ = unsafeBitCast(symbol, to: Prctl.self)(PR_SET_PDEATHSIG, UInt(SIGKILL), 0, 0, 0)
    }
}

/// The worker's side of the calls: its plugin's classes and the instances made so far.
struct WorkerCalls {
    let classes: [PluginClass]
    let maxDepth: Int
    private var instances: [UInt64: PluginInstance] = [:]
    private var nextInstance: UInt64 = 1

    init(classes: [PluginClass], maxDepth: Int) {
        self.classes = classes
        self.maxDepth = maxDepth
    }

    /// Runs one create, hook or destroy frame; its reply frame and whether the plugin failed it. Nil for
    /// a frame that breaks the protocol (the worker then exits).
    mutating func answer(_ frame: inout WireReader) -> (reply: [UInt8], failed: Bool)? {
        do throws(HookFailure) {
            switch WorkerFrame(rawValue: frame.kind) {
            case .create:
                guard let index = frame.u32(), index < classes.count else { return nil }
                let id = String(decoding: frame.rest, as: UTF8.self)
                let instance = try classes[index].makeNativeInstance(containerID: id)
                let handle = nextInstance
                nextInstance += 1
                instances[handle] = instance
                return (Self.ok(handle, instance.memoryBytes, output: nil), false)
            case .hook:
                guard let handle = frame.u64(), let n = frame.u16(), let name = frame.bytes(n),
                      let hook = Hook.named(name),
                      let instance = instances[handle] else { return nil }
                // The host's own encoding of an object: handed to the plugin as it came.
                guard frame.rest.first == UInt8(ascii: "{") else { return nil }
                let output = try instance.run(hook, inputJSON: Array(frame.rest))
                return (Self.ok(0, instance.memoryBytes, output: output), false)
            case .destroy:
                guard let handle = frame.u64() else { return nil }
                instances.removeValue(forKey: handle)?.release()
                return (Self.ok(0, 0, output: nil), false)
            default:
                return nil
            }
        } catch {
            var w = WireWriter(.failed)
            w.raw(JSONCodec.encode(["message": .string(error.message), "data": .object(error.data)]))
            return (w.finished(), true)
        }
    }

    private static func ok(_ value: UInt64, _ memoryBytes: Int, output: JSONValue?) -> [UInt8] {
        var w = WireWriter(.ok)
        w.u64(value)
        w.u64(UInt64(max(0, memoryBytes)))
        if let output { w.raw(JSONCodec.encode(output)) }
        return w.finished()
    }
}
