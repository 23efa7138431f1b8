import GreenroomCore
import Glibc
import GreenroomHost
import GreenroomJSON
import GreenroomUV
import Logging

/// A start-up refusal: one sentence, printed after "greenroom: ", and exit status 2.
public struct ServeRefusal: Error, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Everything `greenroom serve` was told, as plain values: the command line's options after the
/// argument parser checked their form. `greenroom serve` hands them to `greenroom-host` as JSON (see
/// `HostExecutable`), which builds the host from them, so that the host's process carries neither the
/// argument parser nor the Foundation library it loads. The defaults here are the command line's.
public struct ServeOptions: Equatable, Sendable {
    public var socket: String?
    public var listen: [String] = []
    public var allowOrigin: [String] = []
    public var bindAny = false
    public var tokenFile: String?
    public var clock = "real"
    /// The UIKit modelled (16 or 17): 16 sends no `viewIsAppearing`.
    public var uikit = UIKitGeneration.current.rawValue
    public var allowUid: [UInt32] = []
    public var plugins: [String] = []
    public var pluginCommands: [String] = []
    public var pluginStartTimeoutMs = 20_000
    public var pluginIsolation = "process"
    public var hookTimeoutMs: Int?
    public var pluginOutputLimit = 1 << 20
    public var hookBatching = "on"
    public var pluginRestartLimit = 5
    public var maxMessageBytes = 1 << 20
    public var maxBatch = 256
    public var maxDepth = 64
    public var maxConnections = 1024
    public var maxOutboundBytes = 8 << 20
    public var slowReaderGraceMs = 5000
    public var authTimeoutMs = 10_000
    public var maxUnauthenticated = 64
    public var maxBufferedInputBytes = 64 << 20
    public var maxWaitingCalls = 1024
    public var taskSliceMs = 4.0
    public var poolCooldownMs = 5000.0
    public var poolBudgetBytes = 256 << 20
    public var scriptedMemoryBudgetBytes = 1 << 30
    public var readAhead = "auto"
    public var record: String?
    public var allowReset = false
    public var logLevel = "warning"
    /// The executable a plugin worker runs (`greenroom plugin-worker`): the `greenroom` that was asked to
    /// serve, not `greenroom-host`, which has no subcommands.
    public var workerExecutable = "/proc/self/exe"

    public init() {}
}

// MARK: JSON (what `greenroom serve` hands to `greenroom-host`)

