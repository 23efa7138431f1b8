import GreenroomJSON
import GreenroomRPC

/// What carries a connection's bytes: a libuv stream in the server, a buffer in tests.
public protocol ConnectionTransport: AnyObject {
    /// The host appended bytes to the connection's outbound buffer.
    func outputReady(_ connection: HostConnection)
    /// The host wants the connection closed (after what is queued has been written).
    func closeRequested(_ connection: HostConnection)
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
    var framer: LineFramer
    public internal(set) var isAuthenticated: Bool
    public internal(set) var subscriptions: Set<String> = []
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
    }

    /// Feeds received bytes: every complete line is handled, and its replies and events are appended
    /// to `out` in order.
    public func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosed else { return }
        let before = out.count
        let processor = host.processor
        framer.feed(bytes) { frame in
            guard !isClosed else { return }
            switch frame {
            case .line(let line): processor.handle(line: line, context: self, out: out)
            case .oversized: processor.handleOversized(out: out)
            }
        }
        if out.count != before { transport?.outputReady(self) }
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
