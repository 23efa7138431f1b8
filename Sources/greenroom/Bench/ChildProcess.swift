import Glibc

/// A server process the benchmark starts and stops itself (the host, or a baseline).
final class ChildProcess {
    let pid: pid_t
    private let stdoutFD: Int32
    /// The server's ready line.
    let readyLine: String
    /// The port of a `tcp:HOST:PORT` address in the ready line, if any.
    var tcpPort: UInt16? { port(of: "tcp") }

    /// The port of the first `KIND:HOST:PORT` address in the ready line ("tcp", "ws"), if any.
    func port(of kind: String) -> UInt16? {
        // The ready line lists addresses as "unix:PATH", "tcp:HOST:PORT" and "ws:HOST:PORT" strings.
        let quoted = readyLine.split(separator: "\"")
        guard let address = quoted.first(where: { $0.hasPrefix(kind + ":") }) else { return nil }
        return address.split(separator: ":").last.flatMap { UInt16($0) }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Starts `/proc/self/exe` with `arguments` and waits for its ready line on stdout.
    init(arguments: [String]) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw Failure(description: "pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        let exe = "/proc/self/exe"
        let argv: [UnsafeMutablePointer<CChar>?] = ([exe] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, exe, &actions, nil, argv, environ)
        posix_spawn_file_actions_destroy(&actions)
        close(fds[1])
        guard rc == 0 else { throw Failure(description: "posix_spawn failed: \(rc)") }
        pid = child
        stdoutFD = fds[0]
        // Wait for `{"event":"ready"...}` so no measurement starts before the server listens.
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(stdoutFD, &byte, 1) == 1 {
            if byte == 0x0A { break }
            line.append(byte)
        }
        readyLine = String(decoding: line, as: UTF8.self)
        guard readyLine.contains("\"ready\"") else {
            throw Failure(description: "\(arguments.joined(separator: " ")) did not become ready")
        }
    }

    /// SIGTERM, then reap.
    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(stdoutFD)
    }
}

