import CWslay
import Glibc
import GreenroomJSON
import GreenroomRPC

/// What a WebSocket listener's connections share: who may connect, the message limit, the files.
public struct WebSocketConfig: Sendable {
    public var policy: BrowserPolicy
    public var maxMessageBytes: Int
    public var files: StaticFiles
    /// The path of the upgrade.
    public var upgradePath = "/rpc"

    public init(policy: BrowserPolicy, maxMessageBytes: Int, files: StaticFiles) {
        self.policy = policy
        self.maxMessageBytes = maxMessageBytes
        self.files = files
    }
}

/// The `ws:` listener's framing, server side, as a pure state machine over bytes. First an HTTP request
/// head: a GET for a static file is answered and closed, anything but an acceptable upgrade at `/rpc`
/// gets an HTTP error and a close (never JSON-RPC), and the upgrade is checked against the
/// `BrowserPolicy` (Host, Origin, token) before `101 Switching Protocols`. Then RFC 6455 frames, read by
/// wslay's event API over in-memory buffers: fragmented messages are reassembled, pings answered,
/// the close handshake answered; a binary message is refused with close 1003, a message over the limit
/// with 1009, bad UTF-8 with 1007 and any protocol error with 1002, each reported as `.closing`.
///
/// The usual frame, a whole masked text frame of ASCII under 64 KiB in one read, outside a fragmented
/// message, is read here without wslay: it is unmasked eight bytes at a time into a buffer of the
/// codec's own, which is then checked to be ASCII (so valid UTF-8). Every other frame goes to wslay,
/// which is handed exactly that frame's bytes, so it holds nothing between frames and the next one can
/// again be read here. wslay unmasks and checks UTF-8 a byte at a time; on pipelined requests that
/// was a fifth of the loop thread's time per message.
///
/// One JSON-RPC message (or batch) per text frame in both directions. Outbound messages are framed
/// where they lie in the outbound buffer: `beginMessage` leaves room for a header and `endMessage`
/// writes it (moving a short message by at most 8 bytes), so a reply is never copied into a queue.
public final class WebSocketCodec: MessageCodec {
    public let config: WebSocketConfig

    private enum State {
        case request(HTTPHeadParser)
        case open
        /// Done: the close frame or HTTP response is written; input is ignored.
        case closed
    }

    private var state: State
    private var context: OpaquePointer?
    /// Set when this side queued a close frame: no data frame may follow it.
    private var closeQueued = false
    /// Set when the peer's close frame came first.
    private var peerClosed = false
    /// Input and output of the wslay call in progress.
    private var input: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
    private var inputOffset = 0
    /// How far into `input` wslay may read: the end of the frame it is handed.
    private var inputLimit = 0
    /// Bytes wslay still needs to finish the frame it was handed (0: it holds nothing, so the next
    /// byte of input starts a frame).
    private var owedToWslay = 0
    /// The start of a frame header cut off at the end of a read (at most 13 bytes), read with the next.
    private var carry: [UInt8] = []
    /// Set while a fragmented data message is open: its frames go to wslay.
    private var inFragmentedMessage = false
    /// The payload of a frame read without wslay, unmasked (allocated on first use).
    private var unmasked: UnsafeMutableRawBufferPointer?
    /// The longest payload read without wslay.
    static let quickPayloadLimit = 1 << 16
    private var output: ByteBuffer?
    private var emitting: ((CodecEvent) -> Void)?

    // The data message being received. wslay runs without buffering: it hands over each data frame's
    // payload, unmasked in its own input buffer, and says when a message ends, so a message that came
    // in one piece (the usual case) reaches the host without being copied or allocated.
    /// Whether the frame being read is a control frame (wslay buffers and answers those itself).
    private var inControlFrame = false
    /// Whether the data frame being read ends its message, and how much of its payload is still to come.
    private var frameIsFinal = false
    private var frameRemaining: UInt64 = 0
    /// The current data message is text (binary is refused at its end, as it is not buffered).
    private var messageIsText = false
    /// Payload bytes of the current data message so far, held to the message limit across fragments.
    private var messageLength: UInt64 = 0
    /// A whole message in one piece, still in wslay's buffer: valid until wslay reads again, so it is
    /// kept only from the chunk that completes the message to the end of the message that follows at once.
    private var piece: UnsafeRawBufferPointer?
    /// A message that came in several pieces, copied.
    private var assembled: [UInt8] = []

    public init(config: WebSocketConfig) {
        self.config = config
        maxMessageBytes = config.maxMessageBytes
        state = .request(HTTPHeadParser())
    }

