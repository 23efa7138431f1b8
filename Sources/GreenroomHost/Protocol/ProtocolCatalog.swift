import GreenroomJSON
import GreenroomRPC

/// Every method, event and error of the protocol, in the document's order: the one list the OpenRPC
/// document is generated from, and the host checks its registry against.
enum ProtocolCatalog {
    static let methods: [any HostMethod.Type] = [
        RPCDiscover.self,
        HostPing.self,
        HostInfo.self,
        HostStats.self,
        HostMemoryWarning.self,
        HostShutdown.self,
        HostReset.self,
        HostAuth.self,
        EventsSubscribe.self,
        EventsUnsubscribe.self,
        ClockNow.self,
        ClockAdvance.self,
        ClockSettle.self,
        TasksStatus.self,
        TasksDrain.self,
        TasksAdd.self,
        TasksCancel.self,
        ClassesList.self,
        ClassesDefine.self,
        PluginsRestart.self,
        ClassesUndefine.self,
        ContainerCreate.self,
        ContainerConfigure.self,
        ContainerInfo.self,
        ContainerRelease.self,
        ContainerBeginAppearanceTransition.self,
        ContainerEndAppearanceTransition.self,
        StackCreate.self,
        StackPush.self,
        StackPop.self,
        StackPopToRoot.self,
        StackSetContainers.self,
        StackBeginInteractivePop.self,
        StackUpdateInteractivePop.self,
        StackFinishInteractivePop.self,
        StackCancelInteractivePop.self,
        StackSetHidden.self,
        StackResize.self,
        StackInfo.self,
        StackDestroy.self,
        PresentationPresent.self,
        PresentationDismiss.self,
        PresentationBeginInteractiveDismiss.self,
        PresentationUpdateInteractiveDismiss.self,
        PresentationFinishInteractiveDismiss.self,
        PresentationCancelInteractiveDismiss.self,
        PresentationInfo.self,
        TabsCreate.self,
        TabsSelect.self,
        TabsSetContainers.self,
        TabsSetHidden.self,
        TabsResize.self,
        TabsInfo.self,
        TabsDestroy.self,
        ShowRendered.self,
        PoolConfigure.self,
        PoolWarm.self,
        PoolStatus.self,
        PoolPurge.self,
        PageCreate.self,
        PageShow.self,
        PageWillBeginDragging.self,
        PageDidScroll.self,
        PageWillEndDragging.self,
        PageDidEndDragging.self,
        PageDidEndDecelerating.self,
        PageInfo.self,
        PageDestroy.self,
        PageInsertPages.self,
        PageRemovePages.self,
        PageReloadPage.self,
        PageBeginInteractiveCurl.self,
        PageUpdateInteractiveCurl.self,
        PageFinishInteractiveCurl.self,
        PageCancelInteractiveCurl.self,
        RangeCreate.self,
        RangeWillBeginDragging.self,
        RangeDidScroll.self,
        RangeWillEndDragging.self,
        RangeDidEndDecelerating.self,
        RangeSetVisible.self,
        RangeSetViewport.self,
        RangeInsertItems.self,
        RangeDeleteItems.self,
        RangeBatchFetchDone.self,
        RangeState.self,
        RangeDestroy.self,
        RangeSetItemData.self,
        RangePerformBatchUpdates.self,
        RangeApplySnapshot.self,
    ]
    static let events: [any RPCEvent.Type] = [
        LifecycleTopic.self,
        PoolTopic.self,
        PageTopic.self,
        RangeTopic.self,
        PrefetchTopic.self,
        BatchTopic.self,
        HostTopic.self,
        TaskTopic.self,
        ViewableTopic.self,
        PresentationTopic.self,
    ]
    static let errors: [ErrorDoc] = [.parseError, .invalidRequest, .methodNotFound, .invalidParams, .internalError, .unknownClass, .unknownObject, .invalidState, .pluginFailed, .limitExceeded, .unauthorized, .virtualClockOnly, .pageStreamOutOfOrder, .rangeStreamOutOfOrder]
    static let info: JSONObject = ["title": "Greenroom", "description": "JSON-RPC 2.0 over a Unix socket, optionally TCP (`--listen tcp:HOST:PORT`), one compact JSON text per `\\n`-terminated line in both directions, and optionally a WebSocket for browsers (`--listen ws:HOST:PORT`): RFC 6455 at `ws://HOST:PORT/rpc`, one JSON-RPC message or batch per text frame in both directions with the same contract as lines (a binary frame is closed with 1003, a message over the limit with 1009, a protocol error with 1002, invalid UTF-8 with 1007, each counted in `host.stats` `connections.webSocketCloses`). The `ws:` port also serves `GET /` (a start page), `/greenroom.js` (the JavaScript client) and `/openrpc.json` (this document); any other request gets an HTTP error and a close, never JSON-RPC, and an HTTP request on a `tcp:` listener gets one HTTP 400 and a close. Browser safety: an upgrade without `Origin` or with the listener's own origin is accepted, any other origin gets 403 unless allowed by `--allow-origin ORIGIN`; the `Host` header must name a loopback address unless `--bind-any`; with a token, a WebSocket peer authenticates with `host.auth` or by giving the token in the upgrade (query parameter `token`, or a `Sec-WebSocket-Protocol` entry `greenroom.token.TOKEN`). Requests may carry params by name (an object) or by position (an array, in the order the params are listed here). Batches and notifications are JSON-RPC 2.0 exactly. Errors are `components.schemas.ErrorObject`: the codes in `components.errors`, each with `data.kind`. Events are host-to-client notifications described in `x-notifications`: `method` is the topic, `params` always carries `seq` (per connection, strictly increasing from 1) and `t` (host clock, ms). Limits and transports: Unix peers must share the host's uid (else one -32006 line, then an orderly close: the host shuts its side down and reads until the peer closes, so the peer can read why). Each connection's queued outbound bytes have a high-water mark (`host.info` `limits.outboundHighWaterBytes`): past it the host stops reading and running that connection's requests until the queue drains below the low-water mark, so a client that reads is never closed; a single reply larger than `maxOutboundBytes` is still written whole. Events for a paused connection are queued like replies. A connection that is paused, or whose queue is past `maxOutboundBytes`, and whose peer takes no bytes for `slowReaderGraceMs` is closed (counted in `host.stats` as `closedSlowReader`). A peer's EOF (shutdown of its writing side) ends its requests, not the answers: every request read before it is answered and its events written, then the connection is closed, and only then are its objects torn down. Over TCP with a token, before `host.auth` succeeds a connection has a `maxUnauthenticatedMessageBytes` message limit, `authTimeoutMs` to authenticate (then one -32006 line with `data.kind: \"authTimeout\"` and a close), `maxAuthFailures` wrong tokens (the last reply has `data.triesLeft: 0`, then the connection closes), and at most `maxUnauthenticated` such connections are open at once (a further one gets -32005 with `data.limit: \"unauthenticatedConnections\"`). Bytes held in partial input lines across all connections have a budget (`maxBufferedInputBytes`): past it, the connections holding the most get -32005 with `data.limit: \"bufferedInputBytes\"` and are closed, first to last, until the total is within it. A hook that fails tears its container down and is reported in the reply of the call that caused it: -32004 pluginFailed naming the first failed container, class and hook, with every one in `data.failures`; when the call otherwise completed, `data.result` is what it answers otherwise (`data.error` when it also failed for another reason). Host-wide calls (`host.memoryWarning`, `clock.advance`, `tasks.drain`) reach any connection's containers and still complete: they list failures in their result's `failed` instead. Failures with no call (a timer on the real clock, an idle pass, a connection closing) are reported by their `lifecycle` events only.", "version": "0.1.0"]
}

