/// Splits a byte stream into newline-terminated messages. Pure: bytes in, frames out, so tests can feed
/// it one byte at a time, all at once, or message by message and expect the same frames.
///
/// Complete lines inside one chunk are handed out without copying; only a line split across chunks is
/// buffered. A trailing `\r` is dropped (`\r\n` framing is accepted). Blank lines are skipped. A line
/// longer than `maxLineBytes` yields one `.oversized` frame and is discarded up to its newline, after
/// which framing resumes: one bad line never costs the connection.
public struct LineFramer {
    public enum Frame {
        /// A complete line, valid only during the callback.
        case line(UnsafeRawBufferPointer)
        /// A line over the limit (reported once, as soon as the limit is passed).
        case oversized
    }

    /// Settable between feeds: a connection's limit grows once it authenticates.
    public var maxLineBytes: Int
    private var pending: [UInt8] = []
    private var discarding = false

    public init(maxLineBytes: Int) { self.maxLineBytes = maxLineBytes }

    /// Bytes of an incomplete line held back.
    public var bufferedCount: Int { pending.count }
    /// True while skipping the rest of an oversized line.
    public var isDiscarding: Bool { discarding }

    public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ emit: (Frame) -> Void) {
        guard let base = chunk.baseAddress, chunk.count > 0 else { return }
        var start = 0
        let n = chunk.count
        while start < n {
            // memchr-speed search for the newline.
            let found: Int? = {
                var i = start
                while i < n {
                    if base.load(fromByteOffset: i, as: UInt8.self) == 0x0A { return i }
                    i += 1
                }
                return nil
            }()
            guard let nl = found else {
                // An incomplete tail: keep it unless we are skipping an oversized line.
                if !discarding {
                    pending.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: n - start))
                    if pending.count > maxLineBytes + 1 {
                        pending.removeAll(keepingCapacity: false)
                        discarding = true
                        emit(.oversized)
                    }
                }
                return
            }
            if discarding {
                discarding = false
            } else if pending.isEmpty {
                emitLine(UnsafeRawBufferPointer(start: base + start, count: nl - start), emit)
            } else {
                pending.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: nl - start))
                let line = pending
                pending.removeAll(keepingCapacity: true)
                line.withUnsafeBytes { emitLine($0, emit) }
            }
            start = nl + 1
        }
    }

    private func emitLine(_ raw: UnsafeRawBufferPointer, _ emit: (Frame) -> Void) {
        var count = raw.count
        if count > 0 && raw[count - 1] == 0x0D { count -= 1 }
        if count > maxLineBytes { emit(.oversized); return }
        // Skip blank lines (nothing but JSON whitespace: spaces, tabs, carriage returns): they carry no message.
        var blank = true
        for i in 0..<count where raw[i] != 0x20 && raw[i] != 0x09 && raw[i] != 0x0D { blank = false; break }
        if blank { return }
        emit(.line(UnsafeRawBufferPointer(rebasing: raw[0..<count])))
    }
}