    /// The longest message; a longer one is closed with 1009.
    public var maxMessageBytes: Int {
        didSet { if let context { wslay_event_config_set_max_recv_msg_length(context, UInt64(maxMessageBytes)) } }
    }

    /// wslay holds partial frames itself (bounded by the message limit); the request head and a cut-off
    /// frame header are ours.
    public var bufferedCount: Int { carry.count }

    public func discardInput() {
        if case .open = state, let context { wslay_event_shutdown_read(context) }
    }

    deinit {
        if let context { wslay_event_context_free(context) }
        unmasked?.deallocate()
    }

    /// True after the upgrade, until the connection closes.
    public var isOpen: Bool { if case .open = state { return !closeQueued } else { return false } }

    // MARK: Receiving

    public func receive(_ bytes: UnsafeRawBufferPointer, out: ByteBuffer, _ emit: (CodecEvent) -> Void) {
        switch state {
        case .request(var parser):
            let result = parser.feed(bytes)
            state = .request(parser)
            switch result {
            case .needMore: return
            case .failed(let status, let reason):
                refuse(status: status, rule: "request", reason, out: out, emit)
            case .head(let head, let rest):
                route(head, out: out, emit)
                if case .open = state, !rest.isEmpty {
                    rest.withUnsafeBytes { readFrames($0, out: out, emit) }
                }
            }
        case .open:
            readFrames(bytes, out: out, emit)
        case .closed:
            return
        }
    }

    private func refuse(status: Int, rule: String, _ reason: String, headers: [(String, String)] = [], out: ByteBuffer,
                        _ emit: (CodecEvent) -> Void) {
        HTTPResponse.error(status, reason, headers: headers).write(into: out)
        state = .closed
        emit(.closing(.http(status: status, refusal: rule)))
    }

    /// Answers a request head: a static file, a refusal, or the upgrade.
    private func route(_ head: HTTPRequestHead, out: ByteBuffer, _ emit: (CodecEvent) -> Void) {
        let policy = config.policy
        if let r = policy.checkHost(head.value("Host")) {
            return refuse(status: r.status, rule: r.rule, r.message, out: out, emit)
        }
        guard head.path == config.upgradePath else { return serveFile(head, out: out, emit) }
        switch WebSocketHandshake.validate(head) {
        case .failure(let f):
            return refuse(status: f.status, rule: "upgrade", "WebSocket upgrade refused: \(f.reason).",
                          headers: f.headers.map { ($0.name, $0.value) }, out: out, emit)
        case .success(let key):
            if head.values("Origin").count > 1 {
                return refuse(status: 400, rule: "origin", "More than one Origin header.", out: out, emit)
            }
            if let r = policy.checkOrigin(head.value("Origin")) {
                return refuse(status: r.status, rule: r.rule, r.message, out: out, emit)
            }
            let authenticated: Bool
            switch policy.checkToken(BrowserPolicy.token(in: head)) {
            case .failure(let r): return refuse(status: r.status, rule: r.rule, r.message, out: out, emit)
            case .success(let ok): authenticated = ok
            }
            var response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            response += "Sec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(forKey: key))\r\n"
            let offered = head.tokens("Sec-WebSocket-Protocol")
            if offered.contains("greenroom") { response += "Sec-WebSocket-Protocol: greenroom\r\n" }
            response += "\r\n"
            out.append(Array(response.utf8))
            startFrames()
            state = .open
            emit(.opened(authenticated: authenticated))
        }
    }

    private func serveFile(_ head: HTTPRequestHead, out: ByteBuffer, _ emit: (CodecEvent) -> Void) {
        guard head.method == "GET" || head.method == "HEAD" else {
            return refuse(status: 405, rule: "method", "\(head.method) is not served here: GET \(config.files.files.keys.sorted().joined(separator: ", ")), or a WebSocket upgrade at \(config.upgradePath).",
                          headers: [("Allow", "GET, HEAD")], out: out, emit)
        }
        guard let file = config.files.files[String(head.path)] else {
            // The path is echoed without its query (which may hold a token).
            return refuse(status: 404, rule: "path", "Not found: \(head.path). This port serves \(config.files.files.keys.sorted().joined(separator: ", ")) and the WebSocket upgrade at \(config.upgradePath).", out: out, emit)
        }
        HTTPResponse(status: 200, contentType: file.contentType, body: file.bytes).write(into: out, headOnly: head.method == "HEAD")
        state = .closed
        emit(.closing(.http(status: 200, refusal: nil)))
    }

    // MARK: Frames (wslay)