extension ErrorDoc {
    static let parseError = ErrorDoc("ParseError", ["code": -32700, "message": "Parse error", "data": ["kind": "parseError", "line": 1, "column": 5, "position": 4]])
    static let invalidRequest = ErrorDoc("InvalidRequest", ["code": -32600, "message": "Invalid request", "data": ["kind": "invalidRequest", "path": "jsonrpc"]])
    static let methodNotFound = ErrorDoc("MethodNotFound", ["code": -32601, "message": "Method not found", "data": ["kind": "methodNotFound", "method": "no.such"]])
    static let invalidParams = ErrorDoc("InvalidParams", ["code": -32602, "message": "Invalid params", "data": ["kind": "invalidParams", "path": "ms", "reason": "is required"]])
    static let internalError = ErrorDoc("InternalError", ["code": -32603, "message": "Internal error", "data": ["kind": "internalError"]])
    static let unknownClass = ErrorDoc("UnknownClass", ["code": -32001, "message": "Unknown class", "data": ["kind": "unknownClass", "class": "Article", "path": "class", "known": ["Container"]]])
    static let unknownObject = ErrorDoc("UnknownObject", ["code": -32002, "message": "Unknown object", "data": ["kind": "unknownObject", "id": "c-7", "expected": "container"]])
    static let invalidState = ErrorDoc("InvalidState", ["code": -32003, "message": "Invalid state", "data": ["kind": "invalidState", "container": "c-3", "stack": "s-1"]])
    static let pluginFailed = ErrorDoc("PluginFailed", ["code": -32004, "message": "Plugin failed", "data": ["kind": "pluginFailed", "container": "c-4", "class": "Article", "hook": "viewDidLoad", "failures": [["container": "c-4", "class": "Article", "hook": "viewDidLoad", "message": "Article.viewDidLoad failed"]]]])
    static let limitExceeded = ErrorDoc("LimitExceeded", ["code": -32005, "message": "Limit exceeded", "data": ["kind": "limitExceeded", "limit": "connections", "max": 1024]])
    static let unauthorized = ErrorDoc("Unauthorized", ["code": -32006, "message": "Unauthorized", "data": ["kind": "unauthorized", "method": "host.info"]])
    static let virtualClockOnly = ErrorDoc("VirtualClockOnly", ["code": -32007, "message": "Virtual clock only", "data": ["kind": "virtualClockOnly", "method": "clock.advance", "clock": "real"]])
    static let pageStreamOutOfOrder = ErrorDoc("PageStreamOutOfOrder", ["code": -32003, "message": "page.didEndDecelerating does not fit the scroll stream here (the session is dragging)", "data": ["kind": "invalidState", "call": "page.didEndDecelerating", "phase": "dragging"]])
    static let rangeStreamOutOfOrder = ErrorDoc("RangeStreamOutOfOrder", ["code": -32003, "message": "range.willEndDragging does not fit the scroll stream here (the session is idle)", "data": ["kind": "invalidState", "call": "range.willEndDragging", "phase": "idle"]])
}
