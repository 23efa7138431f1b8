import GreenroomJSON
import GreenroomRPC

/// `range.create`: Creates a range (prefetch) session (Texture's ASRangeController).
enum RangeCreate: HostMethod {
    static let name = "range.create"
    static let summary = "Creates a range (prefetch) session (Texture's ASRangeController)."
    static let description = "Items are stacked along `axis` (default `vertical`): `count` items of `itemLength` (default 44), the `lengths` list, or `sections` (each `{count?, itemLength?, lengths?, reuseIdentifier?}`); a session made from `count` / `lengths` has one section, 0. Items are addressed by index paths `[section, row]`. The viewport starts at offset 0 and covers `[offset, offset + L)`, `L` its length along the axis. The first update runs before the reply: a `range` event (everything that entered a range), `prefetchItems`, and a `batch` `willBeginBatchFetch` event when a batch should begin (content shorter than the viewport fetches even when not visible), whose context the reply's `batchInFlight` names. The rules follow Texture's range controller and batch fetching as of TextureGroup/Texture be0b74b4 (2025-05-22). Deliberate differences, each with its reason (docs/ranges.md has more): (1) one range update at the end of each call instead of on the next run-loop turn — a call is Greenroom's run-loop turn, so its effects come before its reply; (2) without `velocity` a drag's direction comes from offset deltas — many clients only have offsets; (3) an invisible session's viewport items act as its on-screen items — a hidden list should still preload what it will show first; (4) no re-update when scheduled displays finish — Greenroom renders nothing; (5) no batch-fetching delegate — the client decides what to do with a `batch` event; (6) one axis per session, no right-to-left, inverted or transformed lists — the wire carries one offset; (7) a direction even when the content cannot scroll along the axis — bounce settings are not modelled; (8) no application background/foreground — use `range.setVisible` and `host.memoryWarning`; (9) a drag ended by `range.didEndDecelerating` without `range.willEndDragging` is judged as a release at rest — UIKit always sends willEndDragging first; (10) every `range.didScroll` (and a `range.didEndDecelerating` with an offset) judges a batch when visible and not dragging, even at the offset the last call sent — UIKit sends scrollViewDidScroll: only when the offset moves, but a call is the client's word that the list scrolled (send offsets only when they move to avoid asking an exhausted backend at every frame); (11) `batch.prepend`, `lazy` and the threshold strategies are Greenroom's options, off by default — head-growing lists and seed 004's comparisons. The mode is `minimum` at the first update and becomes `full` at the first `range.willBeginDragging` (visible or not). Ranges are recomputed only when the items on the viewport, the mode or the visibility change, never for an offset alone. `templates: true` queues one warm-up (a `default`-mode idle task, paused while any session tracks) per section `reuseIdentifier` that names a class whose pool at the row's size is empty, at the size its rows have (the viewport's cross size by the length of the first row of the first section using it), as MDTable preloads cell templates, and adds `templatesQueued`. -32602 names the bad field: `count` (not 0 to 10000000, not `lengths`' length, or more than 10000000 items in all), `itemLength`, `lengths`, `lengths[i]`, `sections` (empty, or given with `count` / `lengths`), `sections[i]`, `sections[i].count`, `sections[i].itemLength`, `sections[i].lengths[j]`, `sections[i].reuseIdentifier`, `sections[i].keys` (not one per item, or keys in some sections only), `sections[i].keys[j]` (a duplicate, naming the other place), `sections[i].key`, `sections[i].<member>`, `keys`, `keys[j]`, `viewport`, `viewport.width`, `viewport.height`, `axis`, `tuning`, `tuning.<mode>`, `tuning.<mode>.<type>`, `tuning.<mode>.<type>.leading` / `.trailing` / `.<member>`, `batch`, `batch.leadingScreens`, `batch.prepend`, `batch.<member>`, `strategy`, `strategy.name`, `strategy.ratio`, `lazy`, `visible` (with `parent` or `page`), `templates`, `parent`, `parent.item` (not an item of that session), `parent.<member>`, `page` (with `parent`), `page.index` (out of range), `page.<member>`. -32002: `parent.session` / `page.session` (not one of this connection's sessions). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["ranges"]
    static let result = ResultSpec("session", .ref(.rangeCreated))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var count: Int?
        var itemLength: Double?
        var lengths: JSONValue?
        var sections: [JSONObject]?
        var viewport: JSONObject = [:]
        var axis = "vertical"
        var tuning: JSONObject?
        var batch: JSONObject?
        var strategy: JSONValue?
        var lazy: Bool?
        var visible: Bool?
        var templates: Bool?
        var cells: JSONObject?
        var data: [JSONValue]?
        var keys: [String]?
        var viewability: [JSONObject]?
        var parent: JSONObject?
        var page: JSONObject?
        var layout: JSONObject?

