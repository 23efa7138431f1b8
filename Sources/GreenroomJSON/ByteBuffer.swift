import CJansson
import Glibc

/// How whole messages are delimited in an outbound buffer: a transport's codec frames each message
/// where it lies (a newline after it, a WebSocket header before it).
public protocol MessageFraming: AnyObject {
    /// Starts one message at the end of `buffer`; returns the mark `endMessage` needs.
    func beginMessage(_ buffer: ByteBuffer) -> Int
    /// Ends the message that began at `mark`.
    func endMessage(_ buffer: ByteBuffer, from mark: Int)
}

/// A growable byte buffer with raw storage, so Jansson can dump straight into its spare capacity.
public final class ByteBuffer {
    /// The framing of whole messages written with `beginMessage`/`endMessage` (a connection's codec).
    public var framing: MessageFraming?

    public private(set) var base: UnsafeMutableRawPointer
    public private(set) var count = 0
    public private(set) var capacity: Int

    public init(capacity: Int = 4096) {
        self.capacity = max(64, capacity)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    public var isEmpty: Bool { count == 0 }

    public func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        var c = capacity
        while c < count + extra { c *= 2 }
        let b = UnsafeMutableRawPointer.allocate(byteCount: c, alignment: 16)
        b.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = b
        capacity = c
    }

    @inline(__always) public func append(_ byte: UInt8) {
        reserve(1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// Appends `n` zero bytes (room a codec fills later, such as a frame header).
    @inline(__always) public func appendZeros(_ n: Int) {
        reserve(n)
        (base + count).initializeMemory(as: UInt8.self, repeating: 0, count: n)
        count += n
    }

    public func append(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        count += bytes.count
    }

    public func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

    public func append(_ s: StaticString) {
        append(UnsafeRawBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    public func append(_ other: ByteBuffer) { append(other.bytes) }

    /// The bytes written so far (valid until the next mutation).
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Starts one whole message (see `framing`).
    @inline(__always) public func beginMessage() -> Int { framing?.beginMessage(self) ?? count }

    /// Ends the message begun at `mark`. A buffer without framing is a scratch buffer: nothing is added.
    @inline(__always) public func endMessage(_ mark: Int) { framing?.endMessage(self, from: mark) }

    /// Drops everything after the first `newCount` bytes (a codec removing a message it cannot send,
    /// or closing up a header slot it did not need).
    public func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= count, "truncate(to:) past the end")
        count = newCount
    }

    /// Empties the buffer; large buffers give their memory back.
    public func removeAll() {
        count = 0
        if capacity > 1 << 20 {
            base.deallocate()
            capacity = 4096
            base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        }
    }

    /// A copy of the contents, then empties the buffer.
    public func take() -> [UInt8] {
        defer { removeAll() }
        return Array(bytes)
    }

    /// Appends an integer in decimal, as `%lld` would.
    public func appendDecimal(_ value: Int) {
        reserve(20)
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, filled from the end
        let written: Int = withUnsafeMutableBytes(of: &digits) { scratch in
            var i = scratch.count
            repeat {
                i -= 1
                scratch[i] = UInt8(truncatingIfNeeded: 0x30 &+ magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if value < 0 { i -= 1; scratch[i] = 0x2D }
            let n = scratch.count - i
            (base + count).copyMemory(from: scratch.baseAddress! + i, byteCount: n)
            return n
        }
        count += written
    }

    /// Appends a finite double exactly as Jansson writes a real: `%.17g`, with `.0` added when that would
    /// read back as an integer, and the exponent without its `+` or leading zeros. Returns false,
    /// writing nothing, for NaN and the infinities, which JSON cannot express.
    public func appendReal(_ d: Double) -> Bool {
        guard d.isFinite else { return false }
        if d.rounded(.towardZero) == d, d.magnitude < 9_007_199_254_740_992, !(d == 0 && d.sign == .minus) {
            // Whole and exact: `%.17g` prints the integer.
            appendDecimal(Int(d))
            append(".0")
            return true
        }
        var text = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))  // 32 bytes: "%.17g" needs at most 24
        let n = withUnsafeMutableBytes(of: &text) { raw in
            withVaList([d]) { vsnprintf(raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count, "%.17g", $0) }
        }
        guard n > 0, n < 32 else { return false }
        withUnsafeBytes(of: &text) { raw in
            let b = UnsafeRawBufferPointer(rebasing: raw[0..<Int(n)])
            guard let e = b.firstIndex(of: UInt8(ascii: "e")) else {
                append(b)
                if !b.contains(UInt8(ascii: ".")) { append(".0") }
                return
            }
            append(UnsafeRawBufferPointer(rebasing: b[...e]))
            var i = e + 1
            if b[i] == UInt8(ascii: "-") { append(b[i]); i += 1 } else if b[i] == UInt8(ascii: "+") { i += 1 }
            while i < b.count, b[i] == UInt8(ascii: "0") { i += 1 }
            append(UnsafeRawBufferPointer(rebasing: b[i...]))
        }
        return true
    }

    /// Appends `s` as a JSON string when it needs no escape (no control character, quote or
    /// backslash), exactly as Jansson would write it; returns false, writing nothing, otherwise.
    public func appendPlainString(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { u in
            // 0xC2 and 0xE2 lead U+0085, U+2028 and U+2029, which `dump` escapes.
            for b in u where b < 0x20 || b == 0x22 || b == 0x5C || b == 0xC2 || b == 0xE2 { return false }
            reserve(u.count + 2)
            base.storeBytes(of: 0x22, toByteOffset: count, as: UInt8.self)
            if u.count > 0 { (base + count + 1).copyMemory(from: u.baseAddress!, byteCount: u.count) }
            base.storeBytes(of: 0x22, toByteOffset: count + 1 + u.count, as: UInt8.self)
            count += u.count + 2
            return true
        }
    }

    /// Dumps a Jansson value into spare capacity, growing and retrying if it does not fit.
    func dump(_ j: UnsafeMutablePointer<json_t>) {
        let flags = gr_json_flags_dump()
        var need = json_dumpb(j, (base + count).assumingMemoryBound(to: CChar.self), capacity - count, flags)
        if need > capacity - count {
            reserve(need)
            need = json_dumpb(j, (base + count).assumingMemoryBound(to: CChar.self), capacity - count, flags)
        }
        let start = count
        count += need
        escapeLineSeparators(from: start)
    }

    /// Jansson writes U+0085, U+2028 and U+2029 raw (JSON allows it), but readers that split text
    /// into lines by Unicode rules (Python's `str.splitlines`, many log tools) would cut a message
    /// there. They can only occur inside strings, so they are rewritten as `\u0085`, `\u2028`,
    /// `\u2029`, and every output line stays one line by any rule.
    func escapeLineSeparators(from start: Int) {
        func find(_ byte: UInt8) -> Bool { memchr(base + start, Int32(byte), count - start) != nil }
        guard find(0xC2) || find(0xE2) else { return }
        let original = Array(UnsafeRawBufferPointer(start: base + start, count: count - start))
        count = start
        var i = 0
        while i < original.count {
            let b = original[i]
            if b == 0xC2, i + 1 < original.count, original[i + 1] == 0x85 {
                append("\\u0085")
                i += 2
            } else if b == 0xE2, i + 2 < original.count, original[i + 1] == 0x80, original[i + 2] == 0xA8 || original[i + 2] == 0xA9 {
                append(original[i + 2] == 0xA8 ? "\\u2028" : "\\u2029")
                i += 3
            } else {
                append(b)
                i += 1
            }
        }
    }
}
