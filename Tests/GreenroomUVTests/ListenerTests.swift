import Glibc
import GreenroomHost
import Testing
@testable import GreenroomUV

/// The UV layer's pure pieces: how `--listen` addresses are read, the bind rules, socket path checks,
/// the lock file, and the listener list `ListenOptions` builds (nothing is bound in these tests).
@Suite struct ListenerTests {
    @Test func hostAndPortForms() throws {
        #expect(try TCPEndpoint(parsing: "127.0.0.1:7000") == TCPEndpoint(host: "127.0.0.1", port: 7000))
        #expect(try TCPEndpoint(parsing: "localhost:0") == TCPEndpoint(host: "127.0.0.1", port: 0))
        let v6 = try TCPEndpoint(parsing: "[::1]:65535")
        #expect(v6.host == "::1" && v6.port == 65535 && v6.isIPv6 && v6.isLoopback && v6.shownHost == "[::1]")
        #expect(try TCPEndpoint(parsing: "127.8.9.10:1").isLoopback)
        #expect(try !TCPEndpoint(parsing: "0.0.0.0:1").isLoopback)
        #expect(try !TCPEndpoint(parsing: "192.168.1.2:1").isLoopback)
        for bad in ["127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:http", ""] {
            #expect(throws: ServerSetupError.self, "\(bad)") { try TCPEndpoint(parsing: bad) }
        }
    }

    @Test func bindRules() throws {
        let any = try TCPEndpoint(parsing: "0.0.0.0:0"), loop = try TCPEndpoint(parsing: "127.0.0.1:0")
        try TCPBindRules(bindAny: false, hasToken: false).check(loop)
        try TCPBindRules(bindAny: true, hasToken: true).check(any)
        let e1 = #expect(throws: ServerSetupError.self) { try TCPBindRules(bindAny: false, hasToken: true).check(any) }
        #expect(e1?.description.contains("--bind-any") == true)
        let e2 = #expect(throws: ServerSetupError.self) { try TCPBindRules(bindAny: true, hasToken: false).check(loop) }
        #expect(e2?.description == "--bind-any requires --token-file")
    }

    @Test func networkListenerSpecs() {
        #expect(NetworkListener("tcp:127.0.0.1:1") == NetworkListener(kind: .tcp, address: "127.0.0.1:1"))
        #expect(NetworkListener("ws:[::1]:0") == NetworkListener(kind: .ws, address: "[::1]:0"))
        #expect(NetworkListener("http:127.0.0.1:1") == nil)
        #expect(NetworkListener("127.0.0.1:1") == nil)
    }

    @Test func socketPathLengthIsCheckedNotTruncated() throws {
        try checkSocketPathLength("/tmp/" + String(repeating: "a", count: 90))
        let e = #expect(throws: ServerSetupError.self) { try checkSocketPathLength("/tmp/" + String(repeating: "a", count: 120)) }
        #expect(e?.description.contains("sun_path") == true)
    }

    @Test func listenersInOrderUnixFirst() throws {
        var options = ListenOptions()
        options.socketPath = "/tmp/greenroom-uv-test.sock"
        options.network = [NetworkListener(kind: .ws, address: "127.0.0.1:0"), NetworkListener(kind: .tcp, address: "localhost:0")]
        let list = try options.listeners(for: Host(config: HostConfig()))
        #expect(list.map(\.kind) == [.unix, .ws, .tcp])
        #expect(list[0].address == "unix:/tmp/greenroom-uv-test.sock")
        // A refused address throws before anything is bound (no socket file, no lock file).
        options.network = [NetworkListener(kind: .tcp, address: "10.0.0.1:0")]
        #expect(throws: ServerSetupError.self) { try options.listeners(for: Host(config: HostConfig())) }
        options.network = [NetworkListener(kind: .ws, address: "nonsense")]
        #expect(throws: ServerSetupError.self) { try options.listeners(for: Host(config: HostConfig())) }
    }

    @Test func lockFileGuardsTheSocketAndLeavesNothingWhenRefused() throws {
        let dir = "/tmp/greenroom-uv-lock-\(getpid())"
        mkdir(dir, 0o700)
        defer { rmdir(dir) }
        let socket = "\(dir)/host.sock"
        let lock = try SocketLock.acquire(socketPath: socket)
        // A second host on the same path is refused and takes nothing away.
        let e = #expect(throws: ServerSetupError.self) { try SocketLock.acquire(socketPath: socket) }
        #expect(e?.description.contains("pid \(getpid())") == true)
        #expect(access(lock.path, F_OK) == 0)
        lock.release()
        #expect(access(lock.path, F_OK) != 0)
        // A symlink planted as the lock file is never followed.
        symlink("/etc/hostname", lock.path)
        #expect(throws: ServerSetupError.self) { try SocketLock.acquire(socketPath: socket) }
        unlink(lock.path)
        // Something that is not a socket at the path is not removed; the lock file created is.
        let fd = open(socket, O_CREAT | O_WRONLY, 0o600)
        close(fd)
        #expect(throws: ServerSetupError.self) { try SocketLock.acquire(socketPath: socket) }
        #expect(access(socket, F_OK) == 0 && access(lock.path, F_OK) != 0)
        unlink(socket)
    }
}
