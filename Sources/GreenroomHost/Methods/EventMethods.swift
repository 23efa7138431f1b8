import GreenroomJSON
import GreenroomRPC

extension Host {
    func registerEventMethods(into r: inout MethodRegistry<HostConnection>) {
        r.register(EventsSubscribe.self) { [unowned self] c, p throws(RPCError) in
            let topics = try Host.validTopics(p.topics)
            let scope = p.scope
            c.subscriptions.formUnion(topics)
            if let scope { c.observesAll = scope == "all" }
            self.events.refreshObserver(c)
            return c.subscriptionReply()
        }
        r.register(EventsUnsubscribe.self) { [unowned self] c, p throws(RPCError) in
            let topics = try Host.validTopics(p.topics)
            c.subscriptions.subtract(topics)
            self.events.refreshObserver(c)
            return c.subscriptionReply()
        }
    }

    static func validTopics(_ topics: [String]) throws(RPCError) -> [String] {
        for (i, t) in topics.enumerated() where !EventRouter.topics.contains(t) {
            throw .invalidParams(path: "topics[\(i)]", "unknown topic \"\(t)\" (topics: \(EventRouter.topics.joined(separator: ", ")))")
        }
        return topics
    }
}

extension HostConnection {
    func subscriptionReply() -> JSONValue {
        [
            "topics": .array(EventRouter.topics.filter { subscriptions.contains($0) }.map { .string($0) }),
            "scope": observesAll ? "all" : "own",
        ]
    }
}
