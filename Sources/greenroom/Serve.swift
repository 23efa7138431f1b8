import ArgumentParser
import Glibc
import GreenroomHost
import GreenroomUV
import Logging

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the host.")

    @Option(help: "Unix socket path (default: $GREENROOM_SOCKET, then $XDG_RUNTIME_DIR/greenroom/host.sock or /tmp/greenroom-$UID/host.sock).")
    var socket: String?

    @Option(help: "Also listen on tcp:HOST:PORT (JSON-RPC lines) or ws:HOST:PORT (WebSocket at /rpc, for browsers; serves /greenroom.js too); repeatable; loopback unless --bind-any; port 0 picks one.")
    var listen: [String] = []

    @Option(help: "Let pages from ORIGIN (scheme://host:port) connect to a ws: listener besides its own origin (repeatable; * allows any page, which any site you visit could then use).")
    var allowOrigin: [String] = []

    @Flag(help: "Allow a non-loopback TCP address (requires --token-file).")
    var bindAny = false

    @Option(help: "File holding the token TCP clients pass to host.auth (must not be readable by others).")
    var tokenFile: String?

    @Option(help: "real, or virtual: time moves only by clock.advance.")
    var clock: String = "real"

    @Option(help: "Also accept Unix peers with this uid (repeatable).")
    var allowUid: [UInt32] = []

    @Option(name: .customLong("plugin"), help: "Load a native plugin: a shared library exporting greenroom_plugin_init (repeatable).")
    var plugins: [String] = []
    @Option(name: .customLong("plugin-command"), help: ArgumentHelp("Run a plugin worker written in any language: the command (split into words as a shell would, without one: quotes and backslashes, no variables) speaks the worker protocol (docs/worker-protocol.md). Repeatable; started after the --plugin libraries.", valueName: "command"))
    var pluginCommands: [String] = []
    @Option(help: "How long a starting plugin worker may take to say it is ready, in ms; past it the host refuses it.")
    var pluginStartTimeoutMs = 20_000

    @Option(help: "process: each plugin in a worker process of its own (a crash fails only its containers); none: loaded into the host (faster hooks, no protection).")
    var pluginIsolation = "process"
    @Option(help: "A plugin hook running longer fails its container and its worker is killed and restarted (default 2000; not enforceable with --plugin-isolation none).")
    var hookTimeoutMs: Int?
    @Option(help: "Most bytes of output one plugin hook may give; more fails the hook.") var pluginOutputLimit = 1 << 20
    @Option(help: "on: the hooks one call runs in a plugin's worker go there in one message (a showRendered hit: one round trip, not ten); off: one message per hook. The events and replies are the same either way.")
    var hookBatching = "on"
    @Option(help: "Most restarts of one plugin's worker per minute; one more crash marks the plugin failed until plugins.restart.")
    var pluginRestartLimit = 5

    @Option(help: "Longest message in bytes.") var maxMessageBytes = 1 << 20
    @Option(help: "Most entries in a batch.") var maxBatch = 256
    @Option(help: "Deepest JSON nesting.") var maxDepth = 64
    @Option(help: "Most concurrent connections.") var maxConnections = 1024
    @Option(help: "Queued outbound bytes per connection past which a peer that takes nothing for --slow-reader-grace-ms is closed (a reading peer never is; requests pause well before it).")
    var maxOutboundBytes = 8 << 20
    @Option(help: "How long a peer that is paused by backpressure, or past --max-outbound-bytes, may take no bytes before it is closed as a slow reader, in ms.")
    var slowReaderGraceMs = 5000
    @Option(help: "With --token-file: how long a TCP connection has to succeed at host.auth before it is refused (-32006) and closed, in ms.")
    var authTimeoutMs = 10_000
    @Option(help: "With --token-file: most TCP connections open at once that have not authenticated yet (at most half of --max-connections).")
    var maxUnauthenticated = 64
    @Option(help: "Host-wide budget for bytes held in partial (unterminated) input lines; past it the connections holding the most are refused first.")
    var maxBufferedInputBytes = 64 << 20
    @Option(help: "Idle-task time slice per loop pass, in ms.") var taskSliceMs = 4.0
    @Option(help: "After a memory warning, pools refill only on demand for this long, in ms of host clock.") var poolCooldownMs = 5000.0
    @Option(help: "Host-wide budget in bytes for what idle pooled containers hold; past it the least recently warmed go first.")
    var poolBudgetBytes = 256 << 20
    @Option(help: "Host-wide budget in bytes for the memory scripted classes' instances hold (memoryBytes times live instances); creating one past it is -32005.")
    var scriptedMemoryBudgetBytes = 1 << 30
    @Option(help: "Parse pipelined requests ahead of the loop on a second thread: auto (when there is more than one CPU), on or off.")
    var readAhead = "auto"

    @Option(help: "Record every connection's transcript (what it sent, the replies and events it received) in DIR/conn-N.ndjson; replay one with greenroom replay. See docs/transcripts.md.")
    var record: String?
    @Flag(help: "Allow host.reset under the real clock (it tears down every connection's objects; under --clock virtual it is always allowed).")
    var allowReset = false

    @Option(help: "Structured logs on stderr at this level and above: trace, debug, info, notice, warning, error, critical. Tokens and message bodies are never logged at info or above.")
    var logLevel = "warning"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        guard clock == "real" || clock == "virtual" else { throw ValidationError("--clock must be real or virtual") }
        guard taskSliceMs.isFinite, taskSliceMs > 0, taskSliceMs <= 1000 else {
            throw ValidationError("--task-slice-ms must be a number of ms in (0, 1000]")
        }
        guard scriptedMemoryBudgetBytes >= 0 else { throw ValidationError("--scripted-memory-budget-bytes must be >= 0") }
        guard ["auto", "on", "off"].contains(readAhead) else { throw ValidationError("--read-ahead must be auto, on or off") }
        guard pluginIsolation == "process" || pluginIsolation == "none" else {
            throw ValidationError("--plugin-isolation must be process or none")
        }
        if let t = hookTimeoutMs, t <= 0 { throw ValidationError("--hook-timeout-ms must be positive") }
        guard ["on", "off"].contains(hookBatching) else { throw ValidationError("--hook-batching must be on or off, not \(hookBatching)") }
        guard pluginOutputLimit > 0 else { throw ValidationError("--plugin-output-limit must be positive") }
        guard pluginRestartLimit >= 0 else { throw ValidationError("--plugin-restart-limit must be 0 or more") }
        guard pluginStartTimeoutMs > 0 else { throw ValidationError("--plugin-start-timeout-ms must be positive") }
        if !pluginCommands.isEmpty && pluginIsolation == "none" {
            throw ValidationError("--plugin-command needs --plugin-isolation process: a command always runs in a worker process of its own")
        }
        for l in listen where NetworkListener(l) == nil { throw ValidationError("--listen takes tcp:HOST:PORT or ws:HOST:PORT, got \(l)") }
        for (name, v) in [("max-message-bytes", maxMessageBytes), ("max-batch", maxBatch), ("max-depth", maxDepth),
                          ("max-connections", maxConnections), ("max-outbound-bytes", maxOutboundBytes),
                          ("slow-reader-grace-ms", slowReaderGraceMs), ("auth-timeout-ms", authTimeoutMs),
                          ("max-unauthenticated", maxUnauthenticated), ("max-buffered-input-bytes", maxBufferedInputBytes)] where v <= 0 {
            throw ValidationError("--\(name) must be positive")
        }
    }

    /// The host's configuration from these options (also what `greenroom replay` runs its own host with,
    /// so that a replayed host answers as a served one does).
    func hostConfig(refuse: (String) -> ExitCode = { _ in ExitCode(2) }) throws -> HostConfig {
        var config = HostConfig()
        config.allowReset = allowReset
        if let record {
            // A private directory: transcripts hold whatever the clients sent.
            // Like mkdir -p: each missing directory on the way, private.
            var made = record.hasPrefix("/") ? "/" : ""
            for part in record.split(separator: "/") {
                made += (made.isEmpty || made == "/" ? "" : "/") + part
                if mkdir(made, 0o700) != 0 && errno != EEXIST {
                    throw refuse("--record \(record): cannot create \(made) (\(String(cString: strerror(errno))))")
                }
            }
            var info = stat()
            guard stat(record, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { throw refuse("--record \(record) is not a directory") }
            config.transcriptSink = { connection in TranscriptFile(path: "\(record)/\(connection).ndjson") }
        }
        config.logger = makeLogger(level: Logger.Level(rawValue: logLevel) ?? .warning)
        config.clockMode = clock == "virtual" ? .virtual : .real
        config.limits.maxMessageBytes = maxMessageBytes
        config.limits.maxBatch = maxBatch
        config.limits.maxDepth = maxDepth
        config.maxConnections = maxConnections
        config.maxOutboundBytes = maxOutboundBytes
        config.slowReaderGraceMs = slowReaderGraceMs
        config.authTimeoutMs = authTimeoutMs
        config.maxUnauthenticated = maxUnauthenticated
        config.maxBufferedInputBytes = maxBufferedInputBytes
        config.taskSliceMs = taskSliceMs
        guard poolCooldownMs >= 0, poolCooldownMs.isFinite else { throw refuse("--pool-cooldown-ms must be a number of ms >= 0") }
        guard poolBudgetBytes >= 0 else { throw refuse("--pool-budget-bytes must be >= 0") }
        config.poolCoolDownMs = poolCooldownMs
        config.poolBudgetBytes = poolBudgetBytes
        config.plugins.isolation = pluginIsolation == "none" ? .none : .process
        config.plugins.hookTimeoutMs = hookTimeoutMs ?? 2000
        config.plugins.maxOutputBytes = pluginOutputLimit
        config.plugins.batchesHooks = hookBatching == "on"
        config.plugins.restartLimitPerMinute = pluginRestartLimit
        config.plugins.startTimeoutMs = pluginStartTimeoutMs
        if pluginIsolation == "none" && hookTimeoutMs != nil && !plugins.isEmpty {
            writeStandardError("greenroom: warning: --hook-timeout-ms is not enforced with --plugin-isolation none: an in-process hook cannot be stopped\n")
        }
        config.scriptedMemoryBudgetBytes = scriptedMemoryBudgetBytes
        config.readAhead = readAhead == "on" || (readAhead == "auto" && sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1)
        if let tokenFile {
            do { config.token = try readToken(tokenFile) } catch let e as ValidationError { throw refuse(e.message) }
        }
        return config
    }

    func run() throws {
        // Start-up refusals (as opposed to malformed flags) exit 2 with one clear line.
        func refuse(_ message: String) -> ExitCode {
            writeStandardError("greenroom: \(message)\n")
            return ExitCode(2)
        }
        if bindAny && listen.isEmpty { throw refuse("--bind-any only makes sense with --listen tcp:HOST:PORT or ws:HOST:PORT") }
        if allowOrigin.contains("*") {
            writeStandardError("greenroom: warning: --allow-origin * lets any web page you visit drive this host through its ws: listener\n")
        }
        if bindAny && tokenFile == nil { throw refuse("--bind-any requires --token-file") }
        raiseFileLimit()  // up to --max-connections sockets plus listeners
        var config = try hostConfig(refuse: refuse)
        var options = ListenOptions()        // The same default as every client: --socket, then $GREENROOM_SOCKET, then the per-user default.
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
            defer { supervisor.stopAll() }
            for path in plugins {
                do { try supervisor.load(path: path) } catch { throw refuse(error.description) }
            }
            for command in pluginCommands {
                do { try supervisor.load(command: command) } catch { throw refuse(error.description) }
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
            if !server.handlesLeftAtExit.isEmpty {
                writeStandardError("greenroom: libuv handles left open at exit (a leak): \(server.handlesLeftAtExit.joined(separator: ", "))\n")
                throw ExitCode(70)
            }
        } catch let e as ServerSetupError {
            writeStandardError("greenroom: \(e.description)\n")
            throw ExitCode(2)
        } catch let e as UVError {
            writeStandardError("greenroom: \(e.description)\n")
            throw ExitCode(2)
        }
    }
}

