import GreenroomJSON
import GreenroomRPC

/// `page.create`: Creates a page session (a UIPageViewController).
enum PageCreate: HostMethod {
    static let name = "page.create"
    static let summary = "Creates a page session (a UIPageViewController)."
    static let description = "Pages are `count` pages of `class` (with `data`, one value per page, given to each child's `init`; `count` defaults to `data`'s length), or the `pages` list (a class and data per page). Give `class` or `pages`, not both. Children are containers created lazily, when a page is first needed; with `prerender: true` they are taken from the prerender pool of their class at `width` x `height` (a `pool` `hit` / `miss` event with `session` and `index`; the pool refills afterwards as idle tasks, after a hit only outside a memory warning's cool-down). Without `stack` the session is on screen at once: the initial page is created, attached (`willMoveToParent` / `didMoveToParent` with the session's id), loads and appears (not animated) before the reply. With `stack` the session is a container of class `PageViewController` pushed onto it, and its appearance is forwarded to the current page only. -32602 names the bad field: `class` (both given), `count` (missing with `class` and no `data`, not 1 to 1000000, or not `pages`' length), `pages` (empty), `pages[i]`, `pages[i].class`, `pages[i].<member>`, `data` (more entries than pages), `width`, `height`, `initialIndex` (not a page), `cache`, `cache.limit`, `cache.mode`, `cache.<member>`, `prerender`, `offscreenLimit` (above 16, or more than the cache limit holds). An unknown class is -32001 (`data.path` `class` or `pages[i].class`), an unknown stack -32002, a `stack` whose interactive pop is in progress -32003 (before anything is made); a failing hook of the initial page is -32004 (the container and the session are torn down). Under `--clock virtual`, pool refills of a `prerender: true` session wait for `tasks.drain`, and the reply's `note` says so (docs/virtual-clock.md). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["pages"]
    static let result = ResultSpec("session", .ref(.pageInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownClass, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var className: String?
        var pages: [JSONObject]?
        var count: Int?
        var data: [JSONValue]?
        var width: Double = 0
        var height: Double = 0
        var stack: String?
        var initialIndex: Int?
        var cache: JSONObject?
        var prerender: Bool?
        var offscreenLimit = 0
        var transitionStyle = "scroll"

        static let fields: [ParamField<Params>] = [
            .optional("class", \.className, .ref(.className), "The class of every page (with `count` or `data`)."),
            .optional("pages", \.pages, .array(.ref(.pageSpec)).minItems(1).maxItems(1000000), "One entry per page, instead of `class`."),
            .optional("count", \.count, .integer().minimum(1).maximum(1000000), "How many pages: with `class` (default: `data`'s length); with `pages` it must equal its length."),
            .optional("data", \.data, .array(.any("Any JSON value.")).maxItems(1000000), "With `class`: business data per page index (at most `count` entries; data is cached per page index, as MJianshu does; docs/pages.md)."),
            .required("width", \.width, .ref(.dimension), "Page width, points (the page of an offset is offset / width)."),
            .required("height", \.height, .ref(.dimension), "Page height, points."),
            .optional("stack", \.stack, .ref(.stackId), "Push the session's own container onto this stack (one of this connection's) instead of showing it at once."),
            .optional("initialIndex", \.initialIndex, .allOf([
                .ref(.pageIndex),
            ]).default(0), "The first current page (default 0)."),
            .optional("cache", \.cache, .ref(.pageCacheParam), "The child cache (default `{limit: 3}`)."),
            .optional("prerender", \.prerender, .boolean().default(false), "Take children from the prerender pools (default false)."),
            .optional("offscreenLimit", \.offscreenLimit, .integer().minimum(0).maximum(16).default(0),
                      "Neighbour preloading (ViewPager2's `offscreenPageLimit`): after each rest, an idle `default` task makes and loads the pages within this many of the current one (`loadView`, `viewDidLoad`, layout at the page size), never appeared, nearest first. 0 (default): pages are made when first needed. With `cache.limit` the cache must hold them: limit >= 2 x offscreenLimit + 1. In reuse mode children within it are kept (MJianshu's current +- 1 is `offscreenLimit: 1`)."),
            .choice("transitionStyle", \.transitionStyle, .string().oneOfValues(["scroll", "pageCurl"]).default("scroll"),
                    "UIPageViewController's transition style (default `scroll`). `pageCurl`: no scroll stream (its calls are -32003); pages turn by `page.show` or the curl gesture (`page.beginInteractiveCurl` ...), and a turn ends with the leaving page's `viewDidDisappear` before the new page's `viewDidAppear` (docs/pages.md \"Page curl\")."),
        ]
    }
}

/// `page.show`: Shows a page, non-interactively.
enum PageShow: HostMethod {
    static let name = "page.show"
    static let summary = "Shows a page, non-interactively."
    static let description = "The new page begins appearing and the current one disappearing (`willTransition`, `viewWillAppear`, `viewWillDisappear`), then both end (`viewDidAppear`, `viewDidDisappear`, `didTransition`) after `duration` (300 ms of host clock by default) when `animated` (the reply's `phase` is `animating` and `index` still the old page), at once otherwise. A running animation completes first (its end calls are delivered). Showing the current page does nothing. On a session that is not on screen the page changes with no appearance calls. During a drag or deceleration it is -32003 (`data.call: \"page.show\"`, `data.phase`); an index out of range is -32602 (`data.path: \"index\"`); a failing hook of either page's container is -32004: that container is torn down and leaves the session, and the other page's calls still run, balanced. When the new page fails, the session stays on the old page, which appears again if it had begun disappearing, and `didTransition` says `completed: false`; a failure at the end of an animation has no reply to carry it (the container is torn down then, and its `lifecycle` event says `failed: true`). Under `--clock virtual` an animated show reaches `viewDidAppear` only when `clock.advance` moves time `duration` ms on; the reply's `note` says so, with the deadline (docs/virtual-clock.md). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["pages"]
    static let result = ResultSpec("session", .ref(.pageInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .pageStreamOutOfOrder, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var index: Int = 0
        var animated: Bool?
        var duration: Double?

        static let fields: [ParamField<Params>] = [
            .pageSession(\.session),
            .required("index", \.index, .ref(.pageIndex), "The page to show."),
            .optional("animated", \.animated, .boolean().default(true), "Animate the transition (default true)."),
            .duration(\.duration),
        ]
    }
}

/// `page.willBeginDragging`: The user starts dragging (UIScrollViewDelegate's scrollViewWillBeginDragging).
enum PageWillBeginDragging: HostMethod {
    static let name = "page.willBeginDragging"
    static let summary = "The user starts dragging (UIScrollViewDelegate's scrollViewWillBeginDragging)."
    static let description = "At rest (or during a `page.show` animation, which completes first) it starts an interaction: origin = `offset`, no guess yet. While decelerating it continues the same interaction, the origin re-anchored to the page boundary behind the motion (fast repeated swipes). While already dragging, or while the session is not on screen (`data.phase: \"offscreen\"`), it is -32003 with `data.call` and `data.phase`. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["pages"]
    static let result = ResultSpec("state", .ref(.pageStreamState))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .pageStreamOutOfOrder, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var offset: Double = 0