    private func startFrames() {
        var callbacks = wslay_event_callbacks()
        callbacks.recv_callback = { ctx, buf, len, _, user in
            let codec = Unmanaged<WebSocketCodec>.fromOpaque(user!).takeUnretainedValue()
            let available = codec.inputLimit - codec.inputOffset
            guard available > 0, let buf else {
                wslay_event_set_error(ctx, Int32(WSLAY_ERR_WOULDBLOCK.rawValue))
                return -1
            }
            let n = min(len, available)
            buf.update(from: codec.input.baseAddress!.advanced(by: codec.inputOffset).assumingMemoryBound(to: UInt8.self), count: n)
            codec.inputOffset += n
            return n
        }
        callbacks.send_callback = { _, data, len, _, user in
            let codec = Unmanaged<WebSocketCodec>.fromOpaque(user!).takeUnretainedValue()
            codec.output?.append(UnsafeRawBufferPointer(start: data, count: len))
            return len
        }
        callbacks.on_frame_recv_start_callback = { ctx, arg, user in
            guard let arg else { return }
            Unmanaged<WebSocketCodec>.fromOpaque(user!).takeUnretainedValue().frameStarted(arg.pointee, ctx: ctx)
        }
        callbacks.on_frame_recv_chunk_callback = { _, arg, user in
            guard let arg else { return }
            Unmanaged<WebSocketCodec>.fromOpaque(user!).takeUnretainedValue().frameChunk(arg.pointee)
        }
        callbacks.on_msg_recv_callback = { ctx, arg, user in
            guard let arg else { return }
            let codec = Unmanaged<WebSocketCodec>.fromOpaque(user!).takeUnretainedValue()
            codec.received(arg.pointee, ctx: ctx)
        }
        var ctx: OpaquePointer?
        wslay_event_context_server_init(&ctx, &callbacks, Unmanaged.passUnretained(self).toOpaque())
        context = ctx
        wslay_event_config_set_no_buffering(ctx, 1)
        wslay_event_config_set_max_recv_msg_length(ctx, UInt64(maxMessageBytes))
    }

    /// A frame starts (its payload follows in chunks). Without buffering wslay checks each frame
    /// against the message limit, not the sum of a fragmented message's frames: that sum is held here.
    private func frameStarted(_ frame: wslay_event_on_frame_recv_start_arg, ctx: OpaquePointer?) {
        piece = nil
        inControlFrame = frame.opcode & 0x8 != 0
        guard !inControlFrame else { return }
        frameIsFinal = frame.fin != 0
        inFragmentedMessage = !frameIsFinal
        frameRemaining = frame.payload_length
        if frame.opcode != UInt8(WSLAY_CONTINUATION_FRAME.rawValue) {
            messageIsText = frame.opcode == UInt8(WSLAY_TEXT_FRAME.rawValue)
            messageLength = 0
            assembled.removeAll(keepingCapacity: assembled.capacity <= 1 << 16)
        }
        messageLength += frame.payload_length
        if messageLength > UInt64(maxMessageBytes) && !closeQueued {
            wslay_event_queue_close(ctx, UInt16(WSLAY_CODE_MESSAGE_TOO_BIG.rawValue), nil, 0)
            wslay_event_shutdown_read(ctx)
            closeQueued = true
        }
    }

    /// A piece of a data frame's payload, unmasked in wslay's buffer.
    private func frameChunk(_ chunk: wslay_event_on_frame_recv_chunk_arg) {
        guard !inControlFrame else { return }
        frameRemaining -= UInt64(chunk.data_length)
        guard messageIsText, !closeQueued, chunk.data_length > 0 else { return }
        let bytes = UnsafeRawBufferPointer(start: chunk.data, count: chunk.data_length)
        if frameIsFinal && frameRemaining == 0 && assembled.isEmpty {
            piece = bytes  // the whole message: `received` follows before wslay reads again
        } else {
            assembled.append(contentsOf: bytes)
        }
    }

    /// One whole message (pings and closes are answered by wslay itself).
    private func received(_ message: wslay_event_on_msg_recv_arg, ctx: OpaquePointer?) {
        switch Int(message.opcode) {
        case Int(WSLAY_TEXT_FRAME.rawValue):
            guard !closeQueued else { return }
            if let p = piece {
                piece = nil
                emitting?(.message(p))
            } else if assembled.isEmpty {
                // An empty message still has an address (the host reads messages through it).
                withUnsafeBytes(of: 0 as UInt8) { emitting?(.message(UnsafeRawBufferPointer(rebasing: $0[0..<0]))) }
            } else {
                assembled.withUnsafeBytes { emitting?(.message($0)) }
                assembled.removeAll(keepingCapacity: assembled.capacity <= 1 << 16)
            }
        case Int(WSLAY_BINARY_FRAME.rawValue):
            guard !closeQueued else { return }
            let reason = Array("binary frames are not accepted: send JSON-RPC as text frames".utf8)
            wslay_event_queue_close(ctx, UInt16(WSLAY_CODE_UNSUPPORTED_DATA.rawValue), reason, reason.count)
            closeQueued = true
        case Int(WSLAY_CONNECTION_CLOSE.rawValue):
            if !closeQueued { peerClosed = true }
            closeQueued = true
        default:
            return
        }
    }