        static let fields: [ParamField<Params>] = [
            .optional("count", \.count, .ref(.rangeItemCount), "Items in section 0 (with `itemLength`; with `lengths` it must equal its length). Default 0."),
            .optional("itemLength", \.itemLength, .ref(.rangeLength), "The length of each of the `count` items, points (default 44)."),
            .optional("lengths", \.lengths, .ref(.rangeLengths), "One length per item of section 0, instead of `count` x `itemLength`."),
            .optional("sections", \.sections, .array(.ref(.rangeSection)).minItems(1), "The sections, instead of `count` / `lengths` (not both)."),
            .required("viewport", \.viewport, .ref(.rangeViewport), "The viewport's size."),
            .choice("axis", \.axis, .string().oneOfValues(["vertical", "horizontal"]).default("vertical"), "The scroll axis (default `vertical`)."),
            .optional("tuning", \.tuning, .ref(.rangeTuning), "Buffer overrides per mode and range type (default Texture's)."),
            .optional("batch", \.batch, .ref(.rangeBatchParam), "Batch fetching (default `{leadingScreens: 2.0, prepend: false}`)."),
            .optional("strategy", \.strategy, .ref(.rangeStrategy), "How batches are triggered (default `ranges`)."),
            .optional("lazy", \.lazy, .boolean().default(false), "Greenroom's, not Texture's: during a fling (after `range.willEndDragging`), mark only the target region plus what is on screen, recomputed at `range.willEndDragging` and `range.didEndDecelerating` (default false)."),
            .optional("visible", \.visible, .boolean().default(true), "Whether the list starts on screen (default true)."),
            .optional("templates", \.templates, .boolean().default(false), "Queue a warm template per section `reuseIdentifier` that names a class, at its rows' size (default false)."),
            .optional("cells", \.cells, .object("Rows as containers (docs/ranges.md, \"Cells\"): each item in the display range gets a container of the class its section's `reuseIdentifier` names, from that class's reuse queue, a template of the prerender pool at the row's size, or new; it is configured with the item's data, loaded and laid out at the row's size, appears while the item is visible, and goes back to its queue when the item leaves the display range (released past `reuseLimit`). Each `range` event's `cells` says which container shows which item.", [
                "reuseLimit": .integer("Parked cells kept per class (default 8); more are released.").minimum(0).maximum(1000).default(8),
            ]), "Give items containers (at least one section's `reuseIdentifier` must name a class)."),
            .optional("data", \.data, .array(.any("Any JSON value.")).maxItems(10000000), "With `cells`: business data per item, in item order across sections (at most the item count); a cell is configured with it."),
            .optional("keys", \.keys, .ref(.rangeKeys), "Section 0's item keys, with `count` / `lengths` (with `sections`, each section gives its own). A session made with keys is keyed: every later insert gives keys too."),
            .optional("viewability", \.viewability, .array(ViewabilitySchema.viewabilityThreshold.ref).minItems(1).maxItems(8), "Viewability thresholds, 1 to 8 (docs/ranges.md, \"Viewability\"): `viewable` events say when an item has been at least `minPercent` on screen for `minMs`, and when it stops being; `range.state` lists the viewable items. -32602 `viewability` (empty, or more than 8), `viewability[i]`, `viewability[i].name`, `viewability[i].minPercent`, `viewability[i].minMs`, `viewability[i].<member>`."),
            .optional("parent", \.parent, .object("A row of another of this connection's range sessions.", [
                "session": .ref(.rangeSessionId),
                "item": .ref(.indexPath),
            ], required: ["session", "item"]), "Nest this session in a row of another (a carousel in a feed's row; docs/ranges.md, \"Nested sessions\"): it is visible while that row is visible, preloads (invisible, `minimum` mode) while the row is in the preload range, displays nothing (`lowMemory`: only its own first screen stays preloaded) farther away, moves with the row and ends when the row is deleted or its session ends. Not with `visible` or `page`."),
            .optional("page", \.page, .object("A page of one of this connection's page sessions.", [
                "session": .ref(.pageSessionId),
                "index": .ref(.pageIndex),
            ], required: ["session", "index"]), "Nest this session in a page (a list on a page): visible while the page's child is appearing or appeared, preloading while it is loaded but not shown, displaying nothing (`lowMemory`) while the page has no child; it moves with the page and ends when the page is removed or its session ends. Not with `visible` or `parent`."),
            .optional("layout", \.layout, .object("A grid.", [
                "columns": .integer("Items per row (1 to 1000).").minimum(1).maximum(1000),
                "spacing": .number("Points between rows, and between columns for the cells' width (default 0).").minimum(0).default(0),
            ], required: ["columns"]), "A grid (docs/ranges.md, \"Grids\"): items fill rows of `columns`, each section starting a new row, and an item's extent is its row's, so ranges cover whole rows. Every item of a section has one length, the row's (-32602 `sections[i].lengths` otherwise; inserts must match it). Default: one item per row."),
        ]
    }
}

