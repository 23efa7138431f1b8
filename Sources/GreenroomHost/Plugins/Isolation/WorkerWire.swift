import Glibc
import GreenroomRPC
import GreenroomCore
import GreenroomJSON

/// The frames a plugin worker and its host exchange over their socket: a 4-byte little-endian
/// length, then a kind byte, then the body. One request is in flight at a time; the worker answers
/// each with `ok` or `failed`. docs/worker-protocol.md is the contract, for workers in any language.
///
///   hello   JSON {"protocols": [1], "maxOutputBytes", "maxDepth", "hookTimeoutMs"}: the host's first frame
///   ready   JSON {"protocol": 1, "plugin", "version", "classes", "optionalHooks": {class: [hook]}, "batches"?}:
///           the worker's answer to hello, once its classes are known
///   refused UTF-8 message: the worker cannot serve (its library does not load, no common version); it then exits
///   create  u32 class index, container id (UTF-8)          -> ok: instance id, memory bytes
///   hook    u64 instance, u16 name length, name, input JSON  -> ok: 0, memory bytes, output JSON (may be empty)
///   batch   u32 count, then `count` whole hook frames         -> one reply per hook, up to and including the
///           first `failed` (the hooks after it do not run)
///   destroy u64 instance                                     -> ok
///   wake    (no body): a batch follows soon; the worker looks for it awake for a moment (no reply)
///   failed  JSON {"message", "data"}: the plugin failed the call (the worker lives on)
package enum WorkerFrame: UInt8 {
    case hello = 0x56, create = 0x43, hook = 0x48, batch = 0x42, wake = 0x57, destroy = 0x44, ok = 0x4F, failed = 0x46,
         ready = 0x52, refused = 0x45
}

/// The worker protocol's versions: the host offers `supported` in `hello`, the worker names the one it
/// speaks in `ready`. A version changes only on an incompatible change; fields are only ever added.
package enum WorkerProtocol {
    package static let version = 1
    package static let supported: Set<Int> = [1]
}

/// Builds one frame.
package struct WireWriter {
    private(set) var bytes: [UInt8] = [0, 0, 0, 0]

    package init(_ kind: WorkerFrame) { bytes.append(kind.rawValue) }

    package mutating func u16(_ v: Int) { for i in 0..<2 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
    package mutating func u32(_ v: Int) { for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
    package mutating func u64(_ v: UInt64) { for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
    package mutating func raw<S: Sequence<UInt8>>(_ s: S) { bytes.append(contentsOf: s) }

    package var count: Int { bytes.count }

    package mutating func reserve(_ n: Int) { bytes.reserveCapacity(n) }

    /// Writes `v` over the four bytes at `offset` (a length known only once what follows is written).
    package mutating func setU32(_ v: Int, at offset: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: v >> (8 * i)) }
    }

    /// A `hook` request after its kind: the instance, the hook's name and its input.
    package mutating func hookBody(_ hook: Hook, handle: UInt64, input: JSONObject, scratch: ByteBuffer = ByteBuffer(capacity: 256)) {
        u64(handle)
        let name = hook.rawValue.utf8
        u16(name.count)
        raw(name)
        scratch.removeAll()
        JSONCodec.encode(.object(input), into: scratch)
        raw(scratch.bytes)
    }

    /// The frame with its length filled in.
    package consuming func finished() -> [UInt8] {
        var b = bytes
        let n = b.count - 4
        for i in 0..<4 { b[i] = UInt8(truncatingIfNeeded: n >> (8 * i)) }
        return b
    }
}

/// A `batch` frame written in place, hook by hook: a count, then each hook's request frame as it
/// would be sent alone (its length first). One buffer for the whole batch: a `showRendered` hit sends
/// a dozen hooks, and each copy or allocation here is on the hit's path.
package struct BatchRequest {
    private var w = WireWriter(.batch)
    /// Where each hook's frame starts.
    private(set) var starts: [Int] = []
    /// Reused for each hook's input (the codec writes into a buffer).
    private let scratch = ByteBuffer(capacity: 256)

    package init() {
        w.reserve(1024)
        w.u32(0)
        starts.reserveCapacity(16)
    }

    package var count: Int { starts.count }

    /// Adds the request that runs `hook` on the worker's instance `handle` with `input`.
    package mutating func add(_ hook: Hook, handle: UInt64, input: JSONObject) {
        let start = w.count
        starts.append(start)
        w.u32(0)
        w.raw(CollectionOfOne(WorkerFrame.hook.rawValue))
        w.hookBody(hook, handle: handle, input: input, scratch: scratch)
        w.setU32(w.count - start - 4, at: start)
    }

    /// The `batch` frame.
    package func frame() -> [UInt8] {
        var whole = w
        whole.setU32(starts.count, at: 5)
        return whole.finished()
    }

    /// Hook `k`'s frame alone (for a worker that must be sent one hook at a time).
    package func hookFrame(_ k: Int, in frame: [UInt8]) -> [UInt8] {
        Array(frame[starts[k]..<(k + 1 < starts.count ? starts[k + 1] : frame.count)])
    }
}

extension Hook {
    private static let wireNames: [(name: [UInt8], hook: Hook)] = allCases.map { (Array($0.rawValue.utf8), $0) }

    /// The hook a request names, read from its UTF-8 bytes without making a string (a worker reads a
    /// dozen per `showRendered` hit).
    package static func named(_ bytes: ArraySlice<UInt8>) -> Hook? {
        for entry in wireNames where entry.name.count == bytes.count && entry.name.elementsEqual(bytes) { return entry.hook }
        return nil
    }
}

/// Reads one frame's body.
package struct WireReader {
    package let kind: UInt8
    package let body: [UInt8]
    package var at = 0

    package init(kind: UInt8, body: [UInt8]) {
        self.kind = kind
        self.body = body
    }

    package mutating func u16() -> Int? { int(2).map { Int($0) } }
    package mutating func u32() -> Int? { int(4).map { Int($0) } }
    package mutating func u64() -> UInt64? { int(8) }

    private mutating func int(_ n: Int) -> UInt64? {
        guard at + n <= body.count else { return nil }
        var v: UInt64 = 0
        for i in 0..<n { v |= UInt64(body[at + i]) << (8 * UInt64(i)) }
        at += n
        return v
    }

    package mutating func bytes(_ n: Int) -> ArraySlice<UInt8>? {
        guard at + n <= body.count else { return nil }
        defer { at += n }
        return body[at..<(at + n)]
    }

    package var rest: ArraySlice<UInt8> { body[at...] }
}

/// Frames read from a non-blocking socket in as few reads as there are bytes ready (a batch's replies
/// arrive together).
package struct FrameBuffer {
    package var maxBody: Int
    private var bytes: [UInt8] = []
    private var at = 0

    package init(maxBody: Int) { self.maxBody = maxBody }

    /// The next whole frame in what was received, if any.
    package mutating func next() throws(WireError) -> WireReader? {
        guard bytes.count - at >= 5 else { return nil }
        let length = Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        guard length >= 1 else { throw .violation("a frame of length 0 (it has no kind)") }
        guard length - 1 <= maxBody else { throw .tooLarge(length - 1) }
        guard bytes.count - at >= 4 + length else { return nil }
        let frame = WireReader(kind: bytes[at + 4], body: Array(bytes[(at + 5)..<(at + 4 + length)]))
        at += 4 + length
        if at == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            at = 0
        }
        return frame
    }

    /// Bytes received and not yet returned as a frame.
    package var pending: Int { bytes.count - at }

    /// Adds what arrived (`more` is left empty: when nothing waits here, its storage is taken as it is).
    package mutating func append(_ more: inout [UInt8]) {
        if at == bytes.count {
            swap(&bytes, &more)
            at = 0
        } else {
            bytes.append(contentsOf: more)
        }
        more.removeAll(keepingCapacity: true)
    }

    /// Reads what the socket has now: true when something came, false when nothing is ready.
    package mutating func receive(_ fd: Int32) throws(WireError) -> Bool {
        while true {
            let n = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64 << 10) { chunk in
                let n = recv(fd, chunk.baseAddress!, chunk.count, Int32(MSG_DONTWAIT))
                if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
                return n
            }
            if n > 0 { return true }
            if n == 0 { throw .closed }
            let e = errno
            if e == EAGAIN || e == EWOULDBLOCK { return false }
            if e == EINTR { continue }
            if e == ECONNRESET { throw .closed }
            throw .io(e)
        }
    }
}