        static let fields: [ParamField<Params>] = [
            .pageSession(\.session),
            .required("offset", \.offset, .ref(.pageOffset), "The offset the drag starts at. Between `-width` and `count * width`."),
        ]
    }
}

/// `page.didScroll`: The offset changed (scrollViewDidScroll).
enum PageDidScroll: HostMethod {
    static let name = "page.didScroll"
    static let summary = "The offset changed (scrollViewDidScroll)."
    static let description = "While dragging: the guess becomes ceil(offset / w) past the origin, floor(offset / w) before it; when it changes to another page in range (not the current one), that page begins appearing (`willTransition`, `viewWillAppear`, created and attached first if needed) and the current page begins disappearing, or the previous guess disappears entirely. Outside a drag the offset is only recorded. Never out of order; an offset out of range is -32602 (`data.path: \"offset\"`); a failing hook of the incoming page's container is -32004. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["pages"]
    static let result = ResultSpec("state", .ref(.pageStreamState))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var offset: Double = 0

        static let fields: [ParamField<Params>] = [
            .pageSession(\.session),
            .required("offset", \.offset, .ref(.pageOffset), "The current offset. Between `-width` and `count * width`."),
        ]
    }
}

/// `page.willEndDragging`: The user lifts the finger (scrollViewWillEndDragging).
enum PageWillEndDragging: HostMethod {
    static let name = "page.willEndDragging"
    static let summary = "The user lifts the finger (scrollViewWillEndDragging)."
    static let description = "Records the offset; `velocity` (points per ms) and `targetOffset` are checked but do not move pages: the session comes to rest on `didEndDragging {willDecelerate: false}` or `didEndDecelerating`. Outside a drag it is -32003 (`data.call`, `data.phase`). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["pages"]
    static let result = ResultSpec("state", .ref(.pageStreamState))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .pageStreamOutOfOrder, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var offset: Double = 0
        var velocity: Double = 0
        var targetOffset: Double?

