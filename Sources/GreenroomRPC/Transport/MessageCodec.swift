import GreenroomJSON

/// A transport's framing, as a pure state machine over bytes: received bytes become whole messages,
/// and whole messages written to an outbound buffer become the bytes the transport sends. Nothing
/// above a codec knows how messages are framed (lines, WebSocket frames). A codec does no I/O: tests
/// feed it bytes one at a time, all at once, or split at any point, and expect the same messages.
public protocol MessageCodec: MessageFraming {
    /// Feeds received bytes. Whole messages, and what else the codec found, are reported through
    /// `emit` in order. Bytes the codec sends on its own (a handshake response, a pong, a close
    /// frame, an HTTP error) are appended to `out`.
    func receive(_ bytes: UnsafeRawBufferPointer, out: ByteBuffer, _ emit: (CodecEvent) -> Void)

    /// The longest message accepted (raised after `host.auth`).
    var maxMessageBytes: Int { get set }
    /// Bytes of an incomplete message held back (counted in the host's input budget).
    var bufferedCount: Int { get }
    /// Forgets any incomplete input (a refused connection reads nothing more).
    func discardInput()
    /// The host is shutting down: writes the codec's last word to `out` if it has one (a WebSocket
    /// close 1001), and says how the connection ends; nil when there is nothing to say (lines).
    func goingAway(out: ByteBuffer) -> CodecClose?

    // Outbound (MessageFraming): `endMessage` frames the message where it lies, without copying it
    // elsewhere; a message the codec can no longer send (the connection is closing) is removed.
}

/// What a codec found in received bytes.
public enum CodecEvent {
    /// One whole message. The bytes are valid only during the callback.
    case message(UnsafeRawBufferPointer)
    /// A message longer than the message limit that the transport survives: it was discarded, and the
    /// caller answers it (JSON-RPC -32600 with `id: null`).
    case oversized
    /// The codec is ready for messages (a WebSocket upgrade was accepted). `authenticated` is true when
    /// the upgrade carried the host's token.
    case opened(authenticated: Bool)
    /// The codec is done with the connection: what it had to say (a close frame, an HTTP response) is
    /// in `out`; the transport closes once that is written.
    case closing(CodecClose)
}

/// Why a codec ends a connection, for the host's counters and logs. Never carries a token.
public enum CodecClose: Equatable, Sendable {
    /// An HTTP request on this port that was answered (a static file) or refused (`status` >= 400);
    /// `refusal` names the rule that refused it ("origin", "host", "token", "path", ...), nil when served.
    case http(status: Int, refusal: String?)
    /// A WebSocket close: `code` is the status code; `byPeer` when the peer started the close
    /// handshake, else the codec closed with that code (1002 protocol error, 1003 binary frame,
    /// 1007 bad UTF-8, 1009 message too big).
    case webSocket(code: Int, byPeer: Bool)
}
