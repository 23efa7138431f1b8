import GreenroomJSON

/// What made an event happen, as every event's `cause` says (docs/protocol.md "Causes"): a request, or,
/// when no request did, a timer, an idle task, a connection opening or closing, a signal or a plugin's
/// worker. A transcript of a session (docs/transcripts.md) shows each event under the request that
/// caused it.
indirect enum EventCause {
    /// A call: its id (nil for a notification), its method and the connection that sent it.
    case request(id: JSONValue?, method: String, connection: String)
    /// A timer on the host clock (an animation's end, a cool-down), with what scheduled it.
    case timer(String, scheduledBy: EventCause?)
    /// An idle task, by key (a pool warm-up).
    case idle(String)
    case open(connection: String)
    case close(connection: String)
    case signal(String)
    /// A plugin's worker ended or restarted.
    case plugin(String)

    /// The `cause` member for an event sent to `recipient`: a request of its own is just the request's
    /// id; another connection's (seen by a `scope: "all"` observer) names that connection too.
    func json(for recipient: String) -> JSONValue {
        switch self {
        case .request(let id?, _, let connection):
            return connection == recipient ? id : ["id": id, "connection": .string(connection)]
        case .request(nil, let method, let connection):
            var o: JSONObject = ["notification": .string(method)]
            if connection != recipient { o["connection"] = .string(connection) }
            return .object(o)
        case .timer(let label, let scheduledBy):
            var o: JSONObject = ["timer": .string(label)]
            if let scheduledBy { o["scheduledBy"] = scheduledBy.json(for: recipient) }
            return .object(o)
        case .idle(let key): return ["idle": .string(key)]
        case .open(let c): return ["open": .string(c)]
        case .close(let c): return ["close": .string(c)]
        case .signal(let name): return ["signal": .string(name)]
        case .plugin(let name): return ["plugin": .string(name)]
        }
    }
}