        static let fields: [ParamField<Params>] = [
            .pageSession(\.session),
            .required("offset", \.offset, .ref(.pageOffset), "The offset where the finger lifts. Between `-width` and `count * width`."),
            .required("velocity", \.velocity, .number(), "Points per ms along the axis (positive: toward higher pages)."),
            .optional("targetOffset", \.targetOffset, .number(), "Where the motion will come to rest, if the caller knows."),
        ]
    }
}

/// `page.didEndDragging`: The drag ended (scrollViewDidEndDragging).
enum PageDidEndDragging: HostMethod {
    static let name = "page.didEndDragging"
    static let summary = "The drag ended (scrollViewDidEndDragging)."
    static let description = "With `willDecelerate: true` the session decelerates (still tracking) until `didEndDecelerating` or a new drag. With false it comes to rest now at round(offset / w) (clamped to the pages): the new page and the old one end their transitions; if it is the old page (cancelled), the old page appears again and the guess disappears (`didTransition` with `completed: false`). Deferred children are released at rest, and in reuse mode pages outside current ± 1 are parked. Outside a drag it is -32003 (`data.call`, `data.phase`). A failing hook is -32004, as for `page.didEndDecelerating`. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["pages"]
    static let result = ResultSpec("state", .ref(.pageStreamState))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .pageStreamOutOfOrder, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var offset: Double = 0
        var willDecelerate: Bool = false

        static let fields: [ParamField<Params>] = [
            .pageSession(\.session),
            .required("offset", \.offset, .ref(.pageOffset), "The offset where the drag ended. Between `-width` and `count * width`."),
            .required("willDecelerate", \.willDecelerate, .boolean(), "Whether the motion continues (deceleration)."),
        ]
    }
}

/// `page.didEndDecelerating`: The deceleration ended (scrollViewDidEndDecelerating).
enum PageDidEndDecelerating: HostMethod {
    static let name = "page.didEndDecelerating"
    static let summary = "The deceleration ended (scrollViewDidEndDecelerating)."
    static let description = "The session comes to rest at round(offset / w), with the rules of `didEndDragging {willDecelerate: false}`. When not decelerating it is -32003 (`data.call`, `data.phase`). A failing hook is -32004: that container is torn down and leaves the session, every other child comes to rest balanced, and the session rests on the page it came to unless that page's container failed (then on the page it left). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["pages"]
    static let result = ResultSpec("state", .ref(.pageStreamState))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .pageStreamOutOfOrder, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var offset: Double = 0

        static let fields: [ParamField<Params>] = [
            .pageSession(\.session),
            .required("offset", \.offset, .ref(.pageOffset), "The resting offset. Between `-width` and `count * width`."),
        ]
    }
}

