import GreenroomJSON
import GreenroomCore
import GreenroomRPC

/// The names of the component schemas, for `Schema.ref`.
enum SchemaName: String, CaseIterable {
    case topic = "Topic"
    case clockMode = "ClockMode"
    case scope = "Scope"
    case connectionId = "ConnectionId"
    case containerId = "ContainerId"
    case stackId = "StackId"
    case pageSessionId = "PageSessionId"
    case rangeSessionId = "RangeSessionId"
    case batchContextId = "BatchContextId"
    case indexPath = "IndexPath"
    case limits = "Limits"
    case errorData = "ErrorData"
    case errorObject = "ErrorObject"
    case listenAddress = "ListenAddress"
    case hostInfo = "HostInfo"
    case hostStats = "HostStats"
    case subscription = "Subscription"
    case taskInfo = "TaskInfo"
    case tasksStatus = "TasksStatus"
    case eventSeq = "EventSeq"
    case eventTime = "EventTime"
    case eventCause = "EventCause"
    case eventBase = "EventBase"
    case lifecycleHook = "LifecycleHook"
    case lifecycleEvent = "LifecycleEvent"
    case poolEvent = "PoolEvent"
    case pageEvent = "PageEvent"
    case rangeChanges = "RangeChanges"
    case rangeEvent = "RangeEvent"
    case prefetchEvent = "PrefetchEvent"
    case batchEvent = "BatchEvent"
    case connectionOpenedEvent = "ConnectionOpenedEvent"
    case connectionClosedEvent = "ConnectionClosedEvent"
    case memoryWarningEvent = "MemoryWarningEvent"
    case hostEvent = "HostEvent"
    case taskEvent = "TaskEvent"
    case className = "ClassName"
    case greenRoomId = "GreenRoomId"
    case dimension = "Dimension"
    case size = "Size"
    case appearance = "Appearance"
    case containerState = "ContainerState"
    case poolPolicy = "PoolPolicy"
    case scriptedHook = "ScriptedHook"
    case classInfo = "ClassInfo"
    case classDefinition = "ClassDefinition"
    case containerParent = "ContainerParent"
    case containerInfo = "ContainerInfo"
    case stackInfo = "StackInfo"
    case poolStatus = "PoolStatus"
    case pageIndex = "PageIndex"
    case pageOffset = "PageOffset"
    case pagePhase = "PagePhase"
    case pageSpec = "PageSpec"
    case pageCacheParam = "PageCacheParam"
    case pageCache = "PageCache"
    case pageChild = "PageChild"
    case pageInfo = "PageInfo"
    case pageStreamState = "PageStreamState"
    case rangeMode = "RangeMode"
    case rangeDirection = "RangeDirection"
    case rangePhase = "RangePhase"
    case rangeLength = "RangeLength"
    case rangeLengths = "RangeLengths"
    case rangeItemCount = "RangeItemCount"
    case rangeSection = "RangeSection"
    case rangeKeys = "RangeKeys"
    case rangeKeyLists = "RangeKeyLists"
    case rangeBatchUpdate = "RangeBatchUpdate"
    case rangeSnapshotSection = "RangeSnapshotSection"
    case rangeViewport = "RangeViewport"
    case rangeBuffer = "RangeBuffer"
    case rangeModeTuning = "RangeModeTuning"
    case rangeTuning = "RangeTuning"
    case rangeBatchParam = "RangeBatchParam"
    case rangeStrategy = "RangeStrategy"
    case rangeOffset = "RangeOffset"
    case rangeInfo = "RangeInfo"
    case rangeCreated = "RangeCreated"
    case rangeStreamState = "RangeStreamState"
    case rangeRanges = "RangeRanges"
    case rangeItemState = "RangeItemState"
    case rangeItems = "RangeItems"
    case rangeEnter = "RangeEnter"
    case rangeExit = "RangeExit"
    case virtualClockNote = "VirtualClockNote"
    case resetEvent = "ResetEvent"
    case pluginCrashedEvent = "PluginCrashedEvent"
    case pluginRestartedEvent = "PluginRestartedEvent"
    case pluginFailedEvent = "PluginFailedEvent"
    case hookFailure = "HookFailure"
    case durationMs = "DurationMs"
    case interactivePop = "InteractivePop"