/// The shortest token accepted: a shorter one is guessable through the wrong-token allowance.
let minimumTokenBytes = 16

/// Reads a token file, refusing one that is a symlink (another user could point it anywhere), that
/// belongs to another user or that others can read, and a token shorter than `minimumTokenBytes`.
func readToken(_ path: String) throws -> String {
    var st = stat()
    guard lstat(path, &st) == 0 else { throw ValidationError("cannot read token file \(path): \(String(cString: strerror(errno)))") }
    guard (st.st_mode & S_IFMT) != S_IFLNK else {
        throw ValidationError("token file \(path) is a symbolic link; give the path of the file itself")
    }
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard fd >= 0 else { throw ValidationError("cannot open token file \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
        throw ValidationError("token file \(path) is not a regular file")
    }
    guard st.st_uid == getuid() else {
        throw ValidationError("token file \(path) belongs to uid \(st.st_uid), not to this host's user (\(getuid())); it must be our own file")
    }
    guard st.st_mode & 0o077 == 0 else {
        throw ValidationError("token file \(path) is readable by others (mode \(String(st.st_mode & 0o777, radix: 8))); chmod 600 it")
    }
    var bytes: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 4096)
    while bytes.count <= 1 << 20 {
        let n = read(fd, &buf, buf.count)
        if n <= 0 { break }
        bytes.append(contentsOf: buf[0..<n])
    }
    let token = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
    guard !token.isEmpty else { throw ValidationError("token file \(path) is empty") }
    guard token.utf8.count >= minimumTokenBytes else {
        throw ValidationError("token in \(path) is \(token.utf8.count) bytes, shorter than the \(minimumTokenBytes) required; use a longer random token")
    }
    return token
}