extension ServeOptions {
    public var json: JSONValue {
        func strings(_ a: [String]) -> JSONValue { .array(a.map { .string($0) }) }
        func optional(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        return .object([
            "socket": optional(socket), "listen": strings(listen), "allowOrigin": strings(allowOrigin),
            "bindAny": .bool(bindAny), "tokenFile": optional(tokenFile), "clock": .string(clock), "uikit": .int(uikit),
            "allowUid": .array(allowUid.map { .int(Int($0)) }), "plugins": strings(plugins),
            "pluginCommands": strings(pluginCommands), "pluginStartTimeoutMs": .int(pluginStartTimeoutMs),
            "pluginIsolation": .string(pluginIsolation), "hookTimeoutMs": hookTimeoutMs.map { .int($0) } ?? .null,
            "pluginOutputLimit": .int(pluginOutputLimit), "hookBatching": .string(hookBatching),
            "pluginRestartLimit": .int(pluginRestartLimit), "maxMessageBytes": .int(maxMessageBytes),
            "maxBatch": .int(maxBatch), "maxDepth": .int(maxDepth), "maxConnections": .int(maxConnections),
            "maxOutboundBytes": .int(maxOutboundBytes), "slowReaderGraceMs": .int(slowReaderGraceMs),
            "authTimeoutMs": .int(authTimeoutMs), "maxUnauthenticated": .int(maxUnauthenticated),
            "maxBufferedInputBytes": .int(maxBufferedInputBytes), "maxWaitingCalls": .int(maxWaitingCalls), "taskSliceMs": .double(taskSliceMs),
            "poolCooldownMs": .double(poolCooldownMs), "poolBudgetBytes": .int(poolBudgetBytes),
            "scriptedMemoryBudgetBytes": .int(scriptedMemoryBudgetBytes), "readAhead": .string(readAhead),
            "record": optional(record), "allowReset": .bool(allowReset), "logLevel": .string(logLevel),
            "workerExecutable": .string(workerExecutable),
        ])
    }

    /// Reads what `json` wrote. Every member must be there with its type: these come from the same
    /// program's other half, so anything else is refused whole, naming the member.
    public init(json: JSONValue) throws(ServeRefusal) {
        guard let o = json.objectValue else { throw ServeRefusal("options: expected an object") }
        func value<T>(_ key: String, _ read: (JSONValue) -> T?) throws(ServeRefusal) -> T {
            guard let v = o[key], let t = read(v) else { throw ServeRefusal("options: \(key) is missing or has the wrong type") }
            return t
        }
        func optional<T>(_ key: String, _ read: (JSONValue) -> T?) throws(ServeRefusal) -> T? {
            if o[key] == .null { return nil }
            return try value(key, read)
        }
        func strings(_ v: JSONValue) -> [String]? {
            guard let a = v.arrayValue else { return nil }
            let s = a.compactMap(\.stringValue)
            return s.count == a.count ? s : nil
        }
        func uids(_ v: JSONValue) -> [UInt32]? {
            guard let a = v.arrayValue else { return nil }
            let u = a.compactMap { $0.intValue.flatMap(UInt32.init(exactly:)) }
            return u.count == a.count ? u : nil
        }
        socket = try optional("socket", \.stringValue)
        listen = try value("listen", strings)
        allowOrigin = try value("allowOrigin", strings)
        bindAny = try value("bindAny", \.boolValue)
        tokenFile = try optional("tokenFile", \.stringValue)
        clock = try value("clock", \.stringValue)
        uikit = try value("uikit", \.intValue)
        allowUid = try value("allowUid", uids)
        plugins = try value("plugins", strings)
        pluginCommands = try value("pluginCommands", strings)
        pluginStartTimeoutMs = try value("pluginStartTimeoutMs", \.intValue)
        pluginIsolation = try value("pluginIsolation", \.stringValue)
        hookTimeoutMs = try optional("hookTimeoutMs", \.intValue)
        pluginOutputLimit = try value("pluginOutputLimit", \.intValue)
        hookBatching = try value("hookBatching", \.stringValue)
        pluginRestartLimit = try value("pluginRestartLimit", \.intValue)
        maxMessageBytes = try value("maxMessageBytes", \.intValue)
        maxBatch = try value("maxBatch", \.intValue)
        maxDepth = try value("maxDepth", \.intValue)
        maxConnections = try value("maxConnections", \.intValue)
        maxOutboundBytes = try value("maxOutboundBytes", \.intValue)
        slowReaderGraceMs = try value("slowReaderGraceMs", \.intValue)
        authTimeoutMs = try value("authTimeoutMs", \.intValue)
        maxUnauthenticated = try value("maxUnauthenticated", \.intValue)
        maxBufferedInputBytes = try value("maxBufferedInputBytes", \.intValue)
        maxWaitingCalls = try value("maxWaitingCalls", \.intValue)
        taskSliceMs = try value("taskSliceMs", \.doubleValue)
        poolCooldownMs = try value("poolCooldownMs", \.doubleValue)
        poolBudgetBytes = try value("poolBudgetBytes", \.intValue)
        scriptedMemoryBudgetBytes = try value("scriptedMemoryBudgetBytes", \.intValue)
        readAhead = try value("readAhead", \.stringValue)
        record = try optional("record", \.stringValue)
        allowReset = try value("allowReset", \.boolValue)
        logLevel = try value("logLevel", \.stringValue)
        workerExecutable = try value("workerExecutable", \.stringValue)
    }
}

// MARK: The host they describe

extension ServeOptions {
    /// The host's configuration from these options (also what `greenroom replay` runs its own host with,
    /// so that a replayed host answers as a served one does).
    public func hostConfig() throws(ServeRefusal) -> HostConfig {
        var config = HostConfig()
        config.allowReset = allowReset
        if let record {
            // A private directory: transcripts hold whatever the clients sent.
            // Like mkdir -p: each missing directory on the way, private.
            var made = record.hasPrefix("/") ? "/" : ""
            for part in record.split(separator: "/") {
                made += (made.isEmpty || made == "/" ? "" : "/") + part
                if mkdir(made, 0o700) != 0 && errno != EEXIST {
                    throw ServeRefusal("--record \(record): cannot create \(made) (\(String(cString: strerror(errno))))")
                }
            }
            var info = stat()
            guard stat(record, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { throw ServeRefusal("--record \(record) is not a directory") }
            config.transcriptSink = { connection in TranscriptFile(path: "\(record)/\(connection).ndjson") }
        }
        config.logger = makeLogger(level: Logger.Level(rawValue: logLevel) ?? .warning)
        config.clockMode = clock == "virtual" ? .virtual : .real
        config.uikit = UIKitGeneration(rawValue: uikit) ?? .current
        config.limits.maxMessageBytes = maxMessageBytes
        config.limits.maxBatch = maxBatch
        config.limits.maxDepth = maxDepth
        config.maxConnections = maxConnections
        config.maxOutboundBytes = maxOutboundBytes
        config.slowReaderGraceMs = slowReaderGraceMs
        config.authTimeoutMs = authTimeoutMs
        config.maxUnauthenticated = maxUnauthenticated
        config.maxBufferedInputBytes = maxBufferedInputBytes
        config.maxWaitingCalls = maxWaitingCalls
        config.taskSliceMs = taskSliceMs
        guard poolCooldownMs >= 0, poolCooldownMs.isFinite else { throw ServeRefusal("--pool-cooldown-ms must be a number of ms >= 0") }
        guard poolBudgetBytes >= 0 else { throw ServeRefusal("--pool-budget-bytes must be >= 0") }
        config.poolCoolDownMs = poolCooldownMs
        config.poolBudgetBytes = poolBudgetBytes
        config.plugins.isolation = pluginIsolation == "none" ? .none : .process
        config.plugins.hookTimeoutMs = hookTimeoutMs ?? 2000
        config.plugins.maxOutputBytes = pluginOutputLimit
        config.plugins.batchesHooks = hookBatching == "on"
        config.plugins.restartLimitPerMinute = pluginRestartLimit
        config.plugins.startTimeoutMs = pluginStartTimeoutMs
        config.plugins.workerExecutable = workerExecutable
        if pluginIsolation == "none" && hookTimeoutMs != nil && !plugins.isEmpty {
            writeStandardError("greenroom: warning: --hook-timeout-ms is not enforced with --plugin-isolation none: an in-process hook cannot be stopped\n")
        }
        config.scriptedMemoryBudgetBytes = scriptedMemoryBudgetBytes
        config.readAhead = readAhead == "on" || (readAhead == "auto" && sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1)
        if let tokenFile { config.token = try readToken(tokenFile) }
        return config
    }

    /// Runs the host behind its listeners until it shuts down; the process's exit status. Start-up
    /// refusals print one line ("greenroom: ...") and give 2; a libuv handle left open at exit (a leak)
    /// gives 70.
    public func serve() -> Int32 {
        do {
            try serveOrRefuse()
            return 0
        } catch {
            switch error {
            case .refused(let message):
                writeStandardError("greenroom: \(message)\n")
                return 2
            case .leaked(let handles):
                writeStandardError("greenroom: libuv handles left open at exit (a leak): \(handles.joined(separator: ", "))\n")
                return 70
            }
        }
    }

    private enum Failure: Error {
        case refused(String)
        case leaked([String])
    }

    private func serveOrRefuse() throws(Failure) {
        if bindAny && listen.isEmpty { throw .refused("--bind-any only makes sense with --listen tcp:HOST:PORT or ws:HOST:PORT") }
        if allowOrigin.contains("*") {
            writeStandardError("greenroom: warning: --allow-origin * lets any web page you visit drive this host through its ws: listener\n")
        }
        if bindAny && tokenFile == nil { throw .refused("--bind-any requires --token-file") }
        raiseFileLimit()  // up to --max-connections sockets plus listeners
        var config: HostConfig
        do { config = try hostConfig() } catch { throw .refused(error.message) }
        var options = ListenOptions()
        // The same default as every client: --socket, then $GREENROOM_SOCKET, then the per-user default.
        options.socketPath = socket ?? socketPathFromEnvironment()
        options.network = listen.compactMap(NetworkListener.init)
        options.allowedOrigins = allowOrigin
        options.bindAny = bindAny
        options.allowedUIDs = allowUid
        config.pid = Int(getpid())
        config.residentBytes = residentSetBytes
        do {
            // The executable builds the host; the UV layer runs it behind the listeners.
            let host = Host(config: config, realClock: UVServer.monotonicClock())
            let server = try UVServer(host: host, listeners: options.listeners(for: host))
            // Plugins load before any socket exists: a bad one is a clear start-up error.
            let supervisor = PluginSupervisor.install(on: host)
            // Workers outlive nothing: they stop after the host's graceful shutdown (their containers'
            // deinit ran), and with the host however it ends (they watch it).
            defer { host.lane.runToEnd { await supervisor.stopAll() } }
            // Starting a worker waits for its ready frame: the loop is turned until it comes.
            let loads = plugins.map { (path: $0, isCommand: false) } + pluginCommands.map { (path: $0, isCommand: true) }
            for load in loads {
                let refused = host.lane.runToEnd { () async -> String? in
                    do {
                        if load.isCommand { _ = try await supervisor.load(command: load.path) } else { _ = try await supervisor.load(path: load.path) }
                        return nil
                    } catch {
                        return (error as? PluginLoadError)?.description ?? "\(error)"
                    }
                }
                if let refused { throw Failure.refused(refused) }
            }
            do { try server.listen() } catch {
                server.abandon()
                throw error
            }
            let listenJSON = server.listenAddresses.map { "\"\($0)\"" }.joined(separator: ",")
            config.logger.info("listening", metadata: [
                "listen": .array(server.listenAddresses.map { .string($0) }), "clock": "\(clock)",
                "plugins": "\(plugins.count + pluginCommands.count)"])
            print("{\"event\":\"ready\",\"listen\":[\(listenJSON)],\"pid\":\(getpid())}")
            fflush(nil)  // every stream: naming `stdout` is a shared global to Swift 6
            try server.run()
            // Shutdown closes every handle it made: one still open is a leak, and the exit says so.
            if !server.handlesLeftAtExit.isEmpty { throw Failure.leaked(server.handlesLeftAtExit) }
        } catch let e as Failure {
            throw e
        } catch let e as ServerSetupError {
            throw .refused(e.description)
        } catch let e as UVError {
            throw .refused(e.description)
        } catch {
            throw .refused("\(error)")
        }
    }
}

/// Lets this process open as many descriptors as the hard limit allows.
public func raiseFileLimit() {
    var rl = rlimit()
    if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &rl) == 0 && rl.rlim_cur < rl.rlim_max {
        rl.rlim_cur = rl.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &rl)
    }
}
