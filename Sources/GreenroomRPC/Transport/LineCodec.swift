import GreenroomJSON

/// Newline framing (the Unix socket and `tcp:`): one JSON text per line, `\n`-terminated, `\r\n`
/// accepted, lines of nothing but JSON whitespace skipped, a line over the message limit discarded up
/// to its newline and reported once as `.oversized` (the connection stays usable). Complete lines
/// inside one received chunk are handed out without copying (see `LineFramer`).
public final class LineCodec: MessageCodec {
    private var framer: LineFramer

    public init(maxMessageBytes: Int) { framer = LineFramer(maxLineBytes: maxMessageBytes) }

    /// Bytes of an incomplete line held back.
    public var bufferedCount: Int { framer.bufferedCount }

    public func receive(_ bytes: UnsafeRawBufferPointer, out: ByteBuffer, _ emit: (CodecEvent) -> Void) {
        framer.feed(bytes) { frame in
            switch frame {
            case .line(let line): emit(.message(line))
            case .oversized: emit(.oversized)
            }
        }
    }

    @inline(__always)
    public func beginMessage(_ out: ByteBuffer) -> Int { out.count }

    /// Output JSON is compact and never holds a raw newline, so the newline alone ends it.
    @inline(__always)
    public func endMessage(_ out: ByteBuffer, from mark: Int) { out.append(0x0A) }
}