/// `range.willBeginDragging`: The user touches the content (scrollViewWillBeginDragging).
enum RangeWillBeginDragging: HostMethod {
    static let name = "range.willBeginDragging"
    static let summary = "The user touches the content (scrollViewWillBeginDragging)."
    static let description = "The session starts tracking (phase `dragging`; `default` idle tasks pause, docs/tasks.md): the content counts as scrolled and the mode becomes `full` at the next update, whether or not the session is visible (Texture's `scrollViewWillBeginDragging:`); that update runs before the reply when the mode changed. `offset`, when given, is where the drag starts (no motion: the direction comes from `velocity` if sent, else from the next offsets). Batch fetching is not judged while dragging. Never out of order: a drag that begins while decelerating continues the motion. -32602: `offset` (out of range), `velocity` (not a finite number). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["ranges"]
    static let result = ResultSpec("session", .ref(.rangeInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var offset: Double?
        var velocity: Double?

        static let fields: [ParamField<Params>] = [
            .rangeSession(\.session),
            .optional("offset", \.offset, .ref(.rangeOffset), "Where the drag begins. Between `-L` and `max(contentLength - L, 0) + L`."),
            .optional("velocity", \.velocity, .number(), "Points per ms along the axis (positive: toward the tail). While dragging it gives the scroll direction (without it, the offset's change does); outside a drag it is ignored."),
        ]
    }
}

/// `range.didScroll`: The offset changed (scrollViewDidScroll).
enum RangeDidScroll: HostMethod {
    static let name = "range.didScroll"
    static let summary = "The offset changed (scrollViewDidScroll)."
    static let description = "The scroll direction is the motion's while dragging: the sign of `velocity` when sent, else the sign of the offset's change since the previous offset (a client sending only offsets); while decelerating it points toward the target of `range.willEndDragging`; at rest (a programmatic scroll) there is none and the ranges keep the direction they had. The ranges are recomputed only when the set of items on the viewport changed (a jitter within the same items changes nothing); with nothing on the viewport (overscroll) they stay as they were and only the items that left the screen lose `visible`. When the session is visible and not dragging (decelerating, or a programmatic scroll), batch fetching is judged at the new offset with that direction (none at rest, so a batch near the end is never refused for pointing at the head). Never out of order. The reply is the light `RangeStreamState`. -32602: `offset` (missing, or out of range), `velocity` (not a finite number). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["ranges"]
    static let result = ResultSpec("state", .ref(.rangeStreamState))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var offset: Double = 0
        var velocity: Double?

