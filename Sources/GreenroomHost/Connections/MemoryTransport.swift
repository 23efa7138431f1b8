/// An in-process transport: tests write request bytes in and read reply bytes out, with no socket.
public final class MemoryTransport: ConnectionTransport {
    public private(set) var closeRequested = false
    public init() {}
    public func outputReady(_ connection: HostConnection) {}
    public func closeRequested(_ connection: HostConnection) { closeRequested = true }
}
