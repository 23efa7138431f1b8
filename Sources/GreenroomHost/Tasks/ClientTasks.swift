import GreenroomCore
import GreenroomJSON
import GreenroomRPC

/// Idle tasks that clients queue (`tasks.add`): MDTable's `TaskDispatcher.add(key) { ... }` over RPC.
///
/// A task burns `costMs` of real CPU on the loop thread, as a scripted hook does: the work a prototype
/// would do on its main thread (building a cell, binding a row). Split into `parts`, it runs one part per
/// idle pass, as the table article splits a heavy cell into one small task per run-loop pass: each part,
/// when it runs, queues the next (a task queued during a pass waits for the next one). `default` tasks
/// pause while a page or range session tracks; `common` tasks run anyway. Keys are the host's, as the
/// seed's dispatcher is one per app: a key already queued is ignored. A task is its connection's: only it
/// may cancel it, its `task` events go to it (and `scope: "all"` observers), and it goes when the
/// connection closes.
public final class ClientTasks: HostDomain {
    /// The host's idle tasks, where client tasks queue; the events they report on.
    private let dispatcher: IdleTasks
    private unowned let events: EventRouter

    struct Entry {
        let owner: HostConnection
        let mode: TaskMode
        let parts: Int
        let partMs: Double
        var nextPart: Int
    }

    /// Queued client tasks by the client's key (the dispatcher holds them as `task:KEY`).
    private var entries: [String: Entry] = [:]
    private(set) var ranParts = 0

    init(dispatcher: IdleTasks, events: EventRouter) {
        self.dispatcher = dispatcher
        self.events = events
    }

    static func dispatcherKey(_ key: String) -> String { "task:" + key }

    public func register(into r: inout MethodRegistry<HostConnection>) {
        r.register(TasksAdd.self) { [unowned self] conn, p throws(RPCError) in
            guard !p.key.isEmpty, p.key.utf8.count <= 256 else { throw .invalidParams(path: "key", "must be 1 to 256 bytes") }
            guard p.costMs >= 0, p.costMs <= 10_000 else { throw .invalidParams(path: "costMs", "must be between 0 and 10000") }
            guard p.parts >= 1, p.parts <= 1000 else { throw .invalidParams(path: "parts", "must be between 1 and 1000") }
            let mode = TaskMode(rawValue: p.mode) ?? .default
            guard entries[p.key] == nil else {
                // As the seed's dispatcher: a key already queued is ignored.
                return ["key": .string(p.key), "queued": false, "parts": .int(entries[p.key]!.parts)]
            }
            entries[p.key] = Entry(owner: conn, mode: mode, parts: p.parts, partMs: p.costMs / Double(p.parts), nextPart: 1)
            enqueuePart(p.key)
            return ["key": .string(p.key), "queued": true, "parts": .int(p.parts)]
        }
        r.register(TasksCancel.self) { [unowned self] conn, p throws(RPCError) in
            guard let e = entries[p.key], e.owner === conn else {
                throw RPCError(.unknownObject, "No queued task of this connection has the key \(p.key)",
                               ["path": "key", "key": .string(p.key)])
            }
            entries[p.key] = nil
            dispatcher.cancel(key: Self.dispatcherKey(p.key))
            events.emit(TaskTopic.self, owner: conn, ["kind": "cancelled", "key": .string(p.key),
                                                             "partsRun": .int(e.nextPart - 1), "parts": .int(e.parts)])
            return ["key": .string(p.key), "cancelled": true, "partsRun": .int(e.nextPart - 1)]
        }
    }

    /// Queues the entry's next part.
    private func enqueuePart(_ key: String) {
        guard let e = entries[key] else { return }
        dispatcher.enqueue(key: Self.dispatcherKey(key), mode: e.mode, costKey: "task:\(key)") { [weak self] in
            self?.runPart(key)
        }
    }

    private func runPart(_ key: String) {
        guard var e = entries[key] else { return }
        if e.partMs > 0 { burnCPU(ms: e.partMs) }
        ranParts += 1
        let part = e.nextPart
        let done = part == e.parts
        events.emit(TaskTopic.self, owner: e.owner, ["kind": "ran", "key": .string(key), "mode": .string(e.mode.rawValue),
                                                          "part": .int(part), "parts": .int(e.parts), "done": .bool(done)])
        if done {
            entries[key] = nil
        } else {
            e.nextPart += 1
            entries[key] = e
            enqueuePart(key)
        }
    }

    /// Whose task is queued under the dispatcher's `key`, and which part is next (for `tasks.status`).
    func describe(dispatcherKey key: String) -> JSONObject? {
        guard key.hasPrefix("task:"), let e = entries[String(key.dropFirst(5))] else { return nil }
        return ["connection": .string(e.owner.id), "part": .int(e.nextPart), "parts": .int(e.parts)]
    }

    public func connectionClosed(_ connection: HostConnection) {
        for (key, e) in entries where e.owner === connection {
            entries[key] = nil
            dispatcher.cancel(key: Self.dispatcherKey(key))
        }
    }

    public func reset(caller: HostConnection) -> JSONObject {
        // Every connection's objects went first (connectionClosed); what is left is cleared too.
        for key in entries.keys { dispatcher.cancel(key: Self.dispatcherKey(key)) }
        entries = [:]
        return [:]
    }
}
