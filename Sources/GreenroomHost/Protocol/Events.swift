import GreenroomJSON
import GreenroomRPC

/// The `lifecycle` event: A container hook ran.
enum LifecycleTopic: RPCEvent {
    static let topic = "lifecycle"
    static let summary = "A container hook ran."
    static let description = "One event per hook that runs (docs/lifecycle.md), to the container's owner (for pooled containers: the connection whose request caused the warm-up, the hit or the purge) and to `scope: \"all\"` observers; `unbalancedAppearanceTransition` for a refused appearance call (never caused by the host's own flows). Events about green-room containers carry `offscreen: true`."
    static let params: Schema = .ref(.lifecycleEvent)
}

/// The `pool` event: A prerender-pool event.
enum PoolTopic: RPCEvent {
    static let topic = "pool"
    static let summary = "A prerender-pool event."
    static let description = "Misses, hits, warm-ups, failed warm-ups, purges and evictions of the per-class, per-size prerender pools (docs/pools.md). Sent to the connection that caused it (the request that scheduled the warm-up or ordered the purge) and to `scope: \"all\"` observers."
    static let params: Schema = .ref(.poolEvent)
}

/// The `page` event: A page session's transition.
enum PageTopic: RPCEvent {
    static let topic = "page"
    static let summary = "A page session's transition."
    static let description = "`willTransition {session, from, to}` and `didTransition {session, from, to, completed}` (docs/pages.md), to the session's owner and `scope: \"all\"` observers. The children's hooks arrive on `lifecycle`, with `page: {session, index}`."
    static let params: Schema = .ref(.pageEvent)
}

/// The `range` event: A range session's update.
enum RangeTopic: RPCEvent {
    static let topic = "range"
    static let summary = "A range session's update."
    static let description = "After each range update that changes something, one event with only the index paths that entered or left the preload, display and visible ranges, nearest the viewport first, each at most once per list; `removed` for deleted items that were in a range. Ranges are recomputed when the items on the viewport, the mode or the visibility change (`range.create`, the scroll stream, `range.setVisible`, `range.setViewport`, inserts, deletes, `range.batchFetchDone`, a memory warning), never for an offset alone. To the session's owner and `scope: \"all\"` observers, before the reply to the call that caused it."
    static let params: Schema = .ref(.rangeEvent)
}

/// The `prefetch` event: Prefetch or cancel items.
enum PrefetchTopic: RPCEvent {
    static let topic = "prefetch"
    static let summary = "Prefetch or cancel items."
    static let description = "`prefetchItems` (entered preload, not visible; nearest first) and `cancelPrefetching` (left preload without having become visible), as UITableViewDataSourcePrefetching, after the update's `range` event. To the session's owner and `scope: \"all\"` observers."
    static let params: Schema = .ref(.prefetchEvent)
}

/// The `batch` event: Begin a batch fetch.
enum BatchTopic: RPCEvent {
    static let topic = "batch"
    static let summary = "Begin a batch fetch."
    static let description = "`willBeginBatchFetch {session, context, prepend}` when a batch fetch should begin (Texture's `ASDisplayShouldFetchBatchForContext`: content shorter than the viewport; else visible, not moving toward the head, and contentLength - L - offset <= leadingScreens * L), judged on `range.create`, `range.willEndDragging` (at the target offset, toward it), `range.didScroll` and a `range.didEndDecelerating` offset when visible and not dragging, `range.setVisible` (becoming visible), inserts and deletes (not while dragging) and `range.batchFetchDone` with items (never without: an exhausted backend is not asked again). The direction is the scroll's at that moment: none at rest. Pass the context back to `range.batchFetchDone`. To the session's owner and `scope: \"all\"` observers, before the reply to the call that caused it."
    static let params: Schema = .ref(.batchEvent)
}

/// The `task` event: A client's idle task ran a part, or was cancelled.
enum TaskTopic: RPCEvent {
    static let topic = "task"
    static let summary = "A client's idle task ran a part, or was cancelled."
    static let description = "`ran {key, mode, part, parts, done}` each time a part of a task queued with `tasks.add` runs (in an idle pass, on `tasks.drain` or `clock.settle`), and `cancelled {key, partsRun, parts}` after `tasks.cancel` (docs/tasks.md). To the connection that queued it and `scope: \"all\"` observers."
    static let params: Schema = .ref(.taskEvent)
}

/// The `host` event: A host-wide event.
enum HostTopic: RPCEvent {
    static let topic = "host"
    static let summary = "A host-wide event."
    static let description = "`connectionOpened` / `connectionClosed` (to `scope: \"all\"` observers) and `memoryWarning` (to every `host` subscriber); `reset` (to every `host` subscriber) after `host.reset`."
    static let params: Schema = .ref(.hostEvent)
}