    /// The schema the name stands for.
    var schema: Schema {
        switch self {
        case .topic: .string("An event topic; also the `method` of the notifications on that topic.").oneOfValues(ProtocolCatalog.events.map { .string($0.topic) })
        case .clockMode: .string("`virtual`: time moves only by `clock.advance` (started with `--clock virtual`).").oneOfValues(["real", "virtual"])
        case .scope: .string("`own`: events about this connection's objects; `all`: every connection's objects (a monitor or test observer).").oneOfValues(["own", "all"])
        case .connectionId: .string("Opaque id of a connection (`conn-N`).").pattern("^conn-[1-9][0-9]*$")
        case .containerId: .string("Opaque id of a container (`c-N`).").pattern("^c-[1-9][0-9]*$")
        case .stackId: .string("Opaque id of a stack (`s-N`).").pattern("^s-[1-9][0-9]*$")
        case .pageSessionId: .string("Opaque id of a page session (`p-N`).").pattern("^p-[1-9][0-9]*$")
        case .rangeSessionId: .string("Opaque id of a range session (`r-N`).").pattern("^r-[1-9][0-9]*$")
        case .batchContextId: .string("Opaque id of a batch-fetch context (`b-N`).").pattern("^b-[1-9][0-9]*$")
        case .indexPath: .array(.integer().minimum(0), "An item's index path `[section, row]`.").minItems(2).maxItems(2)
        case .limits: .object("The host's limits (set by `serve` flags).", [
            "maxMessageBytes": .integer("Longest message (line) in bytes; default 1 MiB. A longer line gets -32600 with `id: null`.").minimum(1),
            "maxBatch": .integer("Most entries in a batch; default 256.").minimum(1),
            "maxDepth": .integer("Deepest JSON nesting; default 64.").minimum(1),
            "maxConnections": .integer("Most concurrent connections; default 1024.").minimum(1),
            "maxOutboundBytes": .integer("Queued outbound bytes per connection past which a peer that takes no bytes for `slowReaderGraceMs` is closed as a slow reader; default 8 MiB. A reading peer is never closed: requests pause at the high-water mark.").minimum(1),
            "slowReaderGraceMs": .integer("How long a connection that is paused by backpressure, or past `maxOutboundBytes`, may take no bytes before it is closed; default 5000 (`--slow-reader-grace-ms`).").minimum(1),
            "outboundHighWaterBytes": .integer("Backpressure's high-water mark: past this many queued outbound bytes the host stops reading and running the connection's requests (half of `maxOutboundBytes`, at most 1 MiB).").minimum(1),
            "outboundLowWaterBytes": .integer("Backpressure's low-water mark: the connection resumes once its queue drains below it (a quarter of the high-water mark).").minimum(0),
            "maxWaitingCalls": .integer("Most calls that may wait (on a plugin worker or a scripted cost) that are waiting or waiting their turn at once, host-wide; past it a further one gets -32005 with `data.limit: \"waitingCalls\"` (`--max-waiting-calls`, default 1024). A connection has at most one such line at a time: its later lines wait unread behind it.").minimum(1),
            "maxUnauthenticated": .integer("With a token: most TCP connections open at once that have not authenticated (`--max-unauthenticated`, default 64, at most half of `maxConnections`).").minimum(1),
            "maxUnauthenticatedMessageBytes": .integer("With a token: longest message before `host.auth` succeeds (4096).").minimum(1),
            "authTimeoutMs": .integer("With a token: time a TCP connection has to succeed at `host.auth`; default 10000 (`--auth-timeout-ms`).").minimum(1),
            "maxAuthFailures": .integer("With a token: wrong tokens a connection may give before it is closed (3).").minimum(1),
            "maxBufferedInputBytes": .integer("Host-wide budget for bytes held in partial input lines; default 64 MiB (`--max-buffered-input-bytes`).").minimum(1),
        ], required: ["maxMessageBytes", "maxBatch", "maxDepth", "maxConnections", "maxOutboundBytes", "slowReaderGraceMs", "outboundHighWaterBytes", "outboundLowWaterBytes", "maxUnauthenticated", "maxUnauthenticatedMessageBytes", "authTimeoutMs", "maxAuthFailures", "maxBufferedInputBytes"])
        case .errorData: .object("The `data` of every Greenroom error. `kind` names the error (by default the code's name: `invalidParams`, `unknownObject`...; some -32600 errors are more precise: `tooDeep`, `emptyBatch`, `batchTooLarge`, `messageTooLarge`; a -32006 for a connection that did not authenticate in time is `authTimeout`; a -32700 for an integer beyond the signed 64-bit range, which Jansson cannot read, is `numberOutOfRange`). Other members say what was wrong.", [
            "kind": .string().minLength(1),
            "path": .string("The offending field, e.g. `ms`, `topics[0]`, `viewport.width`, `pages[2].class`, `cache.limit`, `lengths[3]`, `sections[0].count`, `tuning.full.display.leading`, `paths[1]`, `at[0]` (-32602 always; -32600 for the bad request member; -32001/-32002 the param that named the missing class or object)."),
            "reason": .string("Why the field is invalid (-32602). -32004 from a plugin: `failed` (the hook returned an error), `invalidOutput`, `outputTooLarge` (over `--plugin-output-limit`, never truncated), `crashed`, `exited`, `closed`, `timeout` (past `--hook-timeout-ms`), `protocol` (its worker broke the worker protocol on this call, docs/worker-protocol.md, and was killed), `workerEnded` (its worker ended earlier), `restarting` (with `retryAfterMs`) or `pluginMarkedFailed` (until `plugins.restart`)."),
            "method": .string(),
            "id": .string("The object id that was not found (-32002)."),
            "expected": .string("What kind of object the id should have named (-32002)."),
            "limit": .string("Which limit was exceeded (-32005, and -32600 for message limits)."),
            "max": .integer(),
            "line": .integer("-32700: the number of the line that was not JSON on this connection (1 for its first line; over WebSocket, its message)."),
            "column": .integer("-32700: where in that line."),
            "position": .integer(),
            "class": .string("The class (-32001 the unknown one; -32004 the failed container's)."),
            "known": .array(.string(), "-32001: the classes that exist."),
            "container": .string("The container concerned (-32003, -32004: it was torn down)."),
            "stack": .string("The stack concerned (-32003)."),
            "session": .string("The page session concerned (-32003: a container that is one of its children)."),
            "hook": .string("-32004: the hook that failed."),
            "call": .string("-32003 from a page or range session: the call that does not fit its phase (`page.show`, `page.willBeginDragging`, `page.willEndDragging`, `page.didEndDragging`, `page.didEndDecelerating`, `range.willEndDragging`, `range.didEndDecelerating`)."),
            "phase": .string("-32003 from a page or range session: its phase when the call came (a `PagePhase` or a `RangePhase`, or `offscreen` for a drag on a page session that is not on screen).").oneOfValues(["idle", "dragging", "decelerating", "animating", "offscreen"]),
            "triesLeft": .integer("`host.auth`: wrong tokens the connection may still give before it is closed.").minimum(0),
            "held": .integer("-32005 for the input budget: bytes of partial input this connection held.").minimum(0),
            "plugin": .string("-32004: the plugin whose class failed; -32602 from `plugins.restart`: the unknown one."),
            "signal": .integer("-32004: the signal that killed the plugin's worker."),
            "signalName": .string("-32004: its name (SIGABRT, SIGSEGV...)."),
            "exitStatus": .integer("-32004: the status the plugin's worker exited with."),
            "status": .integer("-32004: what the plugin's hook returned."),
            "retryAfterMs": .integer("-32004 `reason: restarting`: when the plugin's worker restarts."),
            "outputBytes": .integer("-32004 `reason: outputTooLarge`: the bytes the hook set."),
            "limitBytes": .integer("-32004 `reason: outputTooLarge`: the limit."),
            "isolation": .string("-32003 from `plugins.restart`: `none` (an in-process plugin cannot be restarted)."),
            "failures": .array(.ref(.hookFailure), "-32004: every container whose hook failed during the call, in order (the first is the one `container`, `class` and `hook` name). A failure is always reported in the reply of the call that caused it, never in a later one."),
            "result": .any("-32004 from a call that otherwise completed (a push whose covered container failed, a page session created in a stack whose current page failed): the result it answers otherwise. What it did is done; the events before the reply say what was torn down."),
            "error": .ref(.errorObject).described("-32004 from a call that also failed for another reason (a pop that finds its stack emptied by the failure): the error it answers otherwise."),
            "budget": .integer("-32005 scriptedMemoryBytes: the host-wide budget in bytes."),
            "used": .integer("-32005 scriptedMemoryBytes: bytes scripted instances hold now."),
            "asked": .integer("-32005 scriptedMemoryBytes: bytes the new instance would hold (its class's memoryBytes)."),
        ], required: ["kind"], additionalProperties: true)
        case .errorObject: .object("A JSON-RPC error object as Greenroom sends it: one of the codes in `components.errors`, always with `data.kind`; -32602 always names the bad field in `data.path`.", [
            "code": .integer().oneOfValues([-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005, -32006, -32007]),
            "message": .string().minLength(1),
            "data": .ref(.errorData),
        ], required: ["code", "message", "data"]).with("allOf", .array([(Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "code", value: Schema.any().const(-32602).json)])))).then(.any().with("properties", JSONValue.object(JSONObject([(key: "data", value: Schema.any().with("required", ["kind", "path"]).json)]))))).json, (Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "code", value: Schema.any().const(-32003).json), (key: "data", value: Schema.any().with("required", ["call"]).json)]))).with("required", ["code", "data"])).then(.any().with("properties", JSONValue.object(JSONObject([(key: "data", value: Schema.any().with("required", ["kind", "call", "phase"]).json)]))))).json]))
        case .listenAddress: .string("A listener's address: `unix:` and the socket's path, `tcp:` or `ws:` and `HOST:PORT` (an IPv6 host in brackets), as the ready line and `host.info` give it.").pattern("^(unix:.+|(tcp|ws):(\\[[0-9A-Fa-f:.]+\\]|[^:\\[\\]]+):[0-9]{1,5})$")
        case .hostInfo: .object(nil, [
            "name": .any().const("greenroom"),
            "version": .string("The host's version (semver)."),
            "protocol": .object(nil, [
                "jsonrpc": .any().const("2.0"),
                "version": .integer("Wire-contract version; bumped on incompatible changes.").minimum(1),
            ], required: ["jsonrpc", "version"]),
            "clock": .ref(.clockMode),
            "uikit": .integer("The UIKit the host models (`serve --uikit`): 17, where every appearance runs `viewIsAppearing` after `viewWillAppear`, or 16, where none does (transcripts recorded before the hook existed replay on it).").oneOfValues(UIKitGeneration.allCases.map { .int($0.rawValue) }),
            "pid": .integer().minimum(0),
            "listen": .array(.ref(.listenAddress), "What the server listens on, in the order of its ready line: `unix:/path`, `tcp:127.0.0.1:7000`, `ws:127.0.0.1:7001` (the port it really bound)."),
            "classes": .array(.ref(.className), "Names of the container classes the host can instantiate (built in, plugin and scripted), in registration order.").uniqueItems(),
            "plugins": .array(.object(nil, [
                "name": .string(),
                "path": .string("The shared library it was loaded from, or for a command plugin the executable its command runs."),
                "version": .string(),
                "classes": .array(.ref(.className), "Classes it registered."),
                "isolation": .string("`process`: the plugin runs in a worker process of its own (the default), so a crash, exit or hang fails only its own containers; `none`: loaded into the host (`serve --plugin-isolation none`).").oneOfValues(["process", "none"]),
                "state": .string("`restarting`: its worker crashed and waits out its backoff (its classes answer -32004 `reason: restarting` with `retryAfterMs`); `failed`: past `--plugin-restart-limit` crashes within a minute, or its library no longer loads: its classes answer -32004 `reason: pluginMarkedFailed` until `plugins.restart`.").oneOfValues(["running", "restarting", "failed"]),
                "pid": .any("The worker's process id; null in process or while no worker runs.").with("type", ["integer", "null"]),
                "crashes": .integer("Workers that ended unasked (signal, exit, closed socket, deadline).").minimum(0),
                "restarts": .integer("Workers started again after a crash or by `plugins.restart`.").minimum(0),
                "kind": .string("`library`: a native plugin (`serve --plugin`); `command`: an executable that speaks the worker protocol (`serve --plugin-command`, docs/worker-protocol.md). Absent in process.").oneOfValues(["library", "command"]),
                "command": .array(.string(), "A command plugin's command, as its words (`serve --plugin-command`)."),
                "workerProtocol": .integer("The worker protocol version its running worker speaks (docs/worker-protocol.md).").minimum(1),
                "failedReason": .string("Why it is marked failed."),
                "lastCrash": .object("How the last worker ended: `reason` (crashed, exited, closed, timeout, protocol), `signal` and `signalName` or `exitStatus`, and `detail`.", [:], additionalProperties: true),
            ], required: ["name", "path", "version", "classes"], additionalProperties: true), "Loaded plugins, with how each runs (isolation) and its worker's state."),
            "limits": .ref(.limits),
            "pools": .object("The prerender pools' host-wide settings (docs/pools.md).", [
                "coolDownMs": .number("After a memory warning, pools refill only on demand for this long (`--pool-cooldown-ms`, default 5000).").minimum(0),
                "budgetBytes": .integer("Bytes idle pooled containers may hold, host-wide (`--pool-budget-bytes`, default 268435456); past it the least recently warmed go first.").minimum(0),
            ], required: ["coolDownMs", "budgetBytes"]),
            "methods": .array(.string(), "Every registered method, sorted.").uniqueItems(),
            "topics": .array(.ref(.topic)).uniqueItems(),
        ], required: ["name", "version", "protocol", "clock", "uikit", "pid", "listen", "classes", "plugins", "limits", "pools", "methods", "topics"])
        case .hostStats: .object("Host-wide counters: the host's own members, the container system's (containers, stacks, pools, unbalanced transitions), the page system's (`sessions.page`, `sessions.pageTracking`) and the range system's (`sessions.range`, `sessions.rangeTracking`).", [
            "connections": .object(nil, [
                "open": .integer("Open connections now.").minimum(0),
                "accepted": .integer("Connections accepted since start.").minimum(0),
                "closed": .integer("Connections closed since start (any reason).").minimum(0),
                "closedSlowReader": .integer("Connections closed because they took no bytes for the slow-reader grace period while paused or past the outbound limit.").minimum(0),
                "rejectedLimit": .integer("Connections refused at the connection limit.").minimum(0),
                "rejectedPeer": .integer("Unix connections refused because the peer's uid is not allowed.").minimum(0),
                "rejectedUnauthenticated": .integer("TCP connections refused because the unauthenticated share was full.").minimum(0),
                "unauthenticated": .integer("Open TCP connections that have not authenticated yet.").minimum(0),
                "closedAuthTimeout": .integer("Connections refused because `host.auth` did not succeed in time.").minimum(0),
                "closedAuthFailures": .integer("Connections closed after too many wrong tokens.").minimum(0),
                "refusedInputBudget": .integer("Connections refused because the host-wide partial-line budget was passed and they held the most.").minimum(0),
                "paused": .integer("Connections paused by backpressure now.").minimum(0),
                "pauses": .integer("Times a connection was paused by backpressure since start.").minimum(0),
                "bufferedInputBytes": .integer("Bytes held in partial input lines across all connections now.").minimum(0),
                "webSocketUpgrades": .integer("WebSocket upgrades accepted on `ws:` listeners since start.").minimum(0),
                "webSocketCloses": .object("WebSocket connections closed with a close frame, by status code (\"1000\" normal, \"1001\" host shutting down, \"1002\" protocol error, \"1003\" binary frame, \"1007\" invalid UTF-8, \"1009\" message over the limit), whichever side started the close.", [:], additionalProperties: nil).additionalProperties(.integer().minimum(1)),
                "httpAnswers": .object("Plain HTTP requests answered and closed, by outcome: \"200\" a static file on a `ws:` listener, else the rule that refused it (\"origin\" 403, \"host\" 403 or 400, \"token\" 401, \"path\" 404, \"method\" 405, \"upgrade\" 4xx, \"request\" malformed, \"notHTTP\" an HTTP request on a `tcp:` line listener).", [:], additionalProperties: nil).additionalProperties(.integer().minimum(1)),
            ], required: ["open", "accepted", "closed", "closedSlowReader", "rejectedLimit", "rejectedPeer", "rejectedUnauthenticated", "unauthenticated", "closedAuthTimeout", "closedAuthFailures", "refusedInputBudget", "paused", "pauses", "bufferedInputBytes"]),
            "requests": .integer("Requests (with an id) received.").minimum(0),
            "notifications": .integer("Client notifications (no id) received.").minimum(0),
            "batches": .integer("Batches received.").minimum(0),
            "errors": .integer("Error replies (and errors in notifications) so far.").minimum(0),
            "eventsSent": .integer("Event notifications written.").minimum(0),
            "memoryWarnings": .integer("Memory warnings handled.").minimum(0),
            "tasks": .object("The idle-task queue.", [
                "pending": .integer().minimum(0),
                "runnable": .integer().minimum(0),
                "ran": .integer().minimum(0),
            ], required: ["pending", "runnable", "ran"]),
            "timers": .integer("Scheduled timers.").minimum(0),
            "rssBytes": .integer("Resident set size of the host process, in bytes.").minimum(0),
            "containers": .object("Live containers (everything not yet deinited, pooled ones included).", [
                "total": .integer().minimum(0),
                "pooled": .integer("Idle in a green room.").minimum(0),
                "byState": .object(nil, [
                    "fresh": .integer().minimum(0),
                    "disappeared": .integer().minimum(0),
                    "appearing": .integer().minimum(0),
                    "appeared": .integer().minimum(0),
                    "disappearing": .integer().minimum(0),
                ], required: ["fresh", "disappeared", "appearing", "appeared", "disappearing"]),
            ], required: ["total", "pooled", "byState"]),
            "stacks": .integer("Stacks (not counting green rooms).").minimum(0),
            "pools": .object(nil, [
                "count": .integer("Pools (class and size).").minimum(0),
                "idle": .integer("Idle pooled containers, all pools.").minimum(0),
                "pooledBytes": .integer("Bytes held by idle pooled containers.").minimum(0),
                "budgetBytes": .integer("Past this, the least recently warmed idle container is evicted.").minimum(0),
            ], required: ["count", "idle", "pooledBytes", "budgetBytes"]),
            "unbalancedTransitions": .integer("Appearance calls the state machine refused since start (each also a lifecycle event). The host's own flows never cause one.").minimum(0),
            "sessions": .object("Live sessions by kind.", [
                "page": .integer("Live page sessions.").minimum(0),
                "pageTracking": .integer("Page sessions tracking now (dragging, decelerating or animating): while any is, `default` idle tasks pause.").minimum(0),
                "range": .integer("Live range sessions.").minimum(0),
                "rangeTracking": .integer("Range sessions tracking now (dragging or decelerating): while any is, `default` idle tasks pause.").minimum(0),
            ], required: ["page", "pageTracking", "range", "rangeTracking"]),
            "resets": .integer("`host.reset` calls handled.").minimum(0),
            "plugins": .object("Plugin workers: running now, plugins marked failed, crashes (signal, exit, closed socket or deadline), restarts, deadline kills, and plugins loaded in process.", [
                "workers": .integer().minimum(0),
                "failed": .integer().minimum(0),
                "crashes": .integer().minimum(0),
                "restarts": .integer().minimum(0),
                "timeouts": .integer().minimum(0),
                "inProcess": .integer().minimum(0),
            ], required: ["workers", "failed", "crashes", "restarts", "timeouts", "inProcess"]),
            "scriptedMemory": .object("Memory scripted classes' instances hold (`memoryBytes` times live instances) and its budget. The budget (`budgetBytes`) is host-wide for the memory scripted classes' instances hold: `memoryBytes` times live instances, pooled or not (`--scripted-memory-budget-bytes`, default 1 GiB). Creating an instance past it (container.create, showRendered, a page child, a warm-up) is -32005 with `data.limit: \"scriptedMemoryBytes\"`, `budget`, `used` and `asked`.", [
                "usedBytes": .integer().minimum(0),
                "budgetBytes": .integer().minimum(0),
            ], required: ["usedBytes", "budgetBytes"]),
            "lane": .object("The call lane: lines whose calls may wait (a container hook, which may run in a plugin's worker process or spend a scripted cost) run in the lane, each as a Swift task on the host's loop thread: calls that depend on each other (the same container or plugin, or anything for calls not described more narrowly) in the order they came, others side by side. While a hook waits on its worker (or spends its scripted cost) the call's task suspends and the loop keeps serving the calls that never wait (`host.ping`, `host.auth`, `events.subscribe`, `events.unsubscribe`, `rpc.discover`, `clock.now`, `tasks.add`, `tasks.cancel`). One thread runs all of it. See docs/plugins.md.", [
                "enabled": .boolean("Always true: every call that may wait goes through the lane (kept for clients that read it)."),
                "queued": .integer("Work waiting in the lane now (lines, teardowns, timers, idle passes).").minimum(0),
                "running": .boolean("Whether an item runs now (it may be waiting on a worker)."),
                "waiting": .integer("Items started and not finished now (running, or waiting on a worker or a cost).").minimum(0),
                "mostWaiting": .integer("The most items started and not finished at once since start (at most `host.info` `limits.maxWaitingCalls`).").minimum(0),
                "deferredLines": .integer("Lines that went through the lane since start.").minimum(0),
                "parks": .integer("Times an item waited since start: its hook's reply was not there yet (or its scripted cost was being spent), so its task suspended while the loop served the others.").minimum(0),
                "overlapped": .integer("Items that started while another was waiting, since start: a call that depends on nothing running (a call on another plugin's container) passes a slow hook.").minimum(0),
                "jobs": .integer("Jobs the loop ran for the lane's tasks since start (a task runs one job, and one more after each wait).").minimum(0),
                "refused": .integer("Lines refused since start because `limits.maxWaitingCalls` calls were waiting already (-32005, `data.limit: \"waitingCalls\"`).").minimum(0),
            ], required: ["enabled", "queued", "running", "deferredLines", "parks", "overlapped"]),
            "hookBatching": .object("Hook batching (`serve --hook-batching`, on by default): a call whose hooks run in a plugin's worker (a showRendered hit of such a class) is planned with every hook assumed to succeed, and the plan's hooks go to the worker in one message. When one failed, the plan is undone and the call runs again with the outcomes it learned, so replies and events are the same as one hook at a time. See docs/plugins.md.", [
                "enabled": .boolean("Whether calls are planned (`--hook-batching on`)."),
                "plans": .integer("Calls whose plan ran.").minimum(0),
                "spoiled": .integer("Calls that did something a plan cannot hold back (a timer, a container's end, a page session following its container) and ran one hook at a time instead.").minimum(0),
                "replays": .integer("Plans that met a failing hook or a worker that ended: the call ran again, knowing those outcomes.").minimum(0),
                "batches": .integer("Messages of hooks sent to plugin workers.").minimum(0),
                "hooks": .integer("Hooks sent in them.").minimum(0),
            ], required: ["enabled", "plans", "spoiled", "replays", "batches", "hooks"]),
        ], required: ["connections", "requests", "notifications", "batches", "errors", "eventsSent", "memoryWarnings", "tasks", "timers", "rssBytes", "containers", "stacks", "pools", "unbalancedTransitions", "sessions", "resets", "scriptedMemory", "lane", "hookBatching"])
        case .subscription: .object("A connection's subscriptions after the call.", [
            "topics": .array(.ref(.topic), "Every topic the connection is subscribed to now (in the order of `host.info` topics).").uniqueItems(),
            "scope": .ref(.scope),
        ], required: ["topics", "scope"])
        case .taskInfo: .object(nil, [
            "key": .string("The task's key (a duplicate key is ignored when queued)."),
            "mode": .string("`default` tasks pause while a page or range session is tracking; `common` tasks always run.").oneOfValues(["default", "common"]),
            "avgCostMs": .any("Running-average cost of this kind of task (3/4 old + 1/4 new), null before it first ran.").with("type", ["number", "null"]).minimum(0),
            "client": .object("A task a client queued (`tasks.add`, listed as `task:KEY`): whose it is and which part is next.", [
                "connection": .ref(.connectionId),
                "part": .integer().minimum(1),
                "parts": .integer().minimum(1),
            ], required: ["connection", "part", "parts"]),
        ], required: ["key", "mode", "avgCostMs"])
        case .taskEvent: .object("A client's idle task (`tasks.add`, docs/tasks.md): `ran` after each part, `cancelled` after `tasks.cancel`.", [
            "seq": .ref(.eventSeq),
            "t": .ref(.eventTime),
            "cause": .ref(.eventCause),
            "kind": .string().oneOfValues(["ran", "cancelled"]),
            "key": .string("The task's key."),
            "mode": .string("`ran`: the task's mode.").oneOfValues(["default", "common"]),
            "part": .integer("`ran`: which part ran, from 1.").minimum(1),
            "parts": .integer("How many parts the task has.").minimum(1),
            "done": .boolean("`ran`: true for its last part (the task is no longer queued)."),
            "partsRun": .integer("`cancelled`: parts that had run.").minimum(0),
        ], required: ["seq", "t", "cause", "kind", "key", "parts"])
        case .tasksStatus: .object(nil, [
            "pending": .integer("Queued tasks.").minimum(0),
            "runnable": .integer("Queued tasks that may run now (respecting the tracking pause).").minimum(0),
            "paused": .boolean("True while some session is tracking: `default`-mode tasks wait."),
            "automatic": .boolean("True when idle tasks run by themselves (real clock: before the loop waits for I/O); false with a virtual clock, where they run only on `tasks.drain`."),
            "sliceMs": .number("Time slice per loop pass, in ms.").minimum(0),
            "ran": .integer("Tasks run since start.").minimum(0),
            "passes": .integer("Idle passes run since start.").minimum(0),
            "tasks": .array(.ref(.taskInfo), "Queued tasks, in FIFO order, each with its mode: the `default` and `common` queues of the table article's dispatcher, interleaved as they were queued."),
        ], required: ["pending", "runnable", "paused", "automatic", "sliceMs", "ran", "passes", "tasks"])
        case .eventSeq: .integer("Per-connection event number, strictly increasing from 1.").minimum(1)
        case .eventTime: .number("Host clock when the event happened, in milliseconds.").minimum(0)
        case .eventCause: .oneOf([
            .any("The id of the request that caused it, when this connection sent it (a string, a number or null).").with("type", ["string", "number", "null"]),
            .object("Another connection's request, seen by a `scope: \"all\"` observer.", [
                "id": .any("The request's id.").with("type", ["string", "number", "null"]),
                "connection": .ref(.connectionId),
            ], required: ["id", "connection"]),
            .object("A notification (a request without an id).", [
                "notification": .string("Its method."),
                "connection": .ref(.connectionId),
            ], required: ["notification"]),
            .object("A timer on the host clock: an animation's end, a cool-down.", [
                "timer": .string("Which timer: `s-1 transition`, `p-2 animation`, `Card@375x667 cool-down`."),
                "scheduledBy": .any("The cause of the call or task that scheduled it (the same forms)."),
            ], required: ["timer"]),
            .object("An idle task (a pool warm-up), by key.", ["idle": .string()], required: ["idle"]),
            .object("A connection opening.", ["open": .ref(.connectionId)], required: ["open"]),
            .object("A connection closing: its objects torn down.", ["close": .ref(.connectionId)], required: ["close"]),
            .object("A signal (the host shutting down on SIGINT or SIGTERM; `exit` when it ends otherwise).", ["signal": .string()], required: ["signal"]),
            .object("A plugin's worker ending or restarting.", ["plugin": .string()], required: ["plugin"]),
        ], "What made the event happen (docs/protocol.md \"Causes\"): the request that caused it, else a timer, an idle task, a connection opening or closing, a signal or a plugin's worker.")
        case .eventBase: .object("What every event carries.", [
            "seq": .ref(.eventSeq),
            "t": .ref(.eventTime),
            "cause": .ref(.eventCause),
        ], required: ["seq", "t", "cause"], additionalProperties: true)
        case .lifecycleHook: .string("A container hook, in UIKit's names. `viewSafeAreaInsetsDidChange` and `viewLayoutMarginsDidChange` run only for classes that ask for them (a scripted class by listing them in `hooks`).").oneOfValues(Hook.allCases.map { .string($0.rawValue) })
        case .lifecycleEvent: .object("One container hook that ran (docs/lifecycle.md), or a refused appearance call. Appearance hooks carry `animated`, layout hooks `size`, containment hooks `parent`; a failed hook `failed: true`.", [
            "seq": .ref(.eventSeq),
            "t": .ref(.eventTime),
            "cause": .ref(.eventCause),
            "container": .ref(.containerId),
            "class": .ref(.className),
            "event": .string("The hook that ran, or `unbalancedAppearanceTransition` for an appearance call the state machine refused (no hook ran; counted in `host.stats` `unbalancedTransitions`).").oneOfValues(Hook.allCases.map { .string($0.rawValue) } + ["unbalancedAppearanceTransition"]),
            "offscreen": .boolean("True for containers in a green room (warming, idle, leaving it, purged), so that exposure analytics can ignore them."),
            "animated": .boolean("Appearance hooks only: part of an animated transition."),
            "size": .allOf([
                .ref(.size),
            ], "Layout hooks only: the size laid out at."),
            "parent": .any("Containment hooks only: the new parent (a stack, green room, page session or, for a cell, range session id), null when leaving its parent.").with("type", ["string", "null"]),
            "failed": .any("The hook failed: the container is torn down (its `deinit` follows).").const(true),
            "page": .object("Set when the container belongs to a page session: a page child (`session` and `index`; -1 while parked in the session's reuse queue), or the session's own container in a stack (`session` only). A page's container is never in a green room: `offscreen` is false. (A prerendered child's hooks while it leaves the green room come before it joins the session, without `page`.)", [
                "session": .ref(.pageSessionId),
                "index": .integer().minimum(-1),
            ], required: ["session"]),
            "call": .string("`unbalancedAppearanceTransition` only: the refused call.").oneOfValues(["beginAppearance(true)", "beginAppearance(false)", "endAppearance"]),
            "state": .allOf([
                .ref(.appearance),
            ], "`unbalancedAppearanceTransition` only: the state that refused it."),
        ], required: ["seq", "t", "cause", "container", "class", "event", "offscreen"]).with("allOf", .array([(Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "event", value: Schema.any().oneOfValues(["viewWillAppear", "viewIsAppearing", "viewDidAppear", "viewWillDisappear", "viewDidDisappear"]).json)])))).then(.any().with("required", ["animated"])).`else`(.any().not(.any().with("required", ["animated"])))).json, (Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "event", value: Schema.any().oneOfValues(["viewWillLayoutSubviews", "viewDidLayoutSubviews", "viewWillTransitionToSize"]).json)])))).then(.any().with("required", ["size"])).`else`(.any().not(.any().with("required", ["size"])))).json, (Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "event", value: Schema.any().oneOfValues(["willMoveToParent", "didMoveToParent"]).json)])))).then(.any().with("required", ["parent"])).`else`(.any().not(.any().with("required", ["parent"])))).json, (Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "event", value: Schema.any().oneOfValues(["unbalancedAppearanceTransition"]).json)])))).then(.any().with("required", ["call"])).`else`(.any().not(.any().with("required", ["call"])))).json, (Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "event", value: Schema.any().oneOfValues(["unbalancedAppearanceTransition"]).json)])))).then(.any().with("required", ["state"])).`else`(.any().not(.any().with("required", ["state"])))).json, (Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "event", value: Schema.any().const("unbalancedAppearanceTransition").json)])))).then(.any().not(.any().with("required", ["failed"])))).json, (Schema.any().`if`(.any().with("required", ["page"])).then(.any().with("properties", JSONValue.object(JSONObject([(key: "offscreen", value: Schema.any().const(false).json)]))))).json]))
        case .poolEvent: .object("A prerender-pool event (docs/pools.md): `miss` / `hit` (showRendered: `container` is the one returned; a page child of a `prerender: true` session: `session` and `index` name the page, `container` the pooled one a hit hands over, and a miss has no `container`: the page's own container is created after it, its `init` on `lifecycle`), `warmed` (a warm-up finished: `container` now idle, `idle` the pool's idle count), `warmFailed` (a hook failed while warming: `error` is the -32004 error object; `container` is absent when `init` itself failed), `purged` (one per pool, after `pool.purge` or a memory warning: `reason`), `evicted` (an idle container released: `reason: \"budget\"` past the host's budget of pooled bytes, `reason: \"depth\"` when `pool.configure` shrinks the pool below its idle count). The containers' own hooks arrive on `lifecycle`, with `offscreen: true` while in the green room.", [
            "seq": .ref(.eventSeq),
            "t": .ref(.eventTime),
            "cause": .ref(.eventCause),
            "kind": .string().oneOfValues(["hit", "miss", "warmed", "warmFailed", "purged", "evicted"]),
            "class": .ref(.className),
            "width": .ref(.dimension),
            "height": .ref(.dimension),
            "container": .ref(.containerId),
            "idle": .integer("`warmed` only: idle containers in the pool now.").minimum(0),
            "kept": .integer("`purged` by a `warning`-level memory warning only: the idle containers kept (at most one; a `critical` one keeps none and says nothing).").minimum(0).maximum(1),
            "reason": .string("`purged`: `purge` (pool.purge) or `memoryWarning`; `evicted`: `budget` or `depth`.").oneOfValues(["purge", "memoryWarning", "budget", "depth"]),
            "error": .allOf([
                .ref(.errorObject),
            ], "`warmFailed` only: what failed."),
            "session": .allOf([
                .ref(.pageSessionId),
            ], "`hit` / `miss` for a page child only: its session."),
            "index": .allOf([
                .ref(.pageIndex),
            ], "`hit` / `miss` for a page child only: its page."),
        ], required: ["seq", "t", "cause", "kind", "class", "width", "height"]).with("allOf", .array([(Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "kind", value: Schema.any().oneOfValues(["hit", "miss"]).json)])))).then(.any().not(.anyOf([
                .any().with("required", ["idle"]),
                .any().with("required", ["reason"]),
                .any().with("required", ["error"]),
            ])))).json, (Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "kind", value: Schema.any().const("hit").json)])))).then(.any().with("required", ["container"]))).json, (Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "kind", value: Schema.any().const("miss").json)]))).with("required", ["session"])).then(.any().not(.any().with("required", ["container"]))).`else`(.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "kind", value: Schema.any().const("miss").json)])))).then(.any().with("required", ["container"])))).json, (Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "kind", value: Schema.any().oneOfValues(["warmed"]).json)])))).then(.any().with("required", ["container", "idle"]).not(.anyOf([
                .any().with("required", ["reason"]),
                .any().with("required", ["error"]),
            ])))).json, (Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "kind", value: Schema.any().oneOfValues(["warmFailed"]).json)])))).then(.any().with("required", ["error"]).not(.anyOf([
                .any().with("required", ["idle"]),
                .any().with("required", ["reason"]),
            ])))).json, (Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "kind", value: Schema.any().oneOfValues(["purged"]).json)])))).then(.any().with("required", ["reason"]).not(.anyOf([
                .any().with("required", ["container"]),
                .any().with("required", ["idle"]),
                .any().with("required", ["error"]),
            ])).with("properties", JSONValue.object(JSONObject([(key: "reason", value: Schema.any().oneOfValues(["purge", "memoryWarning"]).json)]))))).json, (Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "kind", value: Schema.any().oneOfValues(["evicted"]).json)])))).then(.any().with("required", ["container", "reason"]).not(.anyOf([
                .any().with("required", ["idle"]),
                .any().with("required", ["error"]),
            ])).with("properties", JSONValue.object(JSONObject([(key: "reason", value: Schema.any().oneOfValues(["budget", "depth"]).json)]))))).json, (Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "kind", value: Schema.any().oneOfValues(["warmed", "warmFailed", "purged", "evicted"]).json)])))).then(.any().not(.anyOf([
                .any().with("required", ["session"]),
                .any().with("required", ["index"]),
            ])))).json, (Schema.any().with("dependencies", ["session": ["index"], "index": ["session"]])).json]))
        case .pageEvent: .object("A page session's transition (docs/pages.md), to the session's owner and to `scope: \"all\"` observers. `willTransition {from, to}` when a page starts coming in: a `page.show` (from the current page), or a drag whose guess moves to a new page (from the previous guess, or the current page). `didTransition {from, to, completed}` when the session comes to rest after a transition began: `from` the page before it, `to` the page the transition headed for, `completed` whether the session ended on `to` (false when the interaction was cancelled). Emitted before the reply to the call that caused it (or at the animation's end).", [
            "seq": .ref(.eventSeq),
            "t": .ref(.eventTime),
            "cause": .ref(.eventCause),
            "session": .ref(.pageSessionId),
            "kind": .string().oneOfValues(["willTransition", "didTransition"]),
            "from": .allOf([
                .ref(.pageIndex),
            ], "The page index the transition starts from."),
            "to": .allOf([
                .ref(.pageIndex),
            ], "The page index the transition goes to."),
            "completed": .boolean("`didTransition` only: whether the session ended on `to` (false when the interaction was cancelled)."),
        ], required: ["seq", "t", "cause", "session", "kind", "from", "to"]).with("allOf", .array([(Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "kind", value: Schema.any().const("didTransition").json)]))).with("required", ["kind"])).then(.any().with("required", ["completed"])).`else`(.any().not(.any().with("required", ["completed"])))).json]))
        case .rangeChanges: .object("Index paths per range type, nearest the viewport first; each path at most once in a list.", [
            "preload": .array(.ref(.indexPath), "Paths entering (in `enter`) or leaving (in `exit`) the preload range.").uniqueItems(),
            "display": .array(.ref(.indexPath), "Paths entering (in `enter`) or leaving (in `exit`) the display range.").uniqueItems(),
            "visible": .array(.ref(.indexPath), "Paths entering (in `enter`) or leaving (in `exit`) the visible range.").uniqueItems(),
        ], required: ["preload", "display", "visible"])
        case .rangeEvent: .object("The changes of one range update (docs/ranges.md): only the paths that entered or left each range, nearest the viewport first, after the update (`removed`: before the deletion). Sent after each update that changes something, before the reply to the call that caused it.", [
            "seq": .ref(.eventSeq),
            "t": .ref(.eventTime),
            "cause": .ref(.eventCause),
            "session": .ref(.rangeSessionId),
            "mode": .ref(.rangeMode),
            "direction": .ref(.rangeDirection),
            "enter": .ref(.rangeEnter),
            "exit": .ref(.rangeExit),
            "removed": .array(.ref(.indexPath), "`range.deleteItems`, `range.performBatchUpdates` and `range.applySnapshot`: the deleted items that were in a range (their paths before the deletion; highest first for `range.deleteItems`, ascending for a batch). Present only when there are some.").uniqueItems().minItems(1),
            "headers": .object("A session with section headers, when they changed: the sections whose headers show now, and the sticky ones pinned at the top.", [
                "visible": .array(.integer().minimum(0)),
                "pinned": .array(.integer().minimum(0)),
            ], required: ["visible", "pinned"]),
            "parent": .oneOf([
                .object("A row of another range session (`range.create {parent}`), where the row is now.", ["session": .ref(.rangeSessionId), "item": .ref(.indexPath)], required: ["session", "item"]),
                .object("A page of a page session (`range.create {page}`).", ["page": .object(nil, ["session": .ref(.pageSessionId), "index": .ref(.pageIndex)], required: ["session", "index"])], required: ["page"]),
            ], "A nested session only: what it hangs from (docs/ranges.md, \"Nested sessions\"), so that observers can draw it under its parent."),
            "moved": .array(.object(nil, ["from": .ref(.indexPath), "to": .ref(.indexPath)], required: ["from", "to"]), "A batch's moved items that were in a range: their paths before and after it. They keep their states: they enter or exit only the ranges they really entered or left.").minItems(1),
            "keys": .object("A keyed session only: the keys beside the paths of `enter`, `exit` and `removed`, in the same order.", [
                "enter": .ref(.rangeKeyLists),
                "exit": .ref(.rangeKeyLists),
                "removed": .array(.string()),
            ], required: ["enter", "exit"]),
            "cells": .object("A session with `cells`, when cells changed: which container now shows which item, and which let go of one.", [
                "bound": .array(.object(nil, [
                    "path": .ref(.indexPath),
                    "container": .ref(.containerId),
                    "source": .string("Where the cell came from: its class's reuse `queue`, a template of the prerender `pool`, or `new`.").oneOfValues(["queue", "pool", "new"]),
                    "reused": .boolean("True unless `new`."),
                    "configured": .boolean("Whether `configure` ran (false: no data, or it already showed this item at this version)."),
                ], required: ["path", "container", "source", "reused", "configured"])),
                "unbound": .array(.object(nil, [
                    "path": .ref(.indexPath),
                    "container": .ref(.containerId),
                    "queued": .boolean("Parked in its reuse queue (false: released, past the limit or failed)."),
                ], required: ["path", "container", "queued"])),
            ], required: ["bound", "unbound"]),
        ], required: ["seq", "t", "cause", "session", "mode", "direction", "enter", "exit"])
        case .prefetchEvent: .object("Mirrors UITableViewDataSourcePrefetching (docs/ranges.md), after the `range` event of the same update: `prefetchItems` for the paths that entered preload and are not visible (nearest the viewport first), `cancelPrefetching` for those that left preload without having become visible since they entered it. Sent only when there are paths.", [
            "seq": .ref(.eventSeq),
            "t": .ref(.eventTime),
            "cause": .ref(.eventCause),
            "session": .ref(.rangeSessionId),
            "kind": .string().oneOfValues(["prefetchItems", "cancelPrefetching"]),
            "paths": .array(.ref(.indexPath), "The items concerned.").uniqueItems().minItems(1),
            "keys": .array(.string(), "A keyed session only: the items' keys, beside `paths`."),
        ], required: ["seq", "t", "cause", "session", "kind", "paths"])
        case .batchEvent: .object("A batch fetch should begin: load more content and answer with `range.batchFetchDone {session, context, lengths?}` (no `lengths` when there is nothing more: no batch is asked for again until the content changes or the list scrolls). No other batch begins for the session until then.", [
            "seq": .ref(.eventSeq),
            "t": .ref(.eventTime),
            "cause": .ref(.eventCause),
            "session": .ref(.rangeSessionId),
            "context": .ref(.batchContextId),
            "kind": .string().oneOfValues(["willBeginBatchFetch"]),
            "prepend": .boolean("Whether the batch's items go before the first item (a session with `batch.prepend` moving toward the head) rather than after the last one."),
        ], required: ["seq", "t", "cause", "session", "context", "kind", "prepend"])
        case .connectionOpenedEvent: .object("A connection was accepted (sent to `scope: \"all\"` observers).", [
            "seq": .ref(.eventSeq),
            "t": .ref(.eventTime),
            "cause": .ref(.eventCause),
            "kind": .any().const("connectionOpened"),
            "connection": .ref(.connectionId),
            "transport": .string().oneOfValues(["unix", "tcp", "ws", "memory"]),
        ], required: ["seq", "t", "cause", "kind", "connection", "transport"])
        case .connectionClosedEvent: .object("A connection closed and its objects were torn down (sent to `scope: \"all\"` observers).", [
            "seq": .ref(.eventSeq),
            "t": .ref(.eventTime),
            "cause": .ref(.eventCause),
            "kind": .any().const("connectionClosed"),
            "connection": .ref(.connectionId),
            "reason": .string("Why: `eof`, `closed`, `shutdown`, `outbound limit exceeded`, `write failed`, `refused`, or the transport's error text."),
        ], required: ["seq", "t", "cause", "kind", "connection", "reason"])
        case .memoryWarningEvent: .object("`host.memoryWarning` was handled (sent to every `host` subscriber).", [
            "seq": .ref(.eventSeq),
            "t": .ref(.eventTime),
            "cause": .ref(.eventCause),
            "kind": .any().const("memoryWarning"),
            "level": .string().oneOfValues(["warning", "critical"]),
        ], required: ["seq", "t", "cause", "kind", "level"])
        case .hostEvent: .oneOf([
            .ref(.connectionOpenedEvent),
            .ref(.connectionClosedEvent),
            .ref(.memoryWarningEvent),
            .ref(.resetEvent),
            .ref(.pluginCrashedEvent),
            .ref(.pluginRestartedEvent),
            .ref(.pluginFailedEvent),
        ], "A host-wide event, told apart by `kind`.")
        case .className: .string("A container class: built in (`Container`, whose hooks do nothing; `PageViewController`, the class of a page session's own container in a stack), from a plugin, or scripted (`classes.define`). Names are global to the host and never replaced while it runs.").minLength(1)
        case .greenRoomId: .string("Id of a green-room stack (one per pool: class and size), where idle prerendered containers wait. Host-owned: it appears in `parent` members, never as a method param.").pattern("^g-")
        case .dimension: .number("A width or height in points: > 0 and <= 100000.").exclusiveMinimum(0).maximum(100000)
        case .size: .object(nil, [
            "width": .ref(.dimension),
            "height": .ref(.dimension),
        ], required: ["width", "height"])
        case .appearance: .string("The appearance state machine's state (docs/lifecycle.md).").oneOfValues(["disappeared", "appearing", "appeared", "disappearing"])
        case .containerState: .string("`fresh` while the view is not loaded, else the appearance state.").oneOfValues(["fresh", "disappeared", "appearing", "appeared", "disappearing"])
        case .poolPolicy: .string("`lazy` (the prerendering article's; docs/pools.md): nothing is warmed before the first take; a miss returns a fresh container and schedules one warm-up for next time, a hit schedules one replacement (\"use the cached one this time, reserve the next\"); never past `depth`, and during a memory warning's cool-down only a miss warms. `eager`: keeps `depth` containers warm, refilling after every take (except during the cool-down after a memory warning).").oneOfValues(["lazy", "eager"])
        case .scriptedHook: .object("What a scripted hook does: burn `costMs` of real CPU on the loop thread, then return `output` (the reply's `output` for `configure`), or fail (-32004; the container is torn down).", [
            "costMs": .number("CPU time to burn, ms.").minimum(0).maximum(10000),
            "output": .any("Any JSON value the hook returns."),
            "fail": .boolean("True: the hook fails after burning its cost."),
        ])
        case .classInfo: .object(nil, [
            "name": .ref(.className),
            "plugin": .any("The plugin that registered it; null when built in or scripted.").with("type", ["string", "null"]),
            "scripted": .boolean("Defined at run time with `classes.define`."),
            "pluginState": .string("A plugin class's plugin state (as in `host.info`'s plugins): `failed` classes are refused with -32004 until `plugins.restart`. Absent for built-in and scripted classes.").oneOfValues(["running", "restarting", "failed"]),
        ], required: ["name", "plugin", "scripted"])
        case .classDefinition: .object("A scripted class as `classes.define` registered it.", [
            "name": .ref(.className),
            "plugin": .null(),
            "scripted": .any().const(true),
            "hooks": .array(.ref(.lifecycleHook), "The hooks it scripts, in lifecycle order.").uniqueItems(),
            "memoryBytes": .integer("Bytes each instance holds (real, touched memory).").minimum(0).maximum(1073741824),
        ], required: ["name", "plugin", "scripted", "hooks", "memoryBytes"])
        case .containerParent: .oneOf([
            .null(),
            .object(nil, [
                "kind": .any().const("stack"),
                "id": .ref(.stackId),
            ], required: ["kind", "id"]),
            .object(nil, [
                "kind": .any().const("greenRoom"),
                "id": .ref(.greenRoomId),
            ], required: ["kind", "id"]),
            .object(nil, [
                "kind": .any().const("page"),
                "id": .ref(.pageSessionId),
                "index": .integer("-1 while parked in the reuse queue.").minimum(-1),
            ], required: ["kind", "id", "index"]),
            .object(nil, [
                "kind": .any().const("cell"),
                "id": .ref(.rangeSessionId),
            ], required: ["kind", "id"]),
            .object(nil, [
                "kind": .any().const("presentation"),
                "id": .oneOf([.ref(.stackId), TabSchemas.id, .ref(.containerId)], "What presents it: a stack, a tab bar or a presented container."),
            ], required: ["kind", "id"]),
            .object(nil, [
                "kind": .any().const("tabs"),
                "id": TabSchemas.id,
            ], required: ["kind", "id"]),
        ], "Where a container sits: nothing (null), a stack, a green room (idle in a pool), a page session at an index, a range session as a cell (bound to an item or parked), a presentation (`presentation.present`), or a tab bar (`tabs.create`).")
        case .containerInfo: .object("A container's state.", [
            "container": .ref(.containerId),
            "class": .ref(.className),
            "state": .ref(.containerState),
            "appearance": .ref(.appearance),
            "viewLoaded": .boolean("`loadView` and `viewDidLoad` have run."),
            "size": .oneOf([
                .null(),
                .ref(.size),
            ], "The size of the last layout; null before the first."),
            "parent": .ref(.containerParent),
            "offscreen": .boolean("True while it sits in a green room."),
            "memoryBytes": .integer("Bytes its instance holds.").minimum(0),
        ], required: ["container", "class", "state", "appearance", "viewLoaded", "size", "parent", "offscreen", "memoryBytes"])
        case .stackInfo: .object("A stack (a window with a navigation stack).", [
            "stack": .ref(.stackId),
            "width": .ref(.dimension),
            "height": .ref(.dimension),
            "hidden": .boolean("A hidden window loads and shows nothing."),
            "containers": .array(.ref(.containerId), "Bottom first; the last is the top.").uniqueItems(),
            "top": .oneOf([
                .null(),
                .ref(.containerId),
            ]),
            "animating": .boolean("An animated transition is running (its end calls are still to come)."),
            "note": .allOf([
                .ref(.virtualClockNote),
            ], "Only in replies that can leave an animation running (see `VirtualClockNote`)."),
            "transitionMs": .number("Only in a `stack.push` reply with `reply: \"afterAppear\"`: host-clock ms from the request to the pushed container's `viewDidAppear`.").minimum(0),
            "interactivePop": .oneOf([
                .null(),
                .ref(.interactivePop),
            ], "The interactive pop in progress on this stack, null when none: every other call on the stack but `stack.info` is -32003 until it finishes or is cancelled."),
        ], required: ["stack", "width", "height", "hidden", "containers", "top", "animating", "interactivePop"])
        case .poolStatus: .object("One prerender pool (class and size).", [
            "class": .ref(.className),
            "width": .ref(.dimension),
            "height": .ref(.dimension),
            "depth": .integer("Idle containers it aims to hold.").minimum(0).maximum(100000),
            "policy": .ref(.poolPolicy),
            "idle": .integer("Warm containers waiting in its green room.").minimum(0),
            "warming": .integer("Warm-ups queued or running.").minimum(0),
            "hits": .integer().minimum(0),
            "misses": .integer().minimum(0),
            "warmed": .integer("Warm-ups completed since it was created.").minimum(0),
            "purged": .integer("Idle containers released by purges and memory warnings.").minimum(0),
            "evicted": .integer("Idle containers released past the host's budget of pooled bytes.").minimum(0),
            "idleBytes": .integer("Bytes its idle containers hold.").minimum(0),
            "coolingDown": .boolean("After a memory warning: no refill before the cool-down ends (5 s of host clock) except on demand."),
            "note": .allOf([
                .ref(.virtualClockNote),
            ], "Only in replies to `pool.configure` (see `VirtualClockNote`)."),
        ], required: ["class", "width", "height", "depth", "policy", "idle", "warming", "hits", "misses", "warmed", "purged", "evicted", "idleBytes", "coolingDown"])
        case .pageIndex: .integer("A page of a session, 0-based (less than the session's `count`).").minimum(0).maximum(999999)
        case .pageOffset: .number("A scroll offset along the session's axis, in points: page `i` starts at `i * width`. The stream accepts `-width` through `count * width` (one page of bounce either side); outside that is -32602 with `data.path: \"offset\"`.")
        case .pagePhase: .string("Where a page session is in its motion: `idle` (at rest), `dragging` (between `willBeginDragging` and `didEndDragging`), `decelerating` (after `didEndDragging {willDecelerate: true}`, until `didEndDecelerating`), `animating` (a `page.show` animation is running). Any phase but `idle` is tracking: `default` idle tasks pause (docs/tasks.md).").oneOfValues(["idle", "dragging", "decelerating", "animating"])
        case .pageSpec: .object("One page of a `pages` list: its class and, optionally, its business data (given to the child's `init`; bound with `configure` when a pooled or reused container takes the page).", [
            "class": .ref(.className),
            "data": .any("Any JSON value."),
        ], required: ["class"])
        case .pageCacheParam: .object("The child cache: `{limit: N}` keeps at most N attached children, least recently used evicted (default `{limit: 3}`; `{}` is the default); `{mode: \"reuse\"}` keeps only current ± 1 alive and parks pages that leave that window in a per-class reuse queue (as MJianshu does; docs/pages.md), first in first out: an entering page takes the container of its class parked longest and re-configures it with its data. Not both (-32602 `data.path: \"cache\"`); a bad limit is `data.path: \"cache.limit\"`, a bad mode `cache.mode`, an unknown member `cache.<name>`.", [
            "limit": .integer("Attached children kept (>= 1).").minimum(1),
            "mode": .any().const("reuse"),
        ]).not(.any().with("required", ["limit", "mode"]))
        case .pageCache: .oneOf([
            .object(nil, [
                "limit": .integer().minimum(1),
            ], required: ["limit"]),
            .object(nil, [
                "mode": .any().const("reuse"),
            ], required: ["mode"]),
        ], "A session's cache policy as `page.info` reports it.")
        case .pageChild: .object("An attached child: the container showing page `index` and its appearance state.", [
            "index": .ref(.pageIndex),
            "container": .ref(.containerId),
            "state": .ref(.appearance),
        ], required: ["index", "container", "state"])
        case .pageInfo: .object("A page session's state (`page.create`, `page.show`, `page.info`).", [
            "session": .ref(.pageSessionId),
            "index": .allOf([
                .ref(.pageIndex),
            ], "The current page. During a `page.show` animation it is still the old page; it changes when the animation ends (or an interaction comes to rest)."),
            "count": .integer("Pages in the session.").minimum(1).maximum(1000000),
            "width": .allOf([
                .ref(.dimension),
            ], "Page width `w`: the page of an offset is offset / w."),
            "height": .ref(.dimension),
            "phase": .ref(.pagePhase),
            "offset": .number("The last offset (`index * width` at rest after a `page.show`)."),
            "guess": .oneOf([
                .null(),
                .ref(.pageIndex),
            ], "The page the running interaction is heading to; null when none is."),
            "visible": .boolean("Whether the session itself is on screen (always after a `page.create` without `stack`; with one, while its container is the top of a shown stack). Its appearance is forwarded to the current page only."),
            "cache": .ref(.pageCache),
            "container": .oneOf([
                .null(),
                .ref(.containerId),
            ], "The session's own container (class `PageViewController`) when it was created in a stack; null otherwise."),
            "children": .array(.ref(.pageChild), "Attached children, by page index (ascending)."),
            "deferred": .array(.ref(.pageIndex), "Children evicted from the cache while interaction-related: released when the session comes to rest (except the final page).").uniqueItems(),
            "reuseQueue": .object("Reuse mode: parked containers per class name (their lifecycle events carry `page.index: -1`). Empty otherwise.", [:], additionalProperties: nil).additionalProperties(.integer().minimum(0)),
            "note": .allOf([
                .ref(.virtualClockNote),
            ], "Only in replies to `page.create` and `page.show` (see `VirtualClockNote`)."),
            "transitionStyle": .string("`pageCurl` sessions only (`page.create`): a scroll session's info has neither this nor `interactiveCurl`.").oneOfValues(["pageCurl"]),
            "interactiveCurl": .oneOf([.null(), .object(nil, [
                "to": .ref(.pageIndex),
                "progress": .number().minimum(0).maximum(1),
            ], required: ["to", "progress"])], "The curl gesture in progress (pageCurl), null when none."),
        ], required: ["session", "index", "count", "width", "height", "phase", "offset", "guess", "visible", "cache", "container", "children", "deferred", "reuseQueue"])
        case .pageStreamState: .object("The light reply of the scroll stream (called at frame rate).", [
            "session": .ref(.pageSessionId),
            "index": .allOf([
                .ref(.pageIndex),
            ], "The current page (changes when the session comes to rest)."),
            "phase": .ref(.pagePhase),
            "guess": .oneOf([
                .null(),
                .ref(.pageIndex),
            ], "The page the interaction is heading to; null before the first page crossing and at rest."),
        ], required: ["session", "index", "phase", "guess"])
        case .rangeMode: .string("Texture's layout range modes (docs/ranges.md), each with its buffers (`RangeTuning`). A session is `minimum` at its first update, `full` from its first `range.willBeginDragging` (visible or not) and after that at every update while it is visible (an invisible session keeps its mode); `host.memoryWarning` puts visible sessions in `visibleOnly` and the others in `lowMemory` for one update.").oneOfValues(["full", "minimum", "visibleOnly", "lowMemory"])
        case .rangeDirection: .string("The scroll direction: `up` / `down` on the vertical axis, `left` / `right` on the horizontal one (toward the head / the tail of the content). It comes from the offset deltas: initially `down` / `right`, kept while the offset does not move.").oneOfValues(["up", "down", "left", "right"])
        case .rangePhase: .string("Where a range session is in its motion: `idle` (at rest), `dragging` (after `range.willBeginDragging`, until `range.willEndDragging` or `range.didEndDecelerating`), `decelerating` (after `range.willEndDragging`, until `range.didEndDecelerating`). Any phase but `idle` is tracking: `default` idle tasks pause (docs/tasks.md).").oneOfValues(["idle", "dragging", "decelerating"])
        case .rangeLength: .number("An item's length along the session's axis, in points: a finite number >= 0.").minimum(0)
        case .rangeLengths: .array(.ref(.rangeLength), "Item lengths along the axis, one per item (a bad entry is -32602 `data.path: \"lengths[i]\"`).").maxItems(10000000)
        case .rangeItemCount: .integer("A number of items: 0 to 10000000 (a session holds at most 10000000 items in all).").minimum(0).maximum(10000000)
        case .rangeSection: .object("One section: `count` items of `itemLength` (default 44), or the `lengths` list (then `count`, when given, must equal its length: -32602 `sections[i].count`). `reuseIdentifier` names the section's cell class (as MDTable preloads cell templates): with `range.create {templates: true}`, a class of that name gets a warm template. An unknown member is -32602 `sections[i].<name>`.", [
            "count": .ref(.rangeItemCount),
            "itemLength": .allOf([
                .ref(.rangeLength),
            ], "The length of each of the `count` items (default 44)."),
            "lengths": .ref(.rangeLengths),
            "reuseIdentifier": .string("The section's cell class name (MDTable's templates)."),
            "header": .object("The section has a header (docs/ranges.md, \"Section headers\"): a plain one shows while the section's first item is visible; a sticky one while any of its items is, pinned at the top once the first has scrolled past.", [
                "sticky": .boolean("Pinned while its section is on screen (default false).").default(false),
            ]),
            "keys": .allOf([.ref(.rangeKeys)], "The items' keys, one per item (a keyed session: every section with items gives them)."),
            "key": .string("The section's own key, unique among sections.").minLength(1).maxLength(256),
        ])
        case .rangeKeys: .array(.string().minLength(1).maxLength(256), "Client keys, one per item: stable identities unique within the session (UICollectionView's diffable identifiers, RecyclerView's stable ids, React Native's `keyExtractor`). Events and `range.state` give them beside index paths. A duplicate is -32602 naming both places.").maxItems(10000000)
        case .rangeKeyLists: .object("A keyed session only: the keys of the paths beside them, in the same order.", [
            "preload": .array(.string()),
            "display": .array(.string()),
            "visible": .array(.string()),
        ], required: ["preload", "display", "visible"])
        case .rangeSnapshotSection: .object("One section of a snapshot: its items' keys in their new order, and optionally their lengths (one per key; required for keys the session does not have, and a different length resizes a kept item).", [
            "keys": .ref(.rangeKeys),
            "lengths": .ref(.rangeLengths),
        ], required: ["keys"])
        case .rangeBatchUpdate: .oneOf([
            .object("Deletes items (paths before the batch).", ["op": .string().const("deleteItems"), "paths": .array(.ref(.indexPath)).minItems(1)], required: ["op", "paths"]),
            .object("Inserts items before `at` (a path after the batch); `keys` in a keyed session.", ["op": .string().const("insertItems"), "at": .ref(.indexPath), "lengths": .allOf([.ref(.rangeLengths)]).minItems(1), "keys": .ref(.rangeKeys), "data": .array(.any("Any JSON value."), "A session with `cells`: data per new item.")], required: ["op", "at", "lengths"]),
            .object("Moves an item: `from` before the batch, `to` after it. The item keeps its states, key, data and cell.", ["op": .string().const("moveItem"), "from": .ref(.indexPath), "to": .ref(.indexPath)], required: ["op", "from", "to"]),
            .object("Reloads items (paths before the batch): their states stay; a bound cell is configured again.", ["op": .string().const("reloadItems"), "paths": .array(.ref(.indexPath)).minItems(1)], required: ["op", "paths"]),
            .object("Resizes items (paths before the batch), one length per path.", ["op": .string().const("setLengths"), "paths": .array(.ref(.indexPath)).minItems(1), "lengths": .ref(.rangeLengths)], required: ["op", "paths", "lengths"]),
            .object("Inserts sections before `at` (an index after the batch), each with its items.", ["op": .string().const("insertSections"), "at": .integer().minimum(0), "sections": .array(.ref(.rangeSection)).minItems(1)], required: ["op", "at", "sections"]),
            .object("Deletes sections (indices before the batch) with their items.", ["op": .string().const("deleteSections"), "sections": .array(.integer().minimum(0)).minItems(1)], required: ["op", "sections"]),
            .object("Moves a section with its items: `from` before the batch, `to` after it.", ["op": .string().const("moveSection"), "from": .integer().minimum(0), "to": .integer().minimum(0)], required: ["op", "from", "to"]),
        ], "One update of `range.performBatchUpdates`, by its `op`.")
        case .rangeViewport: .object("The viewport's size in points. Its length along the axis (`height` when vertical, `width` when horizontal) is the screenful `L` of the range and batch arithmetic; the viewport covers `[offset, offset + L)`. Each member a number > 0 (-32602 `viewport.width` / `viewport.height`); no other member.", [
            "width": .number().exclusiveMinimum(0),
            "height": .number().exclusiveMinimum(0),
        ], required: ["width", "height"])
        case .rangeBuffer: .object("Screenfuls added to a range ahead of the motion (`leading`) and behind it (`trailing`); a member left out keeps Texture's default. Each a number >= 0 (-32602 `tuning.<mode>.<type>.leading` / `.trailing`).", [
            "leading": .number().minimum(0),
            "trailing": .number().minimum(0),
        ])
        case .rangeModeTuning: .object("The buffers of one mode, by range type (`visible` has none: -32602 `tuning.<mode>.visible`).", [
            "display": .ref(.rangeBuffer),
            "preload": .ref(.rangeBuffer),
        ])
        case .rangeTuning: .object("Overrides of the buffers per mode and range type; Texture's defaults (screenfuls, leading / trailing): `full` display 1.0 / 0.5, preload 2.5 / 1.5; `minimum` display 0.25 / 0.25, preload 0.5 / 0.25; `visibleOnly` 0; `lowMemory` preload 0, display empty whatever its tuning (not even the viewport; a `lowMemory.display` override is accepted; its one effect, as in Texture, is that when it equals `lowMemory.preload` the preload range is the (empty) display set, so only on-screen items are preloaded). Display and preload are independent sets: a display range beyond the preload range does not widen it. An unknown mode is -32602 `tuning.<mode>`.", [
            "full": .ref(.rangeModeTuning),
            "minimum": .ref(.rangeModeTuning),
            "visibleOnly": .ref(.rangeModeTuning),
            "lowMemory": .ref(.rangeModeTuning),
        ])
        case .rangeBatchParam: .object("Batch fetching (Texture's `ASDisplayShouldFetchBatchForContext`). `leadingScreens` (default 2.0): fetch when contentLength - L - offset <= leadingScreens * L (<= 0: never, not even for short content), unless the scroll is moving toward the head (outside a drag there is no direction); `prepend` (default false, Greenroom's, not Texture's): while moving toward the head, fetch when offset <= leadingScreens * L, the new items going before the first one (at rest only Texture's rule applies). An unknown member is -32602 `batch.<name>`.", [
            "leadingScreens": .number().default(2.0),
            "prepend": .boolean().default(false),
        ])
        case .rangeStrategy: .oneOf([
            .string().oneOfValues(["ranges", "threshold", "dynamicThreshold"]),
            .object(nil, [
                "name": .string().oneOfValues(["ranges", "threshold", "dynamicThreshold"]),
                "ratio": .number().exclusiveMinimum(0).maximum(1).default(0.7),
            ], required: ["name"]),
        ], "How the session decides to fetch the next batch: `ranges` (Texture's rule, the default), `threshold` (the ASDK preloading article's static threshold: (offset + L) / contentLength >= ratio, moving toward the tail), `dynamicThreshold` (the ASDK preloading article's per-page formula), or `{name, ratio}` for a ratio other than 0.7. Content shorter than the viewport fetches whatever the strategy. -32602: `strategy`, `strategy.name`, `strategy.ratio` (in (0, 1]).")
        case .rangeOffset: .number("A scroll offset along the session's axis, in points (item `i` starts at the sum of the lengths before it). The stream accepts `-L` through `max(contentLength - L, 0) + L` (a screenful of bounce either side); outside that, or not a finite number, is -32602 naming the param (`offset`, `targetOffset`).")
        case .rangeInfo: .object("A range session's summary: the reply of every range method that changes the session but the light scroll-stream calls.", [
            "session": .ref(.rangeSessionId),
            "count": .allOf([
                .ref(.rangeItemCount),
            ], "Items in all sections."),
            "sections": .integer("Sections (1 for a session made from `count` / `lengths`).").minimum(1),
            "contentLength": .number("The sum of the item lengths, points.").minimum(0),
            "offset": .number("The last offset (moved by a prepending `range.batchFetchDone` so that what is on screen stays)."),
            "mode": .ref(.rangeMode),
            "direction": .ref(.rangeDirection),
            "phase": .ref(.rangePhase),
            "visible": .boolean("Whether the list is on screen (`range.setVisible`)."),
            "batchInFlight": .oneOf([
                .null(),
                .ref(.batchContextId),
            ], "The context of the batch fetch in flight (announced by a `batch` event, ended by `range.batchFetchDone`); null when none is."),
            "applied": .object("`range.performBatchUpdates` and `range.applySnapshot` only: how many items the batch deleted, inserted, moved, reloaded and resized (items of deleted, inserted and moved sections included).", [
                "deleted": .integer().minimum(0), "inserted": .integer().minimum(0), "moved": .integer().minimum(0),
                "reloaded": .integer().minimum(0), "resized": .integer().minimum(0),
            ], required: ["deleted", "inserted", "moved", "reloaded", "resized"]),
            "templatesQueued": .integer("`templates: true` only: template warm-ups queued (one per section `reuseIdentifier` naming a class whose pool was empty).").minimum(0),
        ], required: ["session", "count", "sections", "contentLength", "offset", "mode", "direction", "phase", "visible", "batchInFlight"])
        case .rangeCreated: .allOf([
            .ref(.rangeInfo),
        ], "`range.create`'s reply: the session's summary, with `templatesQueued` when `templates: true` was given.")
        case .rangeStreamState: .object("The light reply of `range.didScroll` (called at frame rate).", [
            "session": .ref(.rangeSessionId),
            "mode": .ref(.rangeMode),
            "direction": .ref(.rangeDirection),
        ], required: ["session", "mode", "direction"])
        case .rangeRanges: .object("`range.state` without `paths`: the index paths in each range, ascending. A visible item is in all three; display items are in preload.", [
            "mode": .ref(.rangeMode),
            "direction": .ref(.rangeDirection),
            "visible": .array(.ref(.indexPath), "Items intersecting the viewport (none while the session is not visible).").uniqueItems(),
            "display": .array(.ref(.indexPath), "Items in the display range.").uniqueItems(),
            "preload": .array(.ref(.indexPath), "Items in the preload range.").uniqueItems(),
            "keys": .allOf([.ref(.rangeKeyLists)], "A keyed session only: the keys beside `visible`, `display` and `preload`."),
            "nested": .array(.object(nil, ["path": .ref(.indexPath), "session": .ref(.rangeSessionId)], required: ["path", "session"]), "A session with nested sessions only: each one by its parent row, ascending."),
            "headers": .object("A session with section headers only: the sections whose headers show, and the sticky ones pinned.", [
                "visible": .array(.integer().minimum(0)),
                "pinned": .array(.integer().minimum(0)),
            ], required: ["visible", "pinned"]),
            "viewable": .allOf([.ref(named: "RangeViewable")], "A session with `viewability` only: per threshold name, the items viewable now."),
            "cells": .object("A session with `cells` only: the bound cells, the parked ones per class, and counters.", [
                "reuseLimit": .integer().minimum(0),
                "bound": .array(.object(nil, ["path": .ref(.indexPath), "container": .ref(.containerId)], required: ["path", "container"]), "Bound cells, by item."),
                "parked": .object("Parked cells per class.", [:], additionalProperties: nil).additionalProperties(.integer().minimum(0)),
                "made": .integer("Cells created.").minimum(0),
                "reused": .integer("Bindings from a reuse queue.").minimum(0),
                "fromPool": .integer("Bindings from a prerender pool's template.").minimum(0),
                "configured": .integer("`configure` runs.").minimum(0),
                "skipped": .integer("Bindings that skipped `configure`: the cell already showed that item at that version.").minimum(0),
                "released": .integer("Cells released.").minimum(0),
            ], required: ["reuseLimit", "bound", "parked", "made", "reused", "fromPool", "configured", "skipped", "released"]),
        ], required: ["mode", "direction", "visible", "display", "preload"])
        case .rangeItemState: .object("An item's state bits.", [
            "path": .ref(.indexPath),
            "key": .string("A keyed session only: the item's key."),
            "preload": .boolean(),
            "display": .boolean(),
            "visible": .boolean(),
        ], required: ["path", "preload", "display", "visible"])
        case .rangeItems: .object("`range.state` with `paths`: the state bits of each item asked for, in the order asked.", [
            "mode": .ref(.rangeMode),
            "direction": .ref(.rangeDirection),
            "items": .array(.ref(.rangeItemState)),
        ], required: ["mode", "direction", "items"])
        case .rangeEnter: .allOf([
            .ref(.rangeChanges),
        ], "Paths that entered each range (new items that land in a range enter it).")
        case .rangeExit: .allOf([
            .ref(.rangeChanges),
        ], "Paths that left each range (removed items are listed in `removed` instead).")
        case .virtualClockNote: .string("Only under `--clock virtual`, and only when this request left work that waits for the script: idle tasks (pool warm-ups) that run only on `tasks.drain`, or a timer (an animation's end, a memory warning's cool-down) that fires only on `clock.advance`. Says what waits and which call runs it, e.g. \"1 idle task (a pool warm-up) was queued; under the virtual clock it runs only on tasks.drain\". For people reading replies; programs have the same facts in `tasks.status`, `clock.now`, `pool.status` and `page.info`. See docs/virtual-clock.md.")
        case .resetEvent: .object("`host.reset` was handled (sent to every `host` subscriber); `connection` is the one that asked.", [
            "seq": .ref(.eventSeq),
            "t": .ref(.eventTime),
            "cause": .ref(.eventCause),
            "kind": .any().const("reset"),
            "connection": .string(),
        ], required: ["seq", "t", "cause", "kind", "connection"])
        case .pluginCrashedEvent: .object("A plugin's worker ended unasked (sent to every `host` subscriber): `reason` is `crashed` (with `signal`, `signalName`), `exited` (with `exitStatus`), `closed` (its socket closed), `timeout` (a hook ran past `--hook-timeout-ms`: the host killed it) or `protocol` (it broke the worker protocol: garbage, a frame of the wrong kind or size, bytes no request asked for; the host killed it). `detail` says what happened. Every container of its classes is torn down as a failed container is (the one whose call was in flight answers -32004). `willRestart`: false when this crash marked the plugin failed; else a new worker starts after `backoffMs` (0 for the first crash in a minute, then doubling from 50 ms to at most 2 s).", [
            "seq": .ref(.eventSeq),
            "t": .ref(.eventTime),
            "cause": .ref(.eventCause),
            "kind": .any().const("pluginCrashed"),
            "plugin": .string(),
            "reason": .string().oneOfValues(["crashed", "exited", "closed", "timeout", "protocol"]),
            "signal": .integer(),
            "signalName": .string(),
            "exitStatus": .integer(),
            "detail": .string(),
            "willRestart": .boolean(),
            "backoffMs": .integer().minimum(0),
        ], required: ["seq", "t", "cause", "kind", "plugin", "reason", "detail", "willRestart"])
        case .pluginRestartedEvent: .object("A plugin's worker was started again (after a crash's backoff, or by `plugins.restart`); its classes work again, with fresh instances.", [
            "seq": .ref(.eventSeq),
            "t": .ref(.eventTime),
            "cause": .ref(.eventCause),
            "kind": .any().const("pluginRestarted"),
            "plugin": .string(),
            "reason": .string().oneOfValues(["crash", "backoff", "requested"]),
            "pid": .any().with("type", ["integer", "null"]),
            "restarts": .integer().minimum(0),
        ], required: ["seq", "t", "cause", "kind", "plugin", "reason", "pid", "restarts"])
        case .pluginFailedEvent: .object("A plugin was marked failed: past `--plugin-restart-limit` crashes within a minute, or its library no longer loads. Its classes are refused with -32004 until `plugins.restart`.", [
            "seq": .ref(.eventSeq),
            "t": .ref(.eventTime),
            "cause": .ref(.eventCause),
            "kind": .any().const("pluginFailed"),
            "plugin": .string(),
            "reason": .string(),
        ], required: ["seq", "t", "cause", "kind", "plugin", "reason"])
        case .hookFailure: .object("A container whose hook failed during a call: it was torn down (its `lifecycle` events, `failed: true` then `deinit`, come before the reply). Other members come from the class (a plugin's error data).", [
            "container": .ref(.containerId),
            "class": .string(),
            "hook": .string(),
            "message": .string(),
        ], required: ["container", "class", "hook", "message"], additionalProperties: nil)
        case .durationMs: .number("A transition's duration in ms of host clock: 0 to 600000 (ten minutes), 300 when absent.").minimum(0).maximum(600000).default(300)
        case .interactivePop: .object("An interactive pop (the edge-swipe back gesture) in progress: `container` (the top) is disappearing and `revealed` (the one below) appearing until `stack.finishInteractivePop` or `stack.cancelInteractivePop`.", [
            "container": .ref(.containerId),
            "revealed": .ref(.containerId),
            "progress": .number("How far the gesture has gone (`stack.updateInteractivePop`), 0 at its begin.").minimum(0).maximum(1),
        ], required: ["container", "revealed", "progress"])
        }
    }
}

