import GreenroomCore
import ArgumentParser
import Glibc
import GreenroomHost
import GreenroomServe
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
    var clock: String = ServeOptions().clock
    @Option(help: "The UIKit modelled: 17 (containers get viewIsAppearing after viewWillAppear), or 16 (they do not, as before iOS 17).")
    var uikit: Int = ServeOptions().uikit

    @Option(help: "Also accept Unix peers with this uid (repeatable).")
    var allowUid: [UInt32] = []

    @Option(name: .customLong("plugin"), help: "Load a native plugin: a shared library exporting greenroom_plugin_init (repeatable).")
    var plugins: [String] = []
    @Option(name: .customLong("plugin-command"), help: ArgumentHelp("Run a plugin worker written in any language: the command (split into words as a shell would, without one: quotes and backslashes, no variables) speaks the worker protocol (docs/worker-protocol.md). Repeatable; started after the --plugin libraries.", valueName: "command"))
    var pluginCommands: [String] = []
    @Option(help: "How long a starting plugin worker may take to say it is ready, in ms; past it the host refuses it.")
    var pluginStartTimeoutMs = ServeOptions().pluginStartTimeoutMs

    @Option(help: "process: each plugin in a worker process of its own (a crash fails only its containers); none: loaded into the host (faster hooks, no protection).")
    var pluginIsolation = ServeOptions().pluginIsolation
    @Option(help: "A plugin hook running longer fails its container and its worker is killed and restarted (default 2000; not enforceable with --plugin-isolation none).")
    var hookTimeoutMs: Int?
    @Option(help: "Most bytes of output one plugin hook may give; more fails the hook.") var pluginOutputLimit = ServeOptions().pluginOutputLimit
    @Option(help: "on: the hooks one call runs in a plugin's worker go there in one message (a showRendered hit: one round trip, not ten); off: one message per hook. The events and replies are the same either way.")
    var hookBatching = ServeOptions().hookBatching
    @Option(help: "Most restarts of one plugin's worker per minute; one more crash marks the plugin failed until plugins.restart.")
    var pluginRestartLimit = ServeOptions().pluginRestartLimit

    @Option(help: "Longest message in bytes.") var maxMessageBytes = ServeOptions().maxMessageBytes
    @Option(help: "Most entries in a batch.") var maxBatch = ServeOptions().maxBatch
    @Option(help: "Deepest JSON nesting.") var maxDepth = ServeOptions().maxDepth
    @Option(help: "Most concurrent connections.") var maxConnections = ServeOptions().maxConnections
    @Option(help: "Queued outbound bytes per connection past which a peer that takes nothing for --slow-reader-grace-ms is closed (a reading peer never is; requests pause well before it).")
    var maxOutboundBytes = ServeOptions().maxOutboundBytes
    @Option(help: "How long a peer that is paused by backpressure, or past --max-outbound-bytes, may take no bytes before it is closed as a slow reader, in ms.")
    var slowReaderGraceMs = ServeOptions().slowReaderGraceMs
    @Option(help: "With --token-file: how long a TCP connection has to succeed at host.auth before it is refused (-32006) and closed, in ms.")
    var authTimeoutMs = ServeOptions().authTimeoutMs
    @Option(help: "With --token-file: most TCP connections open at once that have not authenticated yet (at most half of --max-connections).")
    var maxUnauthenticated = ServeOptions().maxUnauthenticated
    @Option(help: "Host-wide budget for bytes held in partial (unterminated) input lines; past it the connections holding the most are refused first.")
    var maxBufferedInputBytes = ServeOptions().maxBufferedInputBytes
    @Option(help: "Most calls that may wait (on a plugin worker or a scripted cost) waiting at once, host-wide; past it a further one gets -32005.")
    var maxWaitingCalls = ServeOptions().maxWaitingCalls
    @Option(help: "Idle-task time slice per loop pass, in ms.") var taskSliceMs = ServeOptions().taskSliceMs
    @Option(help: "After a memory warning, pools refill only on demand for this long, in ms of host clock.") var poolCooldownMs = ServeOptions().poolCooldownMs
    @Option(help: "Host-wide budget in bytes for what idle pooled containers hold; past it the least recently warmed go first.")
    var poolBudgetBytes = ServeOptions().poolBudgetBytes
    @Option(help: "Host-wide budget in bytes for the memory scripted classes' instances hold (memoryBytes times live instances); creating one past it is -32005.")
    var scriptedMemoryBudgetBytes = ServeOptions().scriptedMemoryBudgetBytes
    @Option(help: "Parse pipelined requests ahead of the loop on a second thread: auto (when there is more than one CPU), on or off.")
    var readAhead = ServeOptions().readAhead

    @Option(help: "Record every connection's transcript (what it sent, the replies and events it received) in DIR/conn-N.ndjson; replay one with greenroom replay. See docs/transcripts.md.")
    var record: String?
    @Flag(help: "Allow host.reset under the real clock (it tears down every connection's objects; under --clock virtual it is always allowed).")
    var allowReset = false

    @Option(help: "Structured logs on stderr at this level and above: trace, debug, info, notice, warning, error, critical. Tokens and message bodies are never logged at info or above.")
    var logLevel = ServeOptions().logLevel

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        guard clock == "real" || clock == "virtual" else { throw ValidationError("--clock must be real or virtual") }
        guard UIKitGeneration(rawValue: uikit) != nil else {
            throw ValidationError("--uikit must be one of \(UIKitGeneration.allCases.map { String($0.rawValue) }.joined(separator: ", ")), not \(uikit)")
        }
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
                          ("max-unauthenticated", maxUnauthenticated), ("max-buffered-input-bytes", maxBufferedInputBytes),
                          ("max-waiting-calls", maxWaitingCalls)] where v <= 0 {
            throw ValidationError("--\(name) must be positive")
        }
    }

    /// These options as plain values (what `greenroom-host` and `greenroom replay` build a host from).
    var options: ServeOptions {
        var o = ServeOptions()
        o.socket = socket
        o.listen = listen
        o.allowOrigin = allowOrigin
        o.bindAny = bindAny
        o.tokenFile = tokenFile
        o.clock = clock
        o.uikit = uikit
        o.allowUid = allowUid
        o.plugins = plugins
        o.pluginCommands = pluginCommands
        o.pluginStartTimeoutMs = pluginStartTimeoutMs
        o.pluginIsolation = pluginIsolation
        o.hookTimeoutMs = hookTimeoutMs
        o.pluginOutputLimit = pluginOutputLimit
        o.hookBatching = hookBatching
        o.pluginRestartLimit = pluginRestartLimit
        o.maxMessageBytes = maxMessageBytes
        o.maxBatch = maxBatch
        o.maxDepth = maxDepth
        o.maxConnections = maxConnections
        o.maxOutboundBytes = maxOutboundBytes
        o.slowReaderGraceMs = slowReaderGraceMs
        o.authTimeoutMs = authTimeoutMs
        o.maxUnauthenticated = maxUnauthenticated
        o.maxBufferedInputBytes = maxBufferedInputBytes
        o.maxWaitingCalls = maxWaitingCalls
        o.taskSliceMs = taskSliceMs
        o.poolCooldownMs = poolCooldownMs
        o.poolBudgetBytes = poolBudgetBytes
        o.scriptedMemoryBudgetBytes = scriptedMemoryBudgetBytes
        o.readAhead = readAhead
        o.record = record
        o.allowReset = allowReset
        o.logLevel = logLevel
        return o
    }

    func run() throws {
        var o = options
        // The host runs in greenroom-host when it is here (a smaller process: see `HostExecutable`);
        // plugin workers are still this executable's `plugin-worker`.
        if let me = HostExecutable.current() {
            o.workerExecutable = me
            if let host = HostExecutable.beside(me) {
                let reason = HostExecutable.replaceProcess(with: host, o)
                writeStandardError("greenroom: warning: cannot start \(host) (\(reason)); serving in this process\n")
            }
        }
        let status = o.serve()
        if status != 0 { throw ExitCode(status) }
    }
}

/// `readToken` for the commands: a refusal is the argument parser's validation error.
func readToken(_ path: String) throws -> String {
    do { return try GreenroomServe.readToken(path) } catch { throw ValidationError(error.message) }
}
