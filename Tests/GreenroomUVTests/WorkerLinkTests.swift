import CLibUV
import Glibc
import GreenroomHost
import Testing
@testable import GreenroomUV

/// A worker's socket as the loop serves it, against the other end of a socketpair standing in for the
/// worker: no host, no process.
@Suite struct WorkerLinkTests {
    /// A loop, its worker sockets, and a socketpair: `link` is the host's end, `peer` the worker's.
    final class Fixture {
        let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 64 << 10, alignment: 16)
        let sockets: UVWorkerSockets
        let link: WorkerLink
        var peer: Int32
        /// An idle link keeps no reference on the loop (a server's listeners do): this timer does, so the
        /// loop goes on polling.
        let keepAlive = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)

        init() throws {
            uv_loop_init(loop)
            uv_timer_init(loop, keepAlive)
            uv_timer_start(keepAlive, { _ in }, 3_600_000, 0)
            sockets = UVWorkerSockets(loop: loop, readBuffer: buffer, readBufferSize: 64 << 10)
            var fds: [Int32] = [0, 0]
            try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
            peer = fds[1]
            _ = fcntl(peer, F_SETFL, fcntl(peer, F_GETFL) | O_NONBLOCK)
            link = sockets.link(fd: fds[0])
        }

        /// Turns the loop without blocking until `done` holds (at most `turns` times).
        func run(until done: () -> Bool, turns: Int = 100_000) -> Bool {
            for _ in 0..<turns {
                if done() { return true }
                uv_run(loop, UV_RUN_NOWAIT)
            }
            return done()
        }

        /// Closes everything and checks the loop has no handle left.
        func finish() -> Bool {
            link.close()
            if peer >= 0 { close(peer) }
            sockets.closeAll()
            uv_close(UnsafeMutableRawPointer(keepAlive).assumingMemoryBound(to: uv_handle_t.self), nil)
            uv_run(loop, UV_RUN_DEFAULT)
            keepAlive.deallocate()
            let closed = uv_loop_close(loop) == 0
            loop.deallocate()
            buffer.deallocate()
            return closed
        }
    }

    /// More than the socket holds: what `uv_try_write` cannot take is queued and goes out in order as
    /// the worker reads.
    @Test func aLargeWriteIsQueuedAndArrivesWholeInOrder() throws {
        let f = try Fixture()
        let bytes = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 13) }
        f.link.send(bytes)
        f.link.send([1, 2, 3])
        var got: [UInt8] = []
        let all = f.run(until: {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64 << 10) { chunk in
                let n = recv(f.peer, chunk.baseAddress!, chunk.count, Int32(MSG_DONTWAIT))
                if n > 0 { got.append(contentsOf: chunk[0..<n]) }
            }
            return got.count >= bytes.count + 3
        })
        #expect(all && got == bytes + [1, 2, 3])
        #expect(f.finish())
    }

    /// What the worker writes is kept until taken; a parked wait is woken by it; end of file comes after
    /// every byte was taken, and a worker that closes between calls is reported once.
    @Test func readsAreKeptWaitsWokenAndAHangUpReportedOnce() throws {
        let f = try Fixture()
        var woken: [Bool] = []
        f.link.whenReceived(timeoutMs: 5000) { woken.append($0) }
        var frame = WireWriter(.ok)
        frame.u64(7)
        frame.u64(64)
        let sent = frame.finished()
        _ = sent.withUnsafeBytes { send(f.peer, $0.baseAddress!, $0.count, 0) }
        #expect(f.run(until: { !woken.isEmpty }) && woken == [true])
        var incoming = FrameBuffer(maxBody: 1 << 10)
        #expect(try f.link.take(into: &incoming))
        let reply = try #require(try incoming.next())
        #expect(reply.kind == WorkerFrame.ok.rawValue && reply.body.count == 16)
        // Nothing more: a wait times out.
        f.link.whenReceived(timeoutMs: 1) { woken.append($0) }
        #expect(f.run(until: { woken.count == 2 }) && woken == [true, false])
        // The worker goes away between calls.
        var hangUps = 0
        f.link.watchHangUp { hangUps += 1 }
        close(f.peer)
        f.peer = -1
        #expect(f.run(until: { hangUps == 1 }) && f.link.hasHungUp)
        #expect(throws: WireError.self) { _ = try f.link.take(into: &incoming) }
        _ = f.run(until: { false }, turns: 100)
        #expect(hangUps == 1)
        #expect(f.finish())
    }
}
