import GreenroomJSON

/// Newline framing (the Unix socket and `tcp:`): one JSON text per line, `\n`-terminated, `\r\n`
/// accepted, lines of nothing but JSON whitespace skipped, a line over the message limit discarded up
/// to its newline and reported once as `.oversized` (the connection stays usable). Complete lines
/// inside one received chunk are handed out without copying (see `LineFramer`).
public final class LineCodec: MessageCodec {
    private var framer: LineFramer
    /// Answer a first line that is an HTTP request line with HTTP 400 (the raw `tcp:` listener, which a
    /// browser or `curl` may be pointed at by mistake) instead of one JSON-RPC error per header line.
    private var refusesHTTP: Bool
    private var refused = false

    public init(maxMessageBytes: Int, refusesHTTP: Bool = false) {
        framer = LineFramer(maxLineBytes: maxMessageBytes)
        self.refusesHTTP = refusesHTTP
    }

    public var maxMessageBytes: Int {
        get { framer.maxLineBytes }
        set { framer.maxLineBytes = newValue }
    }

    /// Bytes of an incomplete line held back.
    public var bufferedCount: Int { framer.bufferedCount }

    public func discardInput() { framer = LineFramer(maxLineBytes: framer.maxLineBytes) }

    public func goingAway(out: ByteBuffer) -> CodecClose? { nil }

    public func receive(_ bytes: UnsafeRawBufferPointer, out: ByteBuffer, _ emit: (CodecEvent) -> Void) {
        guard !refused else { return }
        framer.feed(bytes) { frame in
            guard !refused else { return }
            switch frame {
            case .line(let line):
                if refusesHTTP {
                    refusesHTTP = false
                    if Self.isHTTPRequestLine(line) {
                        refused = true
                        HTTPResponse.error(400, "This port speaks JSON-RPC 2.0, one JSON text per line, not HTTP. For a browser or another WebSocket client, start the host with --listen ws:HOST:PORT and connect to ws://HOST:PORT/rpc.").write(into: out)
                        emit(.closing(.http(status: 400, refusal: "notHTTP")))
                        return
                    }
                }
                emit(.message(line))
            case .oversized:
                refusesHTTP = false
                emit(.oversized)
            }
        }
        if refused { discardInput() }
    }

    /// `METHOD SP TARGET SP HTTP/1.x` (the `\r` is already gone): what no JSON text looks like.
    static func isHTTPRequestLine(_ line: UnsafeRawBufferPointer) -> Bool {
        guard let space = line.firstIndex(of: 0x20), space > 0,
              line[..<space].allSatisfy({ (0x41...0x5A).contains($0) }) else { return false }
        let tail = Array("HTTP/1.".utf8)
        guard line.count >= space + 2 + tail.count + 1 else { return false }
        let end = line.count - tail.count - 1
        return line[end - 1] == 0x20 && Array(line[end..<(line.count - 1)]) == tail
    }

    @inline(__always)
    public func beginMessage(_ out: ByteBuffer) -> Int { out.count }

    /// Output JSON is compact and never holds a raw newline, so the newline alone ends it.
    @inline(__always)
    public func endMessage(_ out: ByteBuffer, from mark: Int) { out.append(0x0A) }
}