/// `page.info`: A page session's state.
enum PageInfo: HostMethod {
    static let name = "page.info"
    static let summary = "A page session's state."
    static let description = "Current page, phase, offset, guess, visibility, cache policy, attached children with their appearance states, deferred children and the reuse queues. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["pages"]
    static let result = ResultSpec("session", .ref(.pageInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""

        static let fields: [ParamField<Params>] = [
            .pageSession(\.session),
        ]
    }
}

/// `page.insertPages`: Inserts pages into a page session at rest.
enum PageInsertPages: HostMethod {
    static let name = "page.insertPages"
    static let summary = "Inserts pages (UIPageViewController's data source, ViewPager2's adapter, changing)."
    static let description = "Inserts the `pages` list (a class and data per page), or `count` pages of `class` (with `data`, one value per page), before page `at` (0 to the page count: `at` equal to the count appends). The pages from `at` on move up; the current page keeps its container and stays current (its index moves, and the offset with it). No hook runs; with `offscreenLimit` the neighbours of the current page are preloaded again after the reply. Only at rest: while the session is dragging, decelerating or animating it is -32003 naming the phase. At most 1000000 pages in all. -32602 names the bad field, an unknown class is -32001. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["pages"]
    static let result = ResultSpec("info", .ref(.pageInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownClass, .unknownObject, .invalidState, .unauthorized]

    struct Params: RPCParams {
        var session = ""
        var at = 0
        var className: String?
        var pages: [JSONObject]?
        var count: Int?
        var data: [JSONValue]?

        static let fields: [ParamField<Params>] = [
            .pageSession(\.session),
            .required("at", \.at, .integer().minimum(0), "Where the new pages go: before this page (the page count appends)."),
            .optional("class", \.className, .ref(.className), "The class of every new page (with `count` or `data`)."),
            .optional("pages", \.pages, .array(.ref(.pageSpec)).minItems(1).maxItems(1000000), "One entry per new page, instead of `class`."),
            .optional("count", \.count, .integer().minimum(1).maximum(1000000), "How many pages of `class` (default: `data`'s length)."),
            .optional("data", \.data, .array(.any("Any JSON value.")).maxItems(1000000), "With `class`: business data per new page."),
        ]
    }
}

/// `page.removePages`: Removes pages from a page session at rest.
enum PageRemovePages: HostMethod {
    static let name = "page.removePages"
    static let summary = "Removes pages; removing the current one moves to a neighbour first, as UIKit would."
    static let description = "Removes pages `at ..< at + count` (count default 1). Their children leave the session: brought to rest if needed, then `willMoveToParent(null)`, `didMoveToParent(null)`, `deinit`; the pages after them move down. When the current page is among them the session first moves to its neighbour, the page after the removed ones (else the one before), as a `page.show` that is not animated does: `willTransition`, the new page appears and the old one disappears in UIPageViewController's order, `didTransition`; then the old page goes. A session keeps at least one page (removing all is -32602). Only at rest (-32003 naming the phase otherwise). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds. A failing hook is -32004."
    static let tags = ["pages"]
    static let result = ResultSpec("info", .ref(.pageInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var session = ""
        var at = 0
        var count = 1

        static let fields: [ParamField<Params>] = [
            .pageSession(\.session),
            .required("at", \.at, .ref(.pageIndex), "The first page to remove."),
            .optional("count", \.count, .integer().minimum(1).maximum(1000000).default(1), "How many pages (default 1)."),
        ]
    }
}

/// `page.reloadPage`: Gives a page new data.
enum PageReloadPage: HostMethod {
    static let name = "page.reloadPage"
    static let summary = "Gives a page new data; a page with a child is re-bound with `configure`."
    static let description = "Replaces page `index`'s business data (the session's per-page cache, which a reused or pooled container is configured with). When the page has a child, it is re-bound at once with `configure {data}` (its output is the reply's `output`); a page without one gets the data when it is made. A failing `configure` is -32004: that child is torn down (the current page's leaves the screen, as any failed child). Only at rest (-32003 naming the phase otherwise). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["pages"]
    static let result = ResultSpec("reloaded", .object(nil, [
        "session": .ref(.pageSessionId),
        "index": .ref(.pageIndex),
        "container": .oneOf([.null(), .ref(.containerId)], "The page's child, re-bound; null when it has none."),
        "output": .any("`configure`'s output, when a child was re-bound."),
    ], required: ["session", "index", "container"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var session = ""
        var index = 0
        var data: JSONValue?

        static let fields: [ParamField<Params>] = [
            .pageSession(\.session),
            .required("index", \.index, .ref(.pageIndex), "The page."),
            .value("data", \.data, .any("Any JSON value."), "The page's new business data.", required: true),
        ]
    }
}

/// `page.destroy`: Destroys a page session.
enum PageDestroy: HostMethod {
    static let name = "page.destroy"
    static let summary = "Destroys a page session."
    static let description = "A running animation completes, then every attached child disappears if on screen and is released (`willMoveToParent(null)`, `didMoveToParent(null)`, `deinit`), parked ones too; the session's own container leaves its stack and deinits. Sessions are also destroyed when their connection closes. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["pages"]
    static let result = ResultSpec("destroyed", .object(nil, [
        "session": .ref(.pageSessionId),
        "destroyed": .any().const(true),
    ], required: ["session", "destroyed"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""

        static let fields: [ParamField<Params>] = [
            .pageSession(\.session),
        ]
    }
}

private let curlTail = " Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."

/// `page.beginInteractiveCurl`: The curl gesture begins.
enum PageBeginInteractiveCurl: HostMethod {
    static let name = "page.beginInteractiveCurl"
    static let summary = "A pageCurl session's page-turn gesture begins toward a page."
    static let description = "As `page.show` begins, animated: `willTransition`, the page turned to is made if needed, laid out and gets `viewWillAppear` (`viewIsAppearing`), the current page `viewWillDisappear`. The session's `phase` is `dragging` until `page.finishInteractiveCurl` or `page.cancelInteractiveCurl`; every other call on it but `page.info` and `page.updateInteractiveCurl` is -32003 meanwhile. A scroll session is -32003 (it has the scroll stream); so is a session not on screen, or one with a curl in progress; the current page or an index out of range is -32602 (`data.path: \"index\"`). A running animation completes first. A failing hook is -32004, as for `page.show`." + curlTail
    static let tags = ["pages"]
    static let result = ResultSpec("session", .ref(.pageInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var index: Int = 0

        static let fields: [ParamField<Params>] = [
            .pageSession(\.session),
            .required("index", \.index, .ref(.pageIndex), "The page being turned to."),
        ]
    }
}

/// `page.updateInteractiveCurl`: The curl moves on.
enum PageUpdateInteractiveCurl: HostMethod {
    static let name = "page.updateInteractiveCurl"
    static let summary = "The page-turn gesture moves on: no lifecycle call."
    static let description = "Records how far the curl has gone (0 to 1): it decides how long the finish or the cancel takes. No curl in progress is -32003; a progress outside 0...1 is -32602." + curlTail
    static let tags = ["pages"]
    static let result = ResultSpec("session", .ref(.pageInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var progress: Double = 0

        static let fields: [ParamField<Params>] = [
            .pageSession(\.session),
            .required("progress", \.progress, .number().minimum(0).maximum(1), "How far the curl has gone, 0 to 1."),
        ]
    }
}

/// `page.finishInteractiveCurl`: The curl completes.
enum PageFinishInteractiveCurl: HostMethod {
    static let name = "page.finishInteractiveCurl"
    static let summary = "The page-turn gesture completes."
    static let description = "After the rest of the transition, `duration * (1 - progress)` ms of host clock (at once when that is 0): the page left gets `viewDidDisappear`, then the new page `viewDidAppear` (a curl's order: the reverse of a scroll's), and `didTransition {completed: true}`; the session is on the new page. No curl in progress is -32003. Under `--clock virtual` the end comes only on `clock.advance`; the reply's `note` says so." + curlTail
    static let tags = ["pages"]
    static let result = ResultSpec("session", .ref(.pageInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var session: String = ""
        var duration: Double?

        static let fields: [ParamField<Params>] = [
            .pageSession(\.session),
            .duration(\.duration),
        ]
    }
}

/// `page.cancelInteractiveCurl`: The curl is called off.
enum PageCancelInteractiveCurl: HostMethod {
    static let name = "page.cancelInteractiveCurl"
    static let summary = "The page-turn gesture is called off: the page falls back."
    static let description = "After the way back, `duration * progress` ms of host clock (at once when that is 0): the page being turned to gets `viewWillDisappear`, the current page `viewWillAppear` (`viewIsAppearing`), then the first `viewDidDisappear` and the second `viewDidAppear` (UIKit's cancelled curl; a scroll session's cancelled swipe differs), and `didTransition {completed: false}`; the session stays on its page. No curl in progress is -32003. Under `--clock virtual` the end comes only on `clock.advance`; the reply's `note` says so." + curlTail
    static let tags = ["pages"]
    static let result = ResultSpec("session", .ref(.pageInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    /// The same as the finish's: the session and the duration.
    typealias Params = PageFinishInteractiveCurl.Params
}