extension Schema {
    /// A `$ref` to the component schema `name`.
    static func ref(_ name: SchemaName) -> Schema { .ref(named: name.rawValue) }
}

extension ParamField {
    /// The `session` member of a range method: a range session of the caller's.
    static func rangeSession(_ keyPath: WritableKeyPath<P, String>) -> ParamField<P> {
        .required("session", keyPath, .ref(.rangeSessionId),
                  "The range session (one of this connection's); another connection's or an unknown id is -32002.")
    }

    /// The `session` member of a page method: a page session of the caller's.
    static func pageSession(_ keyPath: WritableKeyPath<P, String>) -> ParamField<P> {
        .required("session", keyPath, .ref(.pageSessionId),
                  "The page session (one of this connection's); another connection's or an unknown id is -32002.")
    }
}

extension ParamField {
    /// The `stack` member of a stack method: a stack of the caller's.
    static func stack(_ keyPath: WritableKeyPath<P, String>) -> ParamField<P> {
        .required("stack", keyPath, .ref(.stackId), "The stack (one of this connection's).")
    }

    /// The `animated` member of a stack transition (default false).
    static func animated(_ keyPath: WritableKeyPath<P, Bool?>) -> ParamField<P> {
        .optional("animated", keyPath, .boolean().default(false),
                  "Animate the transition: the did-hooks run after `duration` ms of host clock (default false).")
    }

    /// The `duration` member of an animated transition.
    static func duration(_ keyPath: WritableKeyPath<P, Double?>) -> ParamField<P> {
        .optional("duration", keyPath, .ref(.durationMs),
                  "How long the animated transition runs, in ms of host clock (default 300; 0 ends it at once, its calls still `animated: true`). Ignored when not animated. A transition that would end past 2^53 ms on the clock, which never gets there, is refused (-32602).")
    }
}
