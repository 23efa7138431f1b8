import ArgumentParser
import Glibc
import GreenroomHost
import GreenroomUV

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the host.")

    @Option(help: "Unix socket path (default: $XDG_RUNTIME_DIR/greenroom/host.sock or /tmp/greenroom-$UID/host.sock).")
    var socket: String?

    @Option(help: "Also listen on TCP: tcp:HOST:PORT (loopback unless --bind-any; port 0 picks one).")
    var listen: String?

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

    @Option(help: "Longest message in bytes.") var maxMessageBytes = 1 << 20
    @Option(help: "Most entries in a batch.") var maxBatch = 256
    @Option(help: "Deepest JSON nesting.") var maxDepth = 64
    @Option(help: "Most concurrent connections.") var maxConnections = 1024
    @Option(help: "Most queued outbound bytes per connection before it is closed.") var maxOutboundBytes = 8 << 20
    @Option(help: "Idle-task time slice per loop pass, in ms.") var taskSliceMs = 4.0
    @Option(help: "Host-wide budget in bytes for the memory scripted classes' instances hold (memoryBytes times live instances); creating one past it is -32005.")
    var scriptedMemoryBudgetBytes = 1 << 30
    @Option(help: "Parse pipelined requests ahead of the loop on a second thread: auto (when there is more than one CPU), on or off.")
    var readAhead = "auto"

    func validate() throws {
        guard clock == "real" || clock == "virtual" else { throw ValidationError("--clock must be real or virtual") }
        guard taskSliceMs.isFinite, taskSliceMs > 0, taskSliceMs <= 1000 else {
            throw ValidationError("--task-slice-ms must be a number of ms in (0, 1000]")
        }
        guard scriptedMemoryBudgetBytes >= 0 else { throw ValidationError("--scripted-memory-budget-bytes must be >= 0") }
        guard ["auto", "on", "off"].contains(readAhead) else { throw ValidationError("--read-ahead must be auto, on or off") }
        if let l = listen, !l.hasPrefix("tcp:") { throw ValidationError("--listen takes tcp:HOST:PORT") }
        for (name, v) in [("max-message-bytes", maxMessageBytes), ("max-batch", maxBatch), ("max-depth", maxDepth),
                          ("max-connections", maxConnections), ("max-outbound-bytes", maxOutboundBytes)] where v <= 0 {
            throw ValidationError("--\(name) must be positive")
        }
    }

    func run() throws {
        // Start-up refusals (as opposed to malformed flags) exit 2 with one clear line.
        func refuse(_ message: String) -> ExitCode {
            fputs("greenroom: \(message)\n", stderr)
            return ExitCode(2)
        }
        if bindAny && listen == nil { throw refuse("--bind-any only makes sense with --listen tcp:HOST:PORT") }
        if bindAny && tokenFile == nil { throw refuse("--bind-any requires --token-file") }
        raiseFileLimit()  // up to --max-connections sockets plus listeners
        var config = HostConfig()
        config.clockMode = clock == "virtual" ? .virtual : .real
        config.limits.maxMessageBytes = maxMessageBytes
        config.limits.maxBatch = maxBatch
        config.limits.maxDepth = maxDepth
        config.maxConnections = maxConnections
        config.maxOutboundBytes = maxOutboundBytes
        config.taskSliceMs = taskSliceMs
        config.scriptedMemoryBudgetBytes = scriptedMemoryBudgetBytes
        config.readAhead = readAhead == "on" || (readAhead == "auto" && sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1)
        if let tokenFile {
            do { config.token = try readToken(tokenFile) } catch let e as ValidationError { throw refuse(e.message) }
        }
        var options = ListenOptions()
        options.socketPath = socket
        options.tcp = listen.map { String($0.dropFirst(4)) }
        options.bindAny = bindAny
        options.allowedUIDs = allowUid
        do {
            let server = try UVServer(config: config, options: options)
            // Plugins load before any socket exists: a bad one is a clear start-up error.
            for path in plugins {
                do { try PluginLoader.load(path: path, into: server.host) } catch { throw refuse(error.description) }
            }
            do { try server.listen() } catch {
                server.abandon()
                throw error
            }
            let listenJSON = server.listenAddresses.map { "\"\($0)\"" }.joined(separator: ",")
            print("{\"event\":\"ready\",\"listen\":[\(listenJSON)],\"pid\":\(getpid())}")
            fflush(stdout)
            try server.run()
        } catch let e as ServerSetupError {
            fputs("greenroom: \(e.description)\n", stderr)
            throw ExitCode(2)
        } catch let e as UVError {
            fputs("greenroom: \(e.description)\n", stderr)
            throw ExitCode(2)
        }
    }
}

/// Reads a token file, refusing one that others can read.
func readToken(_ path: String) throws -> String {
    var st = stat()
    guard stat(path, &st) == 0 else { throw ValidationError("cannot read token file \(path)") }
    guard st.st_mode & 0o077 == 0 else {
        throw ValidationError("token file \(path) is readable by others (mode \(String(st.st_mode & 0o777, radix: 8))); chmod 600 it")
    }
    guard let f = fopen(path, "r") else { throw ValidationError("cannot open token file \(path)") }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buf, 1, buf.count, f)
        if n <= 0 { break }
        bytes.append(contentsOf: buf[0..<n])
    }
    let token = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
    guard !token.isEmpty else { throw ValidationError("token file \(path) is empty") }
    return token
}
