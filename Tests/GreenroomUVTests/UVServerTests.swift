import Glibc
import GreenroomHost
import Testing
@testable import GreenroomUV

/// The UV layer on a real loop: each test starts a server on a temporary socket (its loop on a thread of
/// its own), drives it over real sockets, shuts it down with `host.shutdown`, and ends by checking that the
/// loop stopped with no handle left open and closed cleanly.
@Suite(.serialized) struct UVServerTests {
    /// A blocking line client.
    final class LineSocket {
        let fd: Int32
        private var pending: [UInt8] = []

        init(unix path: String) throws {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &addr.sun_path) { raw in
                for (i, b) in path.utf8.enumerated() { raw[i] = b }
            }
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            try #require(rc == 0, "connect \(path): errno \(errno)")
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(fd) }

        func send(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        /// The next line, or nil at end of file (or after 10 s).
        func readLine() -> String? {
            while true {
                if let nl = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[..<nl], as: UTF8.self)
                    pending.removeSubrange(...nl)
                    return line
                }
                var buf = [UInt8](repeating: 0, count: 4096)
                let n = recv(fd, &buf, buf.count, 0)
                guard n > 0 else { return nil }
                pending.append(contentsOf: buf[0..<n])
            }
        }

        func call(_ id: Int, _ method: String, _ params: String = "{}") -> String? {
            send("{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"\(method)\",\"params\":\(params)}\n")
            while let line = readLine() {
                if line.contains("\"id\":\(id),") || line.contains("\"id\":\(id)}") { return line }
            }
            return nil
        }
    }

    /// A server on a temporary socket for `body`, shut down after it; the loop must stop with no handle
    /// left and close.
    /// The directory of the test bundle, where the build put `greenroom` and the example plugins.
    static var buildDirectory: String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        let exe = String(decoding: buf[0..<max(0, n)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    }

    static func withServer(plugins: [String] = [], _ body: (_ socket: String, _ server: UVServer) throws -> Void) throws {
        let dir = "/tmp/gr-uvt-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try #require(mkdir(dir, 0o700) == 0)
        defer { rmdir(dir) }
        var options = ListenOptions()
        options.socketPath = "\(dir)/host.sock"
        var config = HostConfig()
        config.plugins.workerExecutable = "\(buildDirectory)/greenroom"
        let host = Host(config: config, realClock: UVServer.monotonicClock())
        let server = try UVServer(host: host, listeners: options.listeners(for: host))
        let supervisor = PluginSupervisor.install(on: host)
        defer { host.lane.runToEnd { await supervisor.stopAll() } }
        for p in plugins {
            let failure = host.lane.runToEnd { () async -> String? in
                do { _ = try await supervisor.load(path: "\(buildDirectory)/lib\(p).so") } catch { return "\(error)" }
                return nil
            }
            if let failure { Issue.record("plugin \(p): \(failure)") }
        }
        try server.listen()
        let running = Running(server)
        var thread = pthread_t()
        let box = Unmanaged.passRetained(running).toOpaque()
        try #require(pthread_create(&thread, nil, { arg in
            let running = Unmanaged<Running>.fromOpaque(arg!).takeRetainedValue()
            running.run()
            return nil
        }, box) == 0)
        var bodyError: Error?
        do { try body("\(dir)/host.sock", server) } catch { bodyError = error }
        let stopper = try LineSocket(unix: "\(dir)/host.sock")
        _ = stopper.call(999_999, "host.shutdown")
        pthread_join(thread, nil)
        if let bodyError { throw bodyError }
        #expect(running.error == nil, "the loop did not close: \(String(describing: running.error))")
        #expect(server.handlesLeftAtExit == [], "handles left open at exit")
        #expect(access("\(dir)/host.sock", F_OK) != 0, "the socket file was left behind")
    }

    /// A server running on a thread of its own: the test reads `error` only after joining that thread.
    final class Running: @unchecked Sendable {
        let server: UVServer
        var error: Error?
        init(_ server: UVServer) { self.server = server }
        func run() {
            do { try server.run() } catch { self.error = error }
        }
    }

    @Test func aPingAndAShutdownLeaveNoHandle() throws {
        try Self.withServer { path, _ in
            let c = try LineSocket(unix: path)
            #expect(c.call(1, "host.ping") == #"{"jsonrpc":"2.0","id":1,"result":{"pong":true}}"#)
        }
    }

    @Test func aHalfClosedClientGetsEveryReplyThenTheEnd() throws {
        try Self.withServer { path, _ in
            let c = try LineSocket(unix: path)
            c.send((1...3).map { "{\"jsonrpc\":\"2.0\",\"id\":\($0),\"method\":\"host.ping\"}\n" }.joined())
            shutdown(c.fd, Int32(SHUT_WR))
            let replies = [c.readLine(), c.readLine(), c.readLine()]
            #expect(replies.allSatisfy { $0?.contains("\"pong\":true") == true })
            #expect(c.readLine() == nil)
        }
    }

    @Test func aClientGoneMidLineTakesItsObjectsWithItAndNothingElse() throws {
        try Self.withServer { path, _ in
            let watcher = try LineSocket(unix: path)
            #expect(watcher.call(1, "events.subscribe", #"{"topics":["host","lifecycle"],"scope":"all"}"#) != nil)
            do {
                let gone = try LineSocket(unix: path)
                #expect(gone.call(1, "stack.create", #"{"width":100,"height":100}"#)?.contains("s-1") == true)
                #expect(gone.call(2, "container.create", #"{"class":"Container"}"#)?.contains("c-1") == true)
                #expect(gone.call(3, "stack.push", #"{"stack":"s-1","container":"c-1"}"#) != nil)
                gone.send(#"{"jsonrpc":"2.0","id":4,"method":"host.pi"#)  // and no newline: it goes away mid-line
            }
            var seen: [String] = []
            while let line = watcher.readLine(), !line.contains("connectionClosed") { seen.append(line) }
            #expect(seen.contains { $0.contains("\"event\":\"viewDidDisappear\"") })
            #expect(seen.contains { $0.contains("\"event\":\"deinit\"") })
            let stats = watcher.call(2, "host.stats")
            #expect(stats?.contains("\"unbalancedTransitions\":0") == true)
            #expect(stats?.contains("\"open\":1") == true)
        }
    }

    @Test func aRefusedLineKeepsTheConnection() throws {
        try Self.withServer { path, _ in
            let c = try LineSocket(unix: path)
            c.send("{not json\n")
            #expect(c.readLine()?.contains("-32700") == true)
            #expect(c.call(2, "host.ping")?.contains("pong") == true)
        }
    }

    @Test func aPluginWorkerThatDiesAndComesBackLeavesNoHandle() throws {
        // The lane, the loop's hand-over and the watch on the worker's socket all open handles of their own.
        try Self.withServer(plugins: ["CrashyPlugin"]) { path, _ in
            let c = try LineSocket(unix: path)
            #expect(c.call(1, "events.subscribe", #"{"topics":["host"]}"#) != nil)
            #expect(c.call(2, "container.create", #"{"class":"Crashy"}"#)?.contains("c-1") == true)
            #expect(c.call(3, "container.configure", #"{"container":"c-1","data":{"crash":"abort"}}"#)?.contains("SIGABRT") == true)
            // The worker restarts: a new container of the class works.
            var created: String?
            for i in 0..<200 where created == nil {
                let r = c.call(10 + i, "container.create", #"{"class":"Crashy"}"#)
                if r?.contains("\"result\"") == true { created = r } else { usleep(10_000) }
            }
            #expect(created != nil)
        }
    }
}
