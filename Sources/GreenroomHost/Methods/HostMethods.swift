import GreenroomJSON
import GreenroomRPC
import Logging

extension Host {
    /// The host's own methods: discovery, liveness, info, stats, memory, shutdown, auth, events, clock
    /// and idle tasks.
    func registerHostMethods(into r: inout MethodRegistry<HostConnection>) {
        r.register(RPCDiscover.self) { _, _ throws(RPCError) in GreenroomProtocol.document }
        // A constant result, encoded once by Jansson: liveness checks cost only the request's parse.
        let pong = EncodedJSON(["pong": true])
        r.register(HostPing.self, encoded: { _, _ throws(RPCError) in pong })
        r.register(HostInfo.self) { [unowned self] c, _ throws(RPCError) in self.info() }
        r.register(HostStats.self) { [unowned self] c, _ throws(RPCError) in .object(self.statsReport()) }
        r.register(HostMemoryWarning.self) { [unowned self] c, p async throws(RPCError) in
            let level = p.level
            let purged = await self.memoryWarning(level: level, caller: c)
            // Containers whose didReceiveMemoryWarning failed were torn down; the warning still reached
            // every other one, so the call succeeded and lists them.
            var reply: JSONObject = ["level": .string(level), "purged": .object(purged)]
            self.containers.takeCallFailures(into: &reply)
            return .object(reply)
        }
        r.register(HostShutdown.self) { [unowned self] c, _ throws(RPCError) in
            self.requestShutdown()
            return ["shuttingDown": true]
        }
        r.register(HostAuth.self) { [unowned self] c, p throws(RPCError) in
            let token = p.token
            if let expected = self.config.token, c.kind.needsToken, !c.isAuthenticated {
                guard constantTimeEqual(token, expected) else {
                    // A few tries, then the connection is closed after this reply.
                    c.authFailures += 1
                    let left = max(0, self.config.maxAuthFailures - c.authFailures)
                    // Never the token itself, at any level.
                    self.config.logger.warning("refused: wrong token", metadata: [
                        "connection": "\(c.id)", "triesLeft": "\(left)"])
                    if left == 0 {
                        self.countAuthFailuresClosed()
                        c.closeAfterReplies()
                    }
                    throw RPCError(.unauthorized, left == 0 ? "Unauthorized: wrong token; too many wrong tokens, closing the connection"
                                                            : "Unauthorized: wrong token",
                                   ["path": "token", "triesLeft": .int(left)])
                }
            }
            c.authenticated()
            return ["authenticated": true]
        }
        registerEventMethods(into: &r)
        registerClockMethods(into: &r)
        registerResetMethods(into: &r)
        registerTaskMethods(into: &r)
    }

    func info() -> JSONValue {
        let l = config.limits
        return [
            "name": "greenroom",
            "version": .string(GreenroomVersion.version),
            "protocol": .object(["jsonrpc": "2.0", "version": .int(GreenroomVersion.protocolVersion)]),
            "clock": .string(config.clockMode.rawValue),
            "uikit": .int(config.uikit.rawValue),
            "pid": .int(config.pid),
            "listen": .array(listenAddresses.map { .string($0) }),
            "classes": .array(classNames().map { .string($0) }),
            "plugins": .array(classes.plugins.map { p in
                var entry: JSONObject = ["name": .string(p.name), "path": .string(p.path), "version": .string(p.version),
                                         "classes": .array(p.classes.map { .string($0) })]
                for m in (classes.pluginStatus?(p.name) ?? [:]).members { entry[m.key] = m.value }
                return .object(entry)
            }),
            "limits": [
                "maxMessageBytes": .int(l.maxMessageBytes),
                "maxBatch": .int(l.maxBatch),
                "maxDepth": .int(l.maxDepth),
                "maxConnections": .int(config.maxConnections),
                "maxOutboundBytes": .int(config.maxOutboundBytes),
                "slowReaderGraceMs": .int(config.slowReaderGraceMs),
                "outboundHighWaterBytes": .int(Host.waterMarks(outboundLimit: config.maxOutboundBytes).high),
                "outboundLowWaterBytes": .int(Host.waterMarks(outboundLimit: config.maxOutboundBytes).low),
                "maxUnauthenticated": .int(unauthenticatedShare),
                "maxUnauthenticatedMessageBytes": .int(config.maxUnauthenticatedMessageBytes),
                "authTimeoutMs": .int(config.authTimeoutMs),
                "maxAuthFailures": .int(config.maxAuthFailures),
                "maxBufferedInputBytes": .int(config.maxBufferedInputBytes),
                "maxWaitingCalls": .int(config.maxWaitingCalls),
            ],
            "pools": ["coolDownMs": .double(containers.pools.coolDownMs), "budgetBytes": .int(containers.pools.budgetBytes)],
            "methods": .array(processor.registry.names.map { .string($0) }),
            "topics": .array(EventRouter.topics.map { .string($0) }),
        ]
    }

    func classNames() -> [String] { classes.order }

    func statsReport() -> JSONObject {
        let counters = processor.counters
        var s: JSONObject = [
            "connections": [
                "open": .int(connections.count),
                "accepted": .int(stats.accepted),
                "closed": .int(stats.closed),
                "closedSlowReader": .int(stats.closedSlow),
                "rejectedLimit": .int(stats.rejectedLimit),
                "rejectedPeer": .int(stats.rejectedPeer),
                "rejectedUnauthenticated": .int(stats.rejectedUnauthenticated),
                "unauthenticated": .int(connections.unauthenticated),
                "closedAuthTimeout": .int(stats.closedAuthTimeout),
                "closedAuthFailures": .int(stats.closedAuthFailures),
                "refusedInputBudget": .int(stats.refusedInputBudget),
                "paused": .int(connections.reduce(0) { $0 + ($1.isPaused ? 1 : 0) }),
                "pauses": .int(stats.pauses),
                "bufferedInputBytes": .int(connections.bufferedInputBytes),
                "webSocketUpgrades": .int(stats.upgrades),
                "webSocketCloses": .object(JSONObject(stats.webSocketCloses.sorted { $0.key < $1.key }.map { (key: $0.key, value: .int($0.value)) })),
                "httpAnswers": .object(JSONObject(stats.httpAnswers.sorted { $0.key < $1.key }.map { (key: $0.key, value: .int($0.value)) })),
            ],
            "requests": .int(counters.requests),
            "notifications": .int(counters.notifications),
            "batches": .int(counters.batches),
            "errors": .int(counters.errors),
            "eventsSent": .int(events.sent),
            "memoryWarnings": .int(stats.memoryWarnings),
            "resets": .int(stats.resets),
            "tasks": [
                "pending": .int(dispatcher.pendingCount),
                "runnable": .int(dispatcher.runnableCount),
                "ran": .int(dispatcher.totalRan),
            ],
            "timers": .int(timers.count),
            "lane": .object(lane.stats),
            "rssBytes": .int(config.residentBytes()),
        ]
        for component in components { component.addStats(to: &s) }
        return s
    }
}
