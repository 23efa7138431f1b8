import GreenroomJSON
import GreenroomRPC

/// Who receives an event. An event about an object goes to the connection that owns it (when it subscribed
/// to the topic) and to every `scope: "all"` observer of the topic; a broadcast goes to every subscriber.
/// Each connection numbers the events it receives (`seq`, in `HostConnection.send`). While a call is
/// planned (`Containers.planned`), events are held back and then sent in order, or dropped.
public final class EventRouter {
    /// The topics, in the order of their bits (`mask`).
    /// The topics, in the order of their bits: the event types' (`ProtocolCatalog.events`).
    public static let topics = ProtocolCatalog.events.map { $0.topic }

    /// The bits of `topics` (names outside `EventRouter.topics` have none).
    public static func mask<S: Sequence<String>>(_ topics: S) -> UInt16 {
        var m: UInt16 = 0
        for t in topics { if let i = EventRouter.topics.firstIndex(of: t) { m |= 1 << i } }
        return m
    }

    /// The host's open connections (for broadcasts), its clock (events carry `t`), and the calls being
    /// run (an event's cause).
    private let connections: ConnectionTable
    private let clock: HostClock
    private let processor: RPCProcessor<HostConnection>
    /// `scope: "all"` observers per topic: routing an event costs O(observers), not O(connections)
    /// (a thousand streaming connections must not each pay for the others).
    private var observers: [String: [HostConnection]] = [:]
    /// Topics some `scope: "all"` observer listens to, as bits of `topics`.
    private var observedMask: UInt16 = 0
    /// Events written to connections since start (`host.stats.eventsSent`).
    public private(set) var sent = 0
    /// Whose state the work being run keeps (`CallScope`).
    let scopes: CallScopes
    /// What the work being run set here (`CallState`), in its own scope.
    private var running: CallState {
        get { scopes.current.events }
        _modify { yield &scopes.current.events }
    }

    /// What an event emitted now is caused by: the innermost cause set, else the call being run.
    var currentCause: EventCause? {
        if let c = running.causes.last { return c }
        guard let call = processor.currentCall else { return nil }
        return .request(id: call.id, method: call.method, connection: call.context.id)
    }

    /// Runs `body` with events caused by `cause`.
    func withCause<T>(_ cause: EventCause, _ body: () throws -> T) rethrows -> T {
        running.causes.append(cause)
        defer { running.causes.removeLast() }
        return try body()
    }

    /// `withCause` for work that may wait (the scope it runs in is its own: `CallScopes.withOwnScope`).
    func withCause<T>(_ cause: EventCause, _ body: () async throws -> T) async rethrows -> T {
        running.causes.append(cause)
        defer { running.causes.removeLast() }
        return try await body()
    }

    init(connections: ConnectionTable, clock: HostClock, processor: RPCProcessor<HostConnection>, scopes: CallScopes) {
        self.connections = connections
        self.clock = clock
        self.processor = processor
        self.scopes = scopes
    }

    /// Re-files a connection among the observers after its subscriptions or scope changed, or it closed.
    func refreshObserver(_ c: HostConnection) {
        for topic in Self.topics {
            var list = observers[topic] ?? []
            list.removeAll { $0 === c }
            if c.observesAll && !c.isClosed && c.subscriptions.contains(topic) { list.append(c) }
            observers[topic] = list
        }
        observedMask = Self.mask(Self.topics.filter { !(observers[$0]?.isEmpty ?? true) })
    }

    /// Every connection closed at once (shutdown): no observer is left.
    func forgetObservers() {
        observers.removeAll()
        observedMask = 0
    }

    /// Sends an event on `topic` to `owner` (when subscribed) and to every `scope: "all"` observer
    /// subscribed to it; with `broadcast`, to every subscriber (host-wide news such as memory warnings).
    /// Sends an event of topic `E` (an `RPCEvent` type: its params are described once, there).
    public func emit<E: RPCEvent>(_ event: E.Type, owner: HostConnection?, broadcast: Bool = false, _ fields: JSONObject) {
        emit(E.topic, owner: owner, broadcast: broadcast, fields)
    }

    /// Whether anyone would receive an event of topic `E` about `owner`'s objects.
    public func wants<E: RPCEvent>(_ event: E.Type, owner: HostConnection?) -> Bool {
        wants(mask: Self.mask(CollectionOfOne(E.topic)), owner: owner)
    }

    private func emit(_ topic: String, owner: HostConnection?, broadcast: Bool = false, _ fields: JSONObject,
                      cause: EventCause? = nil) {
        let cause = cause ?? currentCause
        if running.held != nil {
            running.held?.append(HeldEvent(topic: topic, owner: owner, broadcast: broadcast, fields: fields, cause: cause))
            return
        }
        let t = clock.nowMs
        if broadcast {
            for c in connections where !c.isClosed && c.subscriptions.contains(topic) {
                c.send(topic: topic, fields, now: t, cause: cause?.json(for: c.id) ?? .null)
                sent += 1
            }
            return
        }
        if let owner, !owner.isClosed, !owner.observesAll, owner.subscriptions.contains(topic) {
            owner.send(topic: topic, fields, now: t, cause: cause?.json(for: owner.id) ?? .null)
            sent += 1
        }
        for c in observers[topic] ?? [] where !c.isClosed {
            c.send(topic: topic, fields, now: t, cause: cause?.json(for: c.id) ?? .null)
            sent += 1
        }
    }

    /// Whether anyone would receive an event on `topic` about `owner`'s objects: lets hot paths skip
    /// building events nobody reads. O(1).
    /// `wants` for topics given as bits (`mask`): two loads, for per-step paths.
    public func wants(mask: UInt16, owner: HostConnection?) -> Bool {
        ((owner?.topicMask ?? 0) | observedMask) & mask != 0
    }

    // MARK: Holding events back

    /// An event kept back while a call is planned.
    struct HeldEvent {
        let topic: String
        let owner: HostConnection?
        let broadcast: Bool
        let fields: JSONObject
        let cause: EventCause?
    }

    var isHolding: Bool { running.held != nil }

    /// What the work being run set here: its causes and the events it holds back. Each piece of work that
    /// may wait has its own (`CallScope`), so another run meanwhile has its own.
    struct CallState {
        /// Causes set by what runs outside a request (a timer, an idle task, a closing connection),
        /// innermost last; they win over the call being run.
        fileprivate var causes: [EventCause] = []
        /// Events held back instead of sent (nil: they are sent).
        fileprivate var held: [HeldEvent]?
    }

    /// From now on `emit` keeps events back, until `takeHeld`.
    func hold() { running.held = [] }
    /// Stops holding events back; returns those held, in order.
    func takeHeld() -> [HeldEvent] {
        defer { running.held = nil }
        return running.held ?? []
    }
    /// Sends events that were held back, in order.
    func emit(_ events: [HeldEvent]) {
        for e in events { emit(e.topic, owner: e.owner, broadcast: e.broadcast, e.fields, cause: e.cause) }
    }
}
