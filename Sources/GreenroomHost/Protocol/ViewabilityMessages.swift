import GreenroomJSON
import GreenroomRPC

/// The `viewable` event: An item became viewable for a threshold, or stopped being.
enum ViewableTopic: RPCEvent {
    static let topic = "viewable"
    static let summary = "An item became viewable for a range session's threshold, or stopped being."
    static let description = "For range sessions made with `viewability` (docs/ranges.md, \"Viewability\"), as React Native's `onViewableItemsChanged` and IntersectionObserver: `viewable` when an item has had at least `minPercent` of its length inside the viewport at every call since one that found it so, for `minMs` of host clock (a host timer announces it at that deadline when no call came in between: under `--clock virtual` on `clock.advance` / `clock.settle`, with a `timer` cause `r-N viewability`); `ended` only for an item that was announced viewable, with `reason` `scrolledOut` (below the threshold at a call), `hidden` (`range.setVisible false`) or `removed` (deleted; `path` is where it was). Items are judged only at the offsets calls report, so an item a fling jumps over never counts. Nothing is sent when the session is destroyed or its connection closes. In threshold order; within a threshold the items that ended, then those that became viewable, each ascending; after the call's `range`, `prefetch` and `batch` events (`removed`: before them), before its reply. To the session's owner and `scope: \"all\"` observers."
    static let params: Schema = .ref(named: ViewabilitySchema.viewableEvent.rawValue)
}

/// The component schemas of viewability, beside `SchemaName`'s (`GreenroomProtocol` lists both).
enum ViewabilitySchema: String, CaseIterable {
    case viewabilityThreshold = "ViewabilityThreshold"
    case viewableEvent = "ViewableEvent"
    case rangeViewable = "RangeViewable"

    var ref: Schema { .ref(named: rawValue) }

    var schema: Schema {
        switch self {
        case .viewabilityThreshold: .object("One viewability threshold (React Native's `viewabilityConfig`: `itemVisiblePercentThreshold`, `minimumViewTime`; an IntersectionObserver threshold with a dwell time): an item is viewable for it once at least `minPercent` of its length along the axis has been inside the viewport `[offset, offset + L)` for `minMs` of host clock without a break (an item of length 0 on the viewport is 100% inside). -32602 names `viewability[i].name` (missing, not a string, empty, or another threshold's name), `viewability[i].minPercent`, `viewability[i].minMs` or `viewability[i].<member>`.", [
            "name": .string("The threshold's name, unique in the session; events and `range.state` name it.").minLength(1),
            "minPercent": .number("Percent of the item's length inside the viewport, in (0, 100] (default 50).").with("exclusiveMinimum", 0).maximum(100).default(50),
            "minMs": .number("How long it must stay at least that visible, ms of host clock (default 0: at once).").minimum(0).maximum(86400000).default(0),
        ], required: ["name"])
        case .viewableEvent: .object("An item became viewable for a threshold (`kind: viewable`), or an item announced viewable stopped being (`kind: ended`, with `reason`).", [
            "seq": .ref(.eventSeq),
            "t": .ref(.eventTime),
            "cause": .ref(.eventCause),
            "session": .ref(.rangeSessionId),
            "name": .string("The threshold (`ViewabilityThreshold.name`)."),
            "kind": .string().oneOfValues(["viewable", "ended"]),
            "reason": .string("`ended` only: `scrolledOut` (below the threshold at a call), `hidden` (`range.setVisible false`) or `removed` (the item was deleted).").oneOfValues(["scrolledOut", "hidden", "removed"]),
            "path": .allOf([.ref(.indexPath)], "The item (for `removed`: its path before the deletion)."),
            "percent": .number("The percent of the item's length inside the viewport now (0 when hidden or removed).").minimum(0).maximum(100),
        ], required: ["seq", "t", "cause", "session", "name", "kind", "path", "percent"]).with("allOf", .array([(Schema.any().`if`(.any().with("properties", JSONValue.object(JSONObject([(key: "kind", value: Schema.any().const("ended").json)]))).with("required", ["kind"])).then(.any().with("required", ["reason"])).`else`(.any().not(.any().with("required", ["reason"])))).json]))
        case .rangeViewable: .object("A session with `viewability` only: per threshold name, the items viewable now, ascending.", [:], additionalProperties: nil).additionalProperties(.array(.ref(.indexPath)).uniqueItems())
        }
    }

    static var components: [Component] { allCases.map { Component($0.rawValue, $0.schema) } }
}