/// Why a read or write on the worker's socket did not complete.
package enum WireError: Error {
    /// The peer closed its end (or reset it): it exited or crashed.
    case closed
    /// The deadline passed first.
    case timeout
    /// A frame longer than the reader accepts: a protocol violation.
    case tooLarge(Int)
    /// Any other protocol violation (a frame of the wrong kind or shape, bytes no request asked for).
    case violation(String)
    case io(Int32)
}

/// Waits until a socket is ready for reading (`writable`: writing), or throws `timeout` once `deadline`
/// (monotonic nanoseconds; nil: none) passes. The worker, which does nothing else meanwhile, blocks (the
/// host reads through a `WorkerLink` instead).
package typealias WireWait = (_ fd: Int32, _ writable: Bool, _ deadline: UInt64?) throws(WireError) -> Void

/// Deadline-bound frame I/O on a non-blocking socket, waiting where `wait` says. `deadline` is
/// monotonic nanoseconds (nil: wait for ever, the worker's side).
package enum Wire {
    /// The milliseconds left until `deadline` (rounded up), or `timeout` when it passed.
    package static func msLeft(until deadline: UInt64?) throws(WireError) -> Int? {
        guard let deadline else { return nil }
        let now = monotonicNanos()
        guard now < deadline else { throw .timeout }
        return Int((deadline - now + 999_999) / 1_000_000)
    }

    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], deadline: UInt64?, wait: WireWait) throws(WireError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + done, $0.count - done, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n > 0 { done += n; continue }
            let e = errno
            if n < 0 && (e == EAGAIN || e == EWOULDBLOCK) { try wait(fd, true, deadline); continue }
            if n < 0 && e == EINTR { continue }
            if e == EPIPE || e == ECONNRESET { throw .closed }
            throw .io(e)
        }
    }

    package static func readExact(_ fd: Int32, _ count: Int, deadline: UInt64?, wait: WireWait) throws(WireError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + done, count - done, Int32(MSG_DONTWAIT)) }
            if n > 0 { done += n; continue }
            if n == 0 { throw .closed }
            let e = errno
            if e == EAGAIN || e == EWOULDBLOCK { try wait(fd, false, deadline); continue }
            if e == EINTR { continue }
            if e == ECONNRESET { throw .closed }
            throw .io(e)
        }
        return out
    }

    /// Reads one frame whose body is at most `maxBody` bytes.
    package static func readFrame(_ fd: Int32, maxBody: Int, deadline: UInt64?, wait: WireWait) throws(WireError) -> WireReader {
        let header = try readExact(fd, 5, deadline: deadline, wait: wait)
        let length = Int(header[0]) | Int(header[1]) << 8 | Int(header[2]) << 16 | Int(header[3]) << 24
        guard length >= 1 else { throw .violation("a frame of length 0 (it has no kind)") }
        guard length - 1 <= maxBody else { throw .tooLarge(length - 1) }
        let body = try readExact(fd, length - 1, deadline: deadline, wait: wait)
        return WireReader(kind: header[4], body: body)
    }
}
