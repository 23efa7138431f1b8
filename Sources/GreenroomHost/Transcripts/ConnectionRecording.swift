import GreenroomCore
import GreenroomJSON

/// Where a connection's transcript goes, line by line (the executable writes a file; `serve --record DIR`).
public protocol TranscriptSink: AnyObject {
    func write(line: String)
    /// Writes `prefix`, `body` and `suffix` as one line (a message the host wrote, copied as it is).
    func write(prefix: StaticString, body: UnsafeRawBufferPointer, suffix: StaticString)
}

/// A connection's transcript as the host sees it (docs/transcripts.md): each message it received is a
/// `send`, each it wrote (a reply, an event) a `recv`, after a header. It taps the connection's codec for
/// what is written, so every transport records whole messages, not frames.
final class ConnectionRecording: MessageFraming {
    private let sink: TranscriptSink
    private let inner: MessageFraming
    /// Where each open message's payload starts, by the mark its framing gave.
    private var payloadStarts: [Int: Int] = [:]
    /// The connection is going: what it is still sent (its objects' teardown) no client reads.
    private(set) var stopped = false

    func stop() { stopped = true }

    init(sink: TranscriptSink, framing: MessageFraming, clock: String, uikit: UIKitGeneration, connection: String) {
        self.sink = sink
        inner = framing
        var header = Transcript(clock: clock).header
        header["uikit"] = .int(uikit.rawValue)
        header["host"] = .string(GreenroomVersion.version)
        header["connection"] = .string(connection)
        sink.write(line: JSONCodec.encodeString(.object(header)))
    }

    /// A message the connection received (one line, or one WebSocket text frame's payload).
    func received(_ message: UnsafeRawBufferPointer) {
        guard !stopped else { return }
        let bytes = Array(message)
        if let value = try? JSONCodec.decode(bytes) {
            sink.write(line: Transcript.line(.send(value)))
        } else {
            sink.write(line: Transcript.line(.sendText(String(decoding: bytes, as: UTF8.self))))
        }
    }

    func beginMessage(_ buffer: ByteBuffer) -> Int {
        let mark = inner.beginMessage(buffer)
        payloadStarts[mark] = buffer.count
        return mark
    }

    func endMessage(_ buffer: ByteBuffer, from mark: Int) {
        if let start = payloadStarts.removeValue(forKey: mark), start <= buffer.count, !stopped {
            // The host's own compact JSON: copied into the line as it is, never parsed again.
            let payload = UnsafeRawBufferPointer(start: buffer.base + start, count: buffer.count - start)
            sink.write(prefix: "{\"recv\":", body: payload, suffix: "}")
        }
        inner.endMessage(buffer, from: mark)
    }
}
