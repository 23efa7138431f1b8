import GreenroomJSON
import GreenroomRPC

/// What carries a connection's bytes: a libuv stream in the server, a buffer in tests.
public protocol ConnectionTransport: AnyObject {
    /// The host appended bytes to the connection's outbound buffer.
    func outputReady(_ connection: HostConnection)
    /// The host wants the connection closed (after what is queued has been written).
    func closeRequested(_ connection: HostConnection)
    /// More than the outbound limit is waiting in `out` in the middle of a read: write what the peer
    /// takes now, and close the connection (counted) if what is left is past the limit, as a flush
    /// at the end of the loop pass would.
    func flushNow(_ connection: HostConnection)
}

extension ConnectionTransport {
    public func flushNow(_ connection: HostConnection) {}
}

/// One client connection as the host sees it: its framing state, outbound buffer, subscriptions and
/// event sequence. Objects it creates belong to it and die with it.
public final class HostConnection {
    public enum Kind: String, Sendable { case unix, tcp, memory }

    public let id: String
    public let kind: Kind
    public unowned let host: Host
    public weak var transport: ConnectionTransport?
    public let out = OutboundBuffer()
    /// `out` past this many bytes mid-read is written (or the connection closed) before the next line
    /// runs: one read of cheap requests with large replies (`rpc.discover`) from a client that does not
    /// read them must not make the host build hundreds of MiB it will drop (docs/protocol.md's 8 MiB limit).
    private let outboundLimit: Int
    var framer: LineFramer
    /// Complete lines of the chunk being received (pointers into it; empty between chunks).
    private var run: [UnsafeRawBufferPointer] = []
    public internal(set) var isAuthenticated: Bool
    public internal(set) var subscriptions: Set<String> = [] {
        didSet { topicMask = Host.mask(subscriptions) }
    }
    /// `subscriptions` as bits of `Host.topics` (hot paths test them without hashing).
    public private(set) var topicMask: UInt16 = 0
    public internal(set) var observesAll = false
    /// The last event sequence number sent; the next event carries seq + 1.
    public internal(set) var seq = 0
    public internal(set) var isClosed = false

    init(id: String, kind: Kind, host: Host, authenticated: Bool) {
        self.id = id
        self.kind = kind
        self.host = host
        self.isAuthenticated = authenticated
        self.framer = LineFramer(maxLineBytes: host.config.limits.maxMessageBytes)
        self.outboundLimit = host.config.maxOutboundBytes
    }

    /// Asked before each line of a read is run: true once the connection is closed, which it may be
    /// now if `out` grew past the outbound limit and the peer does not take it.
    @inline(__always)
    private func stopsReading() -> Bool {
        if isClosed { return true }
        guard out.count > outboundLimit else { return false }
        transport?.flushNow(self)
        return isClosed
    }

    /// Feeds received bytes: every complete line is handled, and its replies and events are appended
    /// to `out` in order. Complete lines inside the chunk are gathered and handled as one run (read
    /// ahead on the parser thread when the processor has one); a line reassembled from earlier chunks
    /// or an oversized one first flushes the run, so order is kept.
    public func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosed, let chunk = bytes.baseAddress else { return }
        let processor = host.processor
        func flush() {
            guard !run.isEmpty else { return }
            run.withUnsafeBufferPointer { lines in
                processor.handle(lines: lines, context: self, out: out) { stopsReading() }
            }
            run.removeAll(keepingCapacity: true)
        }
        framer.feed(bytes) { frame in
            switch frame {
            case .line(let line) where line.baseAddress! >= chunk && line.baseAddress! < chunk + bytes.count:
                run.append(line)
            case .line(let line):
                flush()
                if !stopsReading() { processor.handle(line: line, context: self, out: out) }
            case .oversized:
                flush()
                if !stopsReading() { processor.handleOversized(out: out) }
            }
        }
        flush()
        // `out` may have been written mid-read (stopsReading): what matters is whether any is left.
        if !out.isEmpty { transport?.outputReady(self) }
    }

    public func receive(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { receive($0) }
    }

    /// Writes one notification (an event): `params` starts with `seq` and `t`.
    func send(topic: String, _ fields: JSONObject, now: Double) {
        seq += 1
        var params = JSONObject()
        params.members.reserveCapacity(fields.count + 2)
        params.members.append((key: "seq", value: .int(seq)))
        params.members.append((key: "t", value: .double(now)))
        params.members.append(contentsOf: fields.members)
        out.writeNotification(method: topic, params: .object(params))
        transport?.outputReady(self)
    }
}