        static let fields: [ParamField<Params>] = [
            .rangeSession(\.session),
            .required("offset", \.offset, .ref(.rangeOffset), "The current offset. Between `-L` and `max(contentLength - L, 0) + L`."),
            .optional("velocity", \.velocity, .number(), "Points per ms along the axis (positive: toward the tail). While dragging it gives the scroll direction (without it, the offset's change does); outside a drag it is ignored."),
        ]
    }
}

/// `range.willEndDragging`: The finger lifts (scrollViewWillEndDragging).
enum RangeWillEndDragging: HostMethod {
    static let name = "range.willEndDragging"
    static let summary = "The finger lifts (scrollViewWillEndDragging)."
    static let description = "The session decelerates (phase `decelerating`) toward `targetOffset`, or, without it, the offset predicted from `velocity` (deceleration 0.998 per ms: offset + velocity * 0.998 / 0.002), clamped to `0...max(contentLength - L, 0)`; the reply gives it. From here until `range.didEndDecelerating` the scroll direction points from the offset toward that target (none when they are equal, e.g. a release with zero velocity), whatever the velocity's sign. Batch fetching is judged at the target offset with that direction (a snap target against the motion is judged toward the target). The ranges are not recomputed here unless `lazy: true`, when they mark only the target region until `range.didEndDecelerating`. `offset`, when given, is recorded first, as `range.didScroll` records it. Outside a drag it is -32003 (`data.call`, `data.phase`). -32602: `velocity` (missing, or not a finite number), `targetOffset`, `offset` (out of range). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["ranges"]
    static let result = ResultSpec("target", .object(nil, [
        "session": .ref(.rangeSessionId),
        "targetOffset": .number("Where the motion will stop, clamped to `0...max(contentLength - L, 0)`.").minimum(0),
    ], required: ["session", "targetOffset"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .rangeStreamOutOfOrder, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var velocity: Double = 0
        var targetOffset: Double?
        var offset: Double?

        static let fields: [ParamField<Params>] = [
            .rangeSession(\.session),
            .required("velocity", \.velocity, .number(), "Points per ms along the axis (positive: toward the tail)."),
            .optional("targetOffset", \.targetOffset, .ref(.rangeOffset), "Where the motion will come to rest, if the caller knows. Between `-L` and `max(contentLength - L, 0) + L`."),
            .optional("offset", \.offset, .ref(.rangeOffset), "The offset where the finger lifts. Between `-L` and `max(contentLength - L, 0) + L`."),
        ]
    }
}

/// `range.didEndDecelerating`: The motion stops (scrollViewDidEndDecelerating).
enum RangeDidEndDecelerating: HostMethod {
    static let name = "range.didEndDecelerating"
    static let summary = "The motion stops (scrollViewDidEndDecelerating)."
    static let description = "The session comes to rest (phase `idle`; tracking ends; the scroll direction is none from here); it also ends a drag that does not decelerate, judged then for a batch as a release at rest (UIKit always sends willEndDragging first). `offset`, when given, is the motion's last `range.didScroll` (judged for a batch toward the target when visible and not dragging, even at the offset the last call sent) before coming to rest. The ranges update if the items on the viewport changed. When idle it is -32003 (`data.call`, `data.phase`). -32602: `offset` (out of range). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["ranges"]
    static let result = ResultSpec("session", .ref(.rangeInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .rangeStreamOutOfOrder, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var offset: Double?

        static let fields: [ParamField<Params>] = [
            .rangeSession(\.session),
            .optional("offset", \.offset, .ref(.rangeOffset), "The resting offset. Between `-L` and `max(contentLength - L, 0) + L`."),
        ]
    }
}

/// `range.setVisible`: The list goes on or off screen.
enum RangeSetVisible: HostMethod {
    static let name = "range.setVisible"
    static let summary = "The list goes on or off screen."
    static let description = "A change of visibility recomputes the ranges at once (Texture's `didMoveToWindow`); setting the visibility it already has does nothing. An invisible session marks no item visible: the items on its viewport get preload and display (preload only in `lowMemory`), those in the display range preload only, those only in the preload range nothing. Its mode is not managed while invisible (it keeps the one it has); a session made visible again after a drag is `full` at once. Becoming visible judges batch fetching (unless dragging); an invisible session fetches a batch only for content shorter than the viewport. -32602: `visible`. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["ranges"]
    static let result = ResultSpec("session", .ref(.rangeInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var visible: Bool = false

        static let fields: [ParamField<Params>] = [
            .rangeSession(\.session),
            .required("visible", \.visible, .boolean(), "Whether the list is on screen."),
        ]
    }
}

/// `range.setViewport`: The viewport is resized.
enum RangeSetViewport: HostMethod {
    static let name = "range.setViewport"
    static let summary = "The viewport is resized."
    static let description = "Give `viewport {width, height}`, or `width` and `height`. The new length along the axis is the new `L` for the ranges, the offset bounds and batch fetching; the ranges are recomputed if the items on the viewport changed. Batch fetching is not judged (as Texture: a bounds change is no scroll and no data change). -32602: `viewport.width`, `viewport.height`, or (without `viewport`) `width`, `height`. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["ranges"]
    static let result = ResultSpec("session", .ref(.rangeInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var viewport: JSONObject?
        var width: Double?
        var height: Double?

        static let fields: [ParamField<Params>] = [
            .rangeSession(\.session),
            .optional("viewport", \.viewport, .ref(.rangeViewport), "The new size (instead of `width` and `height`)."),
            .optional("width", \.width, .ref(.dimension), "Without `viewport`: the new width, points."),
            .optional("height", \.height, .ref(.dimension), "Without `viewport`: the new height, points."),
        ]
    }
}

/// `range.insertItems`: Inserts items.
enum RangeInsertItems: HostMethod {
    static let name = "range.insertItems"
    static let summary = "Inserts items."
    static let description = "The items go before `at` (`[section, row]`; row may be the section's count, to append). The offset does not move, so what follows the insertion point shifts. The ranges are recomputed when the items on the viewport changed (new items that land in a range then enter it, listed once in the `range` event); otherwise new items stay unmarked until the next update (as Texture). Batch fetching is judged unless dragging. -32602: `at` (not a `[section, row]`), `at[0]` (no such section), `at[1]` (row outside 0...count), `lengths` (missing or empty, or more than 10000000 items in all), `lengths[i]`, `keys` (missing in a keyed session, given in an unkeyed one, or not one per item), `keys[i]` (a key the session has, or given twice). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["ranges"]
    static let result = ResultSpec("session", .ref(.rangeInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var at: [Int] = []
        var lengths: JSONValue = .null
        var data: [JSONValue]?
        var keys: [String]?
        var keepOnScreen: Bool?

        static let fields: [ParamField<Params>] = [
            .rangeSession(\.session),
            .required("at", \.at, .ref(.indexPath), "Where the items go: before this `[section, row]`."),
            .required("lengths", \.lengths, .allOf([
                .ref(.rangeLengths),
            ]).minItems(1), "One length per new item (at least one)."),
            .optional("data", \.data, .array(.any("Any JSON value.")), "A session with `cells`: business data per new item (at most one per length)."),
            .optional("keys", \.keys, .ref(.rangeKeys), "A keyed session: one key per new item (required there, refused elsewhere)."),
            .optional("keepOnScreen", \.keepOnScreen, .boolean().default(false), "Keep what is on screen still: items inserted at or before the first item on screen move the offset down by their length in the same update (a feed receiving new posts at the head, a chat loading older messages), as a prepending `range.batchFetchDone` does; the reply's `offset` says where the list is. Default false: the offset stays and what follows the insertion point shifts."),
        ]
    }
}

/// `range.deleteItems`: Deletes items.
enum RangeDeleteItems: HostMethod {
    static let name = "range.deleteItems"
    static let summary = "Deletes items."
    static let description = "`paths` address items before the deletion. The `range` event lists in `removed` those that were in a range (they do not `exit`); the ranges are recomputed when the items on the viewport changed (items that slide into a range then enter it). Batch fetching is judged unless dragging. -32602: `paths`, `paths[i]` (not an item), `paths` (an item listed twice). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["ranges"]
    static let result = ResultSpec("session", .ref(.rangeInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var paths: [[Int]] = []

        static let fields: [ParamField<Params>] = [
            .rangeSession(\.session),
            .required("paths", \.paths, .array(.ref(.indexPath)).uniqueItems(), "The items to delete."),
        ]
    }
}

/// `range.batchFetchDone`: Ends the batch fetch in flight.
enum RangeBatchFetchDone: HostMethod {
    static let name = "range.batchFetchDone"
    static let summary = "Ends the batch fetch in flight."
    static let description = "`context` is the one the `batch` event (or `batchInFlight`) named. The `lengths` items are appended to the last section, or, when the batch prepends, put before the first item of section 0 with the offset moved by their total so that what is on screen stays (during a lazy fling the target offset moves with it, so the marked region stays on the rows the fling is heading for). With items, the ranges update if the items on the viewport changed and batch fetching is judged again unless dragging (another `batch` event may follow at once). Without items (an exhausted backend: nothing more to load) nothing is judged, so no batch follows: ask again with `range.insertItems` or a scroll when there is more. -32602: `context` (not the batch in flight), `lengths` (or more than 10000000 items in all; the batch stays in flight), `lengths[i]`. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["ranges"]
    static let result = ResultSpec("session", .ref(.rangeInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var context: String = ""
        var lengths: JSONValue?
        var keys: [String]?

        static let fields: [ParamField<Params>] = [
            .rangeSession(\.session),
            .required("context", \.context, .ref(.batchContextId), "The batch's context."),
            .optional("lengths", \.lengths, .ref(.rangeLengths), "The lengths of the items fetched (default none)."),
            .optional("keys", \.keys, .ref(.rangeKeys), "A keyed session: one key per item fetched."),
        ]
    }
}

/// `range.state`: A range session's ranges.
enum RangeState: HostMethod {
    static let name = "range.state"
    static let summary = "A range session's ranges."
    static let description = "Without `paths`: the mode, the direction and the index paths in each range (`RangeRanges`). With `paths`: the state bits of each of those items (`RangeItems`). -32602: `paths`, `paths[i]` (not an item). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["ranges"]
    static let result = ResultSpec("state", .oneOf([
        .ref(.rangeRanges),
        .ref(.rangeItems),
    ]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var paths: [[Int]]?

        static let fields: [ParamField<Params>] = [
            .rangeSession(\.session),
            .optional("paths", \.paths, .array(.ref(.indexPath)), "Items to report on, instead of the whole ranges."),
        ]
    }
}

/// `range.setItemData`: Sets items' business data (sessions with cells).
enum RangeSetItemData: HostMethod {
    static let name = "range.setItemData"
    static let summary = "Sets items' business data; a bound cell is re-bound with `configure`."
    static let description = "A session with `cells` (else -32003): each item's data (and its `version`; without one the version goes up by one: the row is dirty). A cell bound to the item is configured with it at once unless it already shows that item at that version (MDTable's `isDirty`); the reply lists the cells re-bound, with their `configure` output. A cell bound later is configured with the data then. Every item is checked before anything changes: -32602 names `items[i].path` (not an item), `items[i].data` (missing), `items[i].version`, `items[i].<member>`. A failing `configure` is -32004: that cell is torn down. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["ranges"]
    static let result = ResultSpec("set", .object(nil, [
        "session": .ref(.rangeSessionId),
        "items": .integer("Items whose data was set.").minimum(0),
        "rebound": .array(.object(nil, [
            "path": .ref(.indexPath),
            "container": .ref(.containerId),
            "output": .any("`configure`'s output."),
        ], required: ["path", "container", "output"]), "Cells configured with their item's new data."),
    ], required: ["session", "items", "rebound"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var session = ""
        var items: [JSONObject] = []

        static let fields: [ParamField<Params>] = [
            .rangeSession(\.session),
            .required("items", \.items, .array(.object(nil, [
                "path": .ref(.indexPath),
                "data": .any("The item's business data."),
                "version": .integer("The data's version (default: one more than the item's last).").minimum(0),
            ], required: ["path", "data"])).minItems(1).maxItems(100000), "The items and their data."),
        ]
    }
}

/// `range.destroy`: Destroys a range session.
enum RangeDestroy: HostMethod {
    static let name = "range.destroy"
    static let summary = "Destroys a range session."
    static let description = "No events; a batch in flight is forgotten. Sessions are also destroyed when their connection closes. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["ranges"]
    static let result = ResultSpec("destroyed", .object(nil, [
        "session": .ref(.rangeSessionId),
        "destroyed": .any().const(true),
    ], required: ["session", "destroyed"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""

        static let fields: [ParamField<Params>] = [
            .rangeSession(\.session),
        ]
    }
}

/// `range.performBatchUpdates`: Applies many updates at once (UICollectionView's `performBatchUpdates`).
enum RangePerformBatchUpdates: HostMethod {
    static let name = "range.performBatchUpdates"
    static let summary = "Applies many updates at once (UICollectionView's performBatchUpdates)."
    static let description = "Every update is checked first, and a refused batch changes nothing: -32602 names the first bad update and its member (`updates[i].paths[k]`, `updates[i].at`, `updates[i].from`, `updates[i].to`, `updates[i].lengths`, `updates[i].keys[k]`, `updates[i].sections[k]`, `updates[i].<member>`). UIKit's index rules: `deleteItems`, `reloadItems`, `setLengths`, `deleteSections` and the `from` of moves name items and sections as they are before the batch; `insertItems`, `insertSections` and the `to` of moves as they are after it. An item may be named by one of delete, move, reload or resize only (deleting a moved item, reloading a moved one, and the like are refused); items of a deleted section may not be named, nor moved out of a moved section; inserts and moves may not go into an inserted section (it brings its own items) or past the end of their section after the batch; at least one section stays. The whole batch is one update: one `range` event (deleted items that were in a range in `removed`, moved ones in `moved`; a moved item keeps its states, key, data and cell), one set of prefetch changes, and a batch fetch judged once unless dragging. Reloaded items keep their states; a bound cell is configured again (its data version goes up). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["ranges"]
    static let result = ResultSpec("session", .ref(.rangeInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var updates: [JSONObject] = []

        static let fields: [ParamField<Params>] = [
            .rangeSession(\.session),
            .required("updates", \.updates, .array(.ref(.rangeBatchUpdate)).minItems(1).maxItems(100000), "The updates, in any order (the index rules do not depend on it)."),
        ]
    }
}

/// `range.applySnapshot`: Gives a keyed session its new item order; the host computes the changes.
enum RangeApplySnapshot: HostMethod {
    static let name = "range.applySnapshot"
    static let summary = "Gives a keyed session its new item order; the host computes the changes (a diffable data source)."
    static let description = "A keyed session only (else -32003). `sections` lists every section's keys in their new order (as many sections as the session has: sections change with `range.performBatchUpdates`). Keys the snapshot leaves out are deleted, new keys inserted (their `lengths` entries are required), and kept items that changed place are moved: the fewest moves, keeping the longest run of items already in order (a longest increasing subsequence). A kept item whose given length differs is resized. The changes are applied as one `range.performBatchUpdates`, with its events and its `applied` counts. -32602: `sections` (not one per section), `sections[i].keys[j]` (a duplicate), `sections[i].lengths` (not one per key), `sections[i].lengths[j]` (not a length). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["ranges"]
    static let result = ResultSpec("session", .ref(.rangeInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var sections: [JSONObject] = []

        static let fields: [ParamField<Params>] = [
            .rangeSession(\.session),
            .required("sections", \.sections, .array(.ref(.rangeSnapshotSection)).minItems(1), "Each section's keys in their new order."),
        ]
    }
}