    private func readFrames(_ bytes: UnsafeRawBufferPointer, out: ByteBuffer, _ emit: (CodecEvent) -> Void) {
        guard let context else { return }
        if !carry.isEmpty {
            // A header cut off last time: read it with what follows (a copy, only when a read ends
            // inside a frame header).
            var joined = carry
            carry.removeAll()
            joined.append(contentsOf: bytes)
            joined.withUnsafeBytes { readFrames($0, out: out, emit) }
            return
        }
        withoutActuallyEscaping(emit) { emit in
            input = bytes
            inputOffset = 0
            output = out
            emitting = emit
            defer {
                input = UnsafeRawBufferPointer(start: nil, count: 0)
                inputLimit = 0
                output = nil
                emitting = nil
            }
            var failed = false
            while inputOffset < bytes.count && !failed {
                if owedToWslay > 0 {
                    let n = min(owedToWslay, bytes.count - inputOffset)
                    owedToWslay -= n
                    failed = handToWslay(n, context)
                    continue
                }
                // At the start of a frame.
                guard let head = FrameHead(bytes, at: inputOffset) else {
                    carry = Array(bytes[inputOffset...])
                    inputOffset = bytes.count
                    break
                }
                if readQuickly(head, bytes, context) { continue }
                owedToWslay = head.total
            }
            piece = nil
            if failed {
                // A frame wslay could not read at all (a fragmented or oversized control frame, a
                // length with its top bit set): it queued a close without a status code. Our
                // callbacks never fail, so this is the peer's protocol error: say 1002 instead.
                if !closeQueued { Self.writeClose(1002, into: out) }
                closeQueued = true
                state = .closed
                emit(.closing(.webSocket(code: 1002, byPeer: false)))
                return
            }
            // wslay queued a close itself (a protocol error, a message too big, bad UTF-8).
            if wslay_event_want_read(context) == 0 { closeQueued = true }
            _ = wslay_event_send(context)
        }
        if case .closed = state { return }
        if wslay_event_get_close_sent(context) != 0 {
            state = .closed
            let sent = Int(wslay_event_get_status_code_sent(context))
            let code = peerClosed ? Int(wslay_event_get_status_code_received(context)) : sent
            emit(.closing(.webSocket(code: code, byPeer: peerClosed)))
        }
    }

    /// Lets wslay read the next `count` bytes of input (all of a frame, or the rest of the read); true
    /// when it failed. Once it has stopped reading (a close), the bytes are dropped.
    private func handToWslay(_ count: Int, _ context: OpaquePointer) -> Bool {
        inputLimit = inputOffset + count
        defer { inputOffset = inputLimit }
        guard wslay_event_want_read(context) != 0 else { return false }
        return wslay_event_recv(context) != 0
    }

    /// Reads the frame `head` starts without wslay, if it is the usual kind (see the type's comment):
    /// emits its message and returns true. Otherwise leaves everything as it was.
    private func readQuickly(_ head: FrameHead, _ bytes: UnsafeRawBufferPointer, _ context: OpaquePointer) -> Bool {
        guard head.first == 0x81, let key = head.mask, head.payload <= Self.quickPayloadLimit,
              head.payload <= maxMessageBytes, head.total <= bytes.count - inputOffset,
              !inFragmentedMessage, !closeQueued, wslay_event_want_read(context) != 0 else { return false }
        let count = head.payload
        let to: UnsafeMutableRawBufferPointer
        if let u = unmasked { to = u } else {
            to = .allocate(byteCount: Self.quickPayloadLimit, alignment: 8)
            unmasked = to
        }
        let from = bytes.baseAddress! + inputOffset + head.total - count
        // The key repeats every 4 bytes: eight at a time, then the rest one by one.
        let key8 = UInt64(key) | UInt64(key) << 32
        var seen: UInt64 = 0
        var i = 0
        while i + 8 <= count {
            let v = from.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ key8
            to.baseAddress!.storeBytes(of: v, toByteOffset: i, as: UInt64.self)
            seen |= v
            i += 8
        }
        var tail: UInt8 = 0
        while i < count {
            let b = from.load(fromByteOffset: i, as: UInt8.self) ^ UInt8(truncatingIfNeeded: key >> (8 * UInt32(i & 3)))
            to[i] = b
            tail |= b
            i += 1
        }
        // Not all ASCII: wslay reads it (and checks its UTF-8).
        guard seen & 0x8080_8080_8080_8080 == 0 && tail & 0x80 == 0 else { return false }
        inputOffset += head.total
        emitting?(.message(UnsafeRawBufferPointer(rebasing: to[0..<count])))
        return true
    }

