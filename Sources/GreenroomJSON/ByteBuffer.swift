import CJansson
import Glibc

/// A growable byte buffer with raw storage, so Jansson can dump straight into its spare capacity.
public final class ByteBuffer {
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

    /// Dumps a Jansson value into spare capacity, growing and retrying if it does not fit.
    func dump(_ j: UnsafeMutablePointer<json_t>) {
        let flags = gr_json_flags_dump()
        var need = json_dumpb(j, (base + count).assumingMemoryBound(to: CChar.self), capacity - count, flags)
        if need > capacity - count {
            reserve(need)
            need = json_dumpb(j, (base + count).assumingMemoryBound(to: CChar.self), capacity - count, flags)
        }
        count += need
    }
}
