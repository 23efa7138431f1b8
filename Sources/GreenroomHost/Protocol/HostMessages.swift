import GreenroomJSON
import GreenroomRPC

/// `rpc.discover`: The OpenRPC document.
enum RPCDiscover: HostMethod {
    static let name = "rpc.discover"
    static let summary = "The OpenRPC document."
    static let description = "Returns this document, embedded in the binary at build time from `rpc-schema/openrpc.json`. Takes no params (any member is -32602). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["host"]
    static let result = ResultSpec("document", .object("The OpenRPC document.", [
        "openrpc": .string(),
        "info": .object(nil, [:], additionalProperties: nil),
        "methods": .any().with("type", "array"),
    ], required: ["openrpc", "info", "methods"], additionalProperties: true))
    static let errors: [ErrorDoc] = [.invalidParams, .internalError, .unauthorized]
}

/// `host.ping`: Liveness check.
enum HostPing: HostMethod {
    static let name = "host.ping"
    static let summary = "Liveness check."
    static let description = "Answers `{\"pong\": true}`. Takes no params (any member is -32602). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["host"]
    static let result = ResultSpec("pong", .object(nil, [
        "pong": .any().const(true),
    ], required: ["pong"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unauthorized]
}

/// `host.info`: Version, protocol, clock mode, classes, plugins, limits, methods and topics.
enum HostInfo: HostMethod {
    static let name = "host.info"
    static let summary = "Version, protocol, clock mode, classes, plugins, limits, methods and topics."
    static let description = "What the host is and what it offers. `methods` lists every registered method (sorted), `topics` every event topic. Takes no params (any member is -32602). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["host"]
    static let result = ResultSpec("info", .ref(.hostInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unauthorized]
}

/// `host.stats`: Host-wide counters.
enum HostStats: HostMethod {
    static let name = "host.stats"
    static let summary = "Host-wide counters."
    static let description = "Connections (open, accepted, closed, closed as slow readers, refused), request/notification/batch/error counts, events sent, memory warnings, the idle-task queue, timers and RSS. Components add their own members: containers by state, stacks, pools, unbalanced transitions, and live / tracking page and range sessions. Takes no params (any member is -32602). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["host"]
    static let result = ResultSpec("stats", .ref(.hostStats))
    static let errors: [ErrorDoc] = [.invalidParams, .unauthorized]
}

/// `host.memoryWarning`: Simulates a memory warning; returns what was purged.
enum HostMemoryWarning: HostMethod {
    static let name = "host.memoryWarning"
    static let summary = "Simulates a memory warning; returns what was purged."
    static let description = "Every component purges what it can, graded by `level` (docs/pools.md has the table): `critical` (the default: UIKit's one warning, which the prerendering article answers by emptying its cache) releases every idle pooled container, `warning` trims each pool to one idle container, its most recently warmed (the next hit); the released ones disappear (offscreen) and deinit, each pool sends a `pool` event `purged` (with `kept`), and pools refill only on demand (`pool.warm`, a miss) or after a cool-down (`--pool-cooldown-ms`, 5000 ms of host clock by default: then every eager pool refills to its depth, its warm-ups' events going to this caller). At both levels every other live container gets `didReceiveMemoryWarning {level}`; every page session releases each cached child that is neither its current page nor interaction-related (and every container parked in a reuse queue), and its live children get `didReceiveMemoryWarning`; every range session drops to `visibleOnly` (visible) or `lowMemory` (not visible) for its next range update, run at once (as Texture: after it a visible session that has been scrolled is `full` again at its next update; one never dragged keeps the mode until its first drag), each with a `range` event (and `cancelPrefetching`) for what left its ranges. `purged` merges what each component reports. Emits a `host` event `{kind: \"memoryWarning\", level}` to every `host` subscriber, before the reply. Under `--clock virtual` the cool-down ends only when `clock.advance` reaches it; the reply's `note` says so (docs/virtual-clock.md). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds. A hook failing during it is not an error: the container is torn down and listed in `failed`."
    static let tags = ["host"]
    static let result = ResultSpec("purge", .object(nil, [
        "level": .string().oneOfValues(["warning", "critical"]),
        "purged": .object("What each component purged: the container system, the page system and the range system.", [
            "pooledContainers": .integer("Idle pooled containers released.").minimum(0),
            "pooledBytes": .integer("Bytes they held.").minimum(0),
            "notifiedContainers": .integer("Live containers outside page sessions and pools that got `didReceiveMemoryWarning`: every one, its view loaded or not, as UIKit sends it to every view controller.").minimum(0),
            "pageChildrenReleased": .integer("Page children released (cached ones neither current nor interaction-related, and parked ones).").minimum(0),
            "pageChildrenNotified": .integer("Page children kept (loaded or not) that got `didReceiveMemoryWarning`.").minimum(0),
            "rangeSessions": .integer("Range sessions (of every connection) put in `visibleOnly` / `lowMemory`.").minimum(0),
        ], required: ["pooledContainers", "pooledBytes", "notifiedContainers", "pageChildrenReleased", "pageChildrenNotified", "rangeSessions"]),
        "note": .ref(.virtualClockNote),
        "failed": .array(.ref(.hookFailure), "Present when hooks failed: Containers whose `didReceiveMemoryWarning` (or another hook the purge ran) failed: torn down. The warning still reached every other container, so the call succeeds and lists them (they may belong to any connection).").minItems(1),
    ], required: ["level", "purged"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unauthorized]

    struct Params: RPCParams {
        var level = "critical"

        static let fields: [ParamField<Params>] = [
            .choice("level", \.level, .string().oneOfValues(["warning", "critical"]).default("critical"),
                    "How severe: `warning` trims each pool to one idle container, `critical` (the default) purges them all."),
        ]
    }
}

/// `host.shutdown`: Graceful shutdown.
enum HostShutdown: HostMethod {
    static let name = "host.shutdown"
    static let summary = "Graceful shutdown."
    static let description = "The reply is written, then the host stops accepting, finishes in-flight replies, tears every connection's containers down with lifecycle events, removes its socket and exits 0 (as on SIGINT/SIGTERM). Takes no params (any member is -32602). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["host"]
    static let result = ResultSpec("shutdown", .object(nil, [
        "shuttingDown": .any().const(true),
    ], required: ["shuttingDown"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unauthorized]
}

/// `host.reset`: Puts the host back as it started, for scripts that share one host.
enum HostReset: HostMethod {
    static let name = "host.reset"
    static let summary = "Puts the host back as it started, for scripts that share one host."
    static let description = "Tears down every object of every connection with its lifecycle, exactly as when its owner disconnects (stacks' containers disappear then deinit, page and range sessions end, idle pooled containers are purged), then removes every pool and every scripted class and numbers new objects from 1 again (`c-1`, `s-1`, `p-1`, `r-1`, `b-1`). Connections stay open, with their subscriptions; the clock is not turned back. Every `host` subscriber gets a `reset` event. Allowed under `--clock virtual`; under the real clock only on a host started with `--allow-reset` (else -32007), since it destroys other connections' objects. Takes no params (any member is -32602). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["host"]
    static let result = ResultSpec("reset", .object(nil, [
        "reset": .any().const(true),
        "tornDown": .object("What was alive before the reset.", [
            "containers": .integer().minimum(0),
            "stacks": .integer().minimum(0),
            "pageSessions": .integer().minimum(0),
            "rangeSessions": .integer().minimum(0),
        ], required: ["containers", "stacks", "pageSessions", "rangeSessions"]),
        "pools": .integer("Pools removed.").minimum(0),
        "pooledContainers": .integer("Idle pooled containers purged.").minimum(0),
        "classesUndefined": .array(.string(), "Scripted classes removed, in the order they were defined."),
    ], required: ["reset", "tornDown", "pools", "pooledContainers", "classesUndefined"]))
    static let errors: [ErrorDoc] = [.invalidParams, .virtualClockOnly]
}

/// `host.auth`: Authenticates a TCP connection.
enum HostAuth: HostMethod {
    static let name = "host.auth"
    static let summary = "Authenticates a TCP connection."
    static let description = "TCP clients of a host started with `--token-file` call this first with the token; until then every other method answers -32006, and messages are limited to `limits.maxUnauthenticatedMessageBytes`. A wrong token is -32006 (`data.path: \"token\"`, `data.triesLeft`: wrong tokens still allowed); after `limits.maxAuthFailures` wrong tokens the connection is closed after that reply. Tokens are compared in constant time. On a Unix socket, or without a token, or once authenticated, it always succeeds."
    static let tags = ["host"]
    static let result = ResultSpec("auth", .object(nil, [
        "authenticated": .any().const(true),
    ], required: ["authenticated"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unauthorized]

    struct Params: RPCParams {
        var token: String = ""

        static let fields: [ParamField<Params>] = [
            .required("token", \.token, .string(), "The contents of the host's token file."),
        ]
    }
}

/// `events.subscribe`: Subscribes this connection to event topics.
enum EventsSubscribe: HostMethod {
    static let name = "events.subscribe"
    static let summary = "Subscribes this connection to event topics."
    static let description = "Adds `topics` to the connection's subscriptions; `scope: \"all\"` also observes every other connection's objects (a monitor or test observer), `own` goes back to this connection's objects only; without `scope` it is unchanged. An unknown topic is -32602 with `data.path` `topics[i]`. Events are notifications whose `method` is the topic (see `x-notifications`). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["events"]
    static let result = ResultSpec("subscription", .ref(.subscription))
    static let errors: [ErrorDoc] = [.invalidParams, .unauthorized]

    struct Params: RPCParams {
        var topics: [String] = []
        var scope: String?

        static let fields: [ParamField<Params>] = [
            .required("topics", \.topics, .array(.ref(.topic)), "Topics to add."),
            .choice("scope", \.scope, .ref(.scope), "Whose objects to observe; unchanged when absent (initially `own`).", allowed: SchemaName.scope.schema.enumStrings),
        ]
    }
}

/// `events.unsubscribe`: Unsubscribes this connection from event topics.
enum EventsUnsubscribe: HostMethod {
    static let name = "events.unsubscribe"
    static let summary = "Unsubscribes this connection from event topics."
    static let description = "Removes `topics` from the connection's subscriptions (topics not subscribed are ignored; an unknown topic is -32602 with `data.path` `topics[i]`); the scope is unchanged. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["events"]
    static let result = ResultSpec("subscription", .ref(.subscription))
    static let errors: [ErrorDoc] = [.invalidParams, .unauthorized]

    struct Params: RPCParams {
        var topics: [String] = []

        static let fields: [ParamField<Params>] = [
            .required("topics", \.topics, .array(.ref(.topic)), "Topics to remove."),
        ]
    }
}

/// `clock.now`: The host clock.
enum ClockNow: HostMethod {
    static let name = "clock.now"
    static let summary = "The host clock."
    static let description = "The host clock in milliseconds, and its mode. Takes no params (any member is -32602). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["clock"]
    static let result = ResultSpec("now", .object(nil, [
        "ms": .number().minimum(0),
        "mode": .ref(.clockMode),
    ], required: ["ms", "mode"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unauthorized]
}

/// `clock.advance`: Moves the virtual clock forward.
enum ClockAdvance: HostMethod {
    static let name = "clock.advance"
    static let summary = "Moves the virtual clock forward."
    static let description = "Virtual clock only (-32007 on a real clock): moves time forward by `ms`, running due timers and animations in time order, each at its own deadline (the end of a 300 ms animation, a memory warning's cool-down: see docs/virtual-clock.md). Returns the new time as `now`, and how many timers fired. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds. A hook failing during it is not an error: the container is torn down and listed in `failed`."
    static let tags = ["clock"]
    static let result = ResultSpec("advanced", .object(nil, [
        "now": .number("The host clock after advancing, in ms since start-up (the new time, not the amount advanced).").minimum(0),
        "ms": .number("The same value as `now`, kept for clients written before `now` existed (beside the `ms` param it reads like the amount advanced: prefer `now`).").minimum(0),
        "fired": .integer("Timers that fired.").minimum(0),
        "failed": .array(.ref(.hookFailure), "Present when hooks failed: Containers whose hooks failed in the timers and animations that fired (on any connection's objects): torn down. Time still moved, so the call succeeds and lists them; on a real clock such failures are reported by their events only.").minItems(1),
    ], required: ["now", "ms", "fired"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unauthorized, .virtualClockOnly]

    struct Params: RPCParams {
        var ms: Double = 0

        static let fields: [ParamField<Params>] = [
            .required("ms", \.ms, .number().minimum(0), "Milliseconds to advance (>= 0: time never goes back)."),
        ]
    }
}

/// `tasks.status`: The idle-task dispatcher's queue.
/// `clock.settle`: Brings the host to rest on the virtual clock.
enum ClockSettle: HostMethod {
    static let name = "clock.settle"
    static let summary = "Brings the host to rest: every pending timer, in order, and the idle tasks."
    static let description = "Virtual clock only (-32007 on a real clock). Runs the runnable idle tasks (pool warm-ups), then moves the clock to the next pending timer (an animation's end, a cool-down) and fires it, and again, until nothing is pending or the next timer is more than `maxMs` past the time the call started; in that case the clock stops at `maxMs` past it. One call instead of guessing how far to `clock.advance` and when to `tasks.drain`. Idle tasks in `default` mode that wait while a page or range session tracks (a drag left open, a deceleration not ended) are listed in `paused`, not run: settling cannot end a gesture the script began. Hooks that fail in what it runs tear their containers down and are listed in `failed`, as `clock.advance` lists them. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["clock"]
    static let result = ResultSpec("settled", .object(nil, [
        "now": .number("The host clock after settling, in ms since start-up.").minimum(0),
        "advancedMs": .number("How far the clock moved.").minimum(0),
        "fired": .integer("Timers that fired.").minimum(0),
        "ran": .integer("Idle tasks that ran.").minimum(0),
        "settled": .boolean("True when nothing is pending any more: no timer, no idle task."),
        "pending": .object("What is still pending.", [
            "timers": .integer("Timers still scheduled (all more than `maxMs` past the start).").minimum(0),
            "nextTimerAt": .oneOf([.null(), .number()], "The next timer's deadline on the host clock, null when none."),
            "tasks": .integer("Idle tasks still queued (those in `paused`, and any that more timers would bring).").minimum(0),
        ], required: ["timers", "nextTimerAt", "tasks"]),
        "paused": .array(.ref(.taskInfo), "Idle tasks that wait while a session tracks: reported, not run."),
        "failed": .array(.ref(.hookFailure), "Present when hooks failed in what ran: their containers were torn down."),
    ], required: ["now", "advancedMs", "fired", "ran", "settled", "pending", "paused"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unauthorized, .virtualClockOnly]

    struct Params: RPCParams {
        var maxMs: Double = 60_000

        static let fields: [ParamField<Params>] = [
            .optional("maxMs", \.maxMs, .number().minimum(0).maximum(.double(VirtualClock.latestExactMs)).default(60000),
                      "How far the clock may move at most, in ms (default 60000)."),
        ]
    }
}

enum TasksStatus: HostMethod {
    static let name = "tasks.status"
    static let summary = "The idle-task dispatcher's queue."
    static let description = "Queued idle tasks (warming, preloading) in FIFO order with their mode and running-average cost, and the dispatcher's counters. `automatic` says whether tasks run by themselves (real clock) or only on `tasks.drain` (virtual clock). Takes no params (any member is -32602). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["tasks"]
    static let result = ResultSpec("status", .ref(.tasksStatus))
    static let errors: [ErrorDoc] = [.invalidParams, .unauthorized]
}

/// `tasks.add`: Queues an idle task of the client's.
enum TasksAdd: HostMethod {
    static let name = "tasks.add"
    static let summary = "Queues an idle task: work on the loop thread, run between requests."
    static let description = "MDTable's `TaskDispatcher.add(key) { ... }` (docs/tasks.md): queues a task that burns `costMs` of real CPU on the loop thread when it runs, as a prototype's main-thread work would (building a cell, binding a row). Split into `parts`, it runs one part per idle pass (each part costs `costMs / parts`), as the table article splits a heavy cell into one small task per run-loop pass: each part, when it runs, queues the next behind what is queued. `default` tasks pause while a page or range session tracks (drags, decelerates, animates); `common` tasks run anyway. Keys are host-wide, as the seed's dispatcher is one per app: a key already queued (by any connection) is ignored (`queued: false`). Each part that runs sends a `task` event `ran` to this connection (and `scope: \"all\"` observers); the task is this connection's until its last part ran: `tasks.cancel` removes it, and closing the connection does too. On a real clock tasks run before the loop waits for I/O, within the dispatcher's time slice; under `--clock virtual` only on `tasks.drain` or `clock.settle`. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["tasks"]
    static let result = ResultSpec("added", .object(nil, [
        "key": .string("The task's key, as given."),
        "queued": .boolean("False when a task with this key was already queued: this one was ignored."),
        "parts": .integer("Parts of the task queued under the key (the earlier task's, when ignored).").minimum(1),
        "note": .ref(.virtualClockNote),
    ], required: ["key", "queued", "parts"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unauthorized]

    struct Params: RPCParams {
        var key = ""
        var mode = "default"
        var costMs: Double = 0
        var parts = 1

        static let fields: [ParamField<Params>] = [
            .required("key", \.key, .string().minLength(1).maxLength(256), "The task's key, 1 to 256 bytes; unique among queued tasks."),
            .choice("mode", \.mode, .string().oneOfValues(["default", "common"]).default("default"),
                    "`default` (paused while a session tracks) or `common` (runs anyway)."),
            .optional("costMs", \.costMs, .number().minimum(0).maximum(10000).default(0), "Real CPU the whole task burns, in ms (0 to 10000)."),
            .optional("parts", \.parts, .integer().minimum(1).maximum(1000).default(1), "Into how many parts to split it: one part per idle pass (1 to 1000)."),
        ]
    }
}

/// `tasks.cancel`: Removes a queued task of the connection's.
enum TasksCancel: HostMethod {
    static let name = "tasks.cancel"
    static let summary = "Removes a queued task of this connection's, with the parts it has not run."
    static let description = "Removes the task this connection queued with `tasks.add` under `key`, with every part not run yet, and sends a `task` event `cancelled`. A key that is not queued, or is another connection's, is -32002 (a task whose last part ran is no longer queued). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["tasks"]
    static let result = ResultSpec("cancelled", .object(nil, [
        "key": .string("The task's key."),
        "cancelled": .any().const(true),
        "partsRun": .integer("Parts that had run before it was cancelled.").minimum(0),
    ], required: ["key", "cancelled", "partsRun"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var key = ""

        static let fields: [ParamField<Params>] = [
            .required("key", \.key, .string(), "The key given to `tasks.add`."),
        ]
    }
}

/// `tasks.drain`: Runs every runnable idle task now.
enum TasksDrain: HostMethod {
    static let name = "tasks.drain"
    static let summary = "Runs every runnable idle task now."
    static let description = "For deterministic scripts: runs every runnable task (ignoring the time slice) until none is runnable. Tasks paused by a tracking session stay queued. Takes no params (any member is -32602). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds. A hook failing during it is not an error: the container is torn down and listed in `failed`."
    static let tags = ["tasks"]
    static let result = ResultSpec("drained", .object(nil, [
        "ran": .integer("Tasks run by this call.").minimum(0),
        "pending": .integer("Tasks still queued.").minimum(0),
        "failed": .array(.ref(.hookFailure), "Present when hooks failed: Containers whose hooks failed in the tasks that ran (warm-ups): torn down. The drain still completed, so the call succeeds and lists them.").minItems(1),
    ], required: ["ran", "pending"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unauthorized]
}