    /// A close frame with a status code and no reason, written directly (wslay's context is done).
    static func writeClose(_ code: UInt16, into out: ByteBuffer) {
        out.append([0x88, 0x02, UInt8(code >> 8), UInt8(code & 0xFF)])
    }

    public func goingAway(out: ByteBuffer) -> CodecClose? {
        close(code: 1001, reason: "the host is shutting down", out: out)
    }

    /// Closes from this side (a host shutting down: 1001), if the connection is open.
    public func close(code: Int, reason: String, out: ByteBuffer) -> CodecClose? {
        guard case .open = state, !closeQueued, let context else { return nil }
        let r = Array(reason.utf8.prefix(123))
        wslay_event_queue_close(context, UInt16(code), r, r.count)
        closeQueued = true
        output = out
        _ = wslay_event_send(context)
        output = nil
        state = .closed
        return .webSocket(code: code, byPeer: false)
    }

    // MARK: Sending

    /// Room for the usual header: 4 bytes covers every payload up to 65535 bytes.
    private static let headerSlot = 4

    @inline(__always)
    public func beginMessage(_ out: ByteBuffer) -> Int {
        let mark = out.count
        out.appendZeros(Self.headerSlot)
        return mark
    }

    public func endMessage(_ out: ByteBuffer, from mark: Int) {
        guard isOpen else { out.truncate(to: mark); return }
        let payload = out.count - mark - Self.headerSlot
        let base = out.base + mark
        if payload < 126 {
            memmove(base + 2, base + Self.headerSlot, payload)
            base.storeBytes(of: 0x81, as: UInt8.self)
            base.storeBytes(of: UInt8(payload), toByteOffset: 1, as: UInt8.self)
            out.truncate(to: out.count - 2)
        } else if payload <= 0xFFFF {
            base.storeBytes(of: 0x81, as: UInt8.self)
            base.storeBytes(of: 126, toByteOffset: 1, as: UInt8.self)
            base.storeBytes(of: UInt16(payload).bigEndian, toByteOffset: 2, as: UInt16.self)
        } else {
            // A 10-byte header: grow by 6 and move the payload up (large messages only).
            out.appendZeros(6)
            let b = out.base + mark
            memmove(b + 10, b + Self.headerSlot, payload)
            b.storeBytes(of: 0x81, as: UInt8.self)
            b.storeBytes(of: 127, toByteOffset: 1, as: UInt8.self)
            for i in 0..<8 { b.storeBytes(of: UInt8(truncatingIfNeeded: UInt64(payload) >> (56 - 8 * UInt64(i))), toByteOffset: 2 + i, as: UInt8.self) }
        }
    }
}

/// A frame's header, read where it starts (nil until the whole header is there).
struct FrameHead {
    /// FIN, RSV and opcode.
    let first: UInt8
    /// The masking key as it lies in memory (little-endian: its first byte lowest), if masked.
    let mask: UInt32?
    let payload: Int
    /// Header and payload: the bytes the frame takes.
    let total: Int

    init?(_ bytes: UnsafeRawBufferPointer, at start: Int) {
        let left = bytes.count - start
        guard left >= 2 else { return nil }
        first = bytes[start]
        let second = bytes[start + 1]
        let short = Int(second & 0x7F)
        let extra = short == 126 ? 2 : short == 127 ? 8 : 0
        let masked = second & 0x80 != 0
        let header = 2 + extra + (masked ? 4 : 0)
        guard left >= header else { return nil }
        var length = UInt64(short)
        if extra > 0 {
            length = 0
            for i in 0..<extra { length = length << 8 | UInt64(bytes[start + 2 + i]) }
        }
        mask = masked ? bytes.loadUnaligned(fromByteOffset: start + 2 + extra, as: UInt32.self) : nil
        // A length past any message limit (or with its top bit set) is wslay's to refuse; only how
        // many bytes to hand it matters, and it stops at the header.
        payload = length > UInt64(Int.max / 2) ? Int.max / 2 : Int(length)
        total = header + payload
    }
}
