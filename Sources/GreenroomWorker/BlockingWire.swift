import Glibc
import GreenroomRPC
import GreenroomHost

/// The worker's side of the wire blocks: a worker does one thing at a time, and while it waits for its
/// host there is nothing else for it to do. (The host never blocks: its calls park in the call lane.)
enum BlockingWire {
    /// Waits until `fd` is ready for reading (`writable`: writing), or throws `timeout` once `deadline`
    /// passes.
    static func wait(_ fd: Int32, _ writable: Bool, _ deadline: UInt64?) throws(WireError) {
        while true {
            let timeout = Int32(clamping: try Wire.msLeft(until: deadline) ?? -1)
            var p = pollfd(fd: fd, events: Int16(writable ? POLLOUT : POLLIN), revents: 0)
            let n = poll(&p, 1, timeout)
            if n > 0 { return }
            if n < 0 && errno != EINTR { throw .io(errno) }
        }
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(WireError) {
        try Wire.writeAll(fd, bytes, deadline: nil, wait: wait)
    }

    static func readFrame(_ fd: Int32, maxBody: Int) throws(WireError) -> WireReader {
        try Wire.readFrame(fd, maxBody: maxBody, deadline: nil, wait: wait)
    }

    /// Whether `fd` has bytes to read within `spinNanos` of looking without sleeping. A host's batch
    /// usually follows its `wake` within tens of microseconds; on a virtual machine, being woken for it
    /// costs about as much, so the worker looks for it awake first.
    static func readable(_ fd: Int32, spinningNanos spin: UInt64) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let end = monotonicNanos() + spin
        repeat {
            if poll(&p, 1, 0) != 0 { return true }
        } while monotonicNanos() < end
        return false
    }
}

/// Waits served by blocking, for a host with no loop (`greenroom replay` in process: one client, whose
/// calls run one after another). The lane stays off there, so every call runs where it is read.
public final class BlockingWaits: LoopWaits {
    public init() {}

    package func link(fd: Int32) -> WorkerLink { BlockingLink(fd: fd) }

    @discardableResult
    package func after(ms: Int, _ done: @escaping () -> Void) -> () -> Void {
        var ts = timespec(tv_sec: ms / 1000, tv_nsec: (ms % 1000) * 1_000_000)
        var left = timespec()
        while nanosleep(&ts, &left) != 0 && errno == EINTR { ts = left }
        done()
        return {}
    }

    package func runOnce() {}
}

/// A worker's socket read and written where the call runs, blocking while it waits (`BlockingWaits`).
final class BlockingLink: WorkerLink {
    private(set) var fd: Int32
    private var ended: WireError?

    init(fd: Int32) { self.fd = fd }

    func send(_ bytes: [UInt8]) {
        guard fd >= 0, ended == nil else { return }
        do throws(WireError) { try BlockingWire.writeAll(fd, bytes) } catch { ended = error }
    }

    func take(into buffer: inout FrameBuffer) throws(WireError) -> Bool {
        if let ended { throw ended }
        guard fd >= 0 else { throw .closed }
        return try buffer.receive(fd)
    }

    func whenReceived(timeoutMs: Int?, _ done: @escaping (Bool) -> Void) {
        guard fd >= 0, ended == nil else { return done(true) }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let n = poll(&p, 1, Int32(clamping: timeoutMs ?? -1))
            if n >= 0 || errno != EINTR { return done(n != 0) }
        }
    }

    /// No loop watches it: a worker that died between calls is found by the next call.
    func watchHangUp(_ hungUp: @escaping () -> Void) {}
    func stopWatching() {}

    var hasHungUp: Bool {
        guard fd >= 0 else { return true }
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }
}
