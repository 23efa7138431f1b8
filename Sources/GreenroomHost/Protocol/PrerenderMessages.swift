import GreenroomJSON
import GreenroomRPC

/// `showRendered`: Shows a prerendered container (ViewControllerPreRender's showRenderedViewController; docs/pools.md).
enum ShowRendered: HostMethod {
    static let name = "showRendered"
    static let summary = "Shows a prerendered container (ViewControllerPreRender's showRenderedViewController; docs/pools.md)."
    static let description = "Takes a warm container of `class`: from its pool at the stack's size, else from the first of its pools (in the order they were made) that holds one, whatever its size (pushed to a stack of another size, it lays out there: `viewWillLayoutSubviews`/`viewDidLayoutSubviews` with the stack's size, no second load). With none anywhere it is a miss, counted by the pool at the stack's size (without `stack`: the class's first pool; made at the stack's size, or 375x667, when there is none). Hit: the warm container (the green room's top) leaves the green room (`willMoveToParent(null)`, `viewWillDisappear`, `viewDidDisappear`, `didMoveToParent(null)`, all `offscreen: true`; the idle container it uncovers, if any, appears again offscreen, `viewWillAppear`/`viewDidAppear`, as in any stack, so the next hit leaves from on screen too), becomes this connection's and is pushed to `stack` if given, in UINavigationController's order (see `stack.push`) with no `loadView`/`viewDidLoad`; `warm: true`. Miss: a fresh container (`init`), pushed to `stack` if given; `warm: false`. After either, a `lazy` pool schedules one warm-up (after a miss: for next time; after a hit: the replacement, as the prerendering article's library does; none past `depth`, none after a hit during a memory warning's cool-down) and an `eager` pool refills to its depth. `data`, when given, is then bound with `configure` (its output is the reply's `output`); with `present: \"onSuccess\"` it is bound first instead, in the green room (a miss loads there), and only a container whose `configure` succeeded is handed over and pushed. `reply: \"afterAppear\"` holds the reply until the container's `viewDidAppear`. Replacement warming runs after the reply is written, as idle tasks in `default` mode (with a virtual clock: on `tasks.drain`). A failing hook is -32004: that container is torn down. Under `--clock virtual` the warm-ups wait for `tasks.drain` (the pool stays cold until then) and an animated push ends only on `clock.advance`: the reply's `note` says which (docs/virtual-clock.md). A `stack` whose interactive pop is in progress is -32003, before anything is taken or made. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["prerender"]
    static let result = ResultSpec("shown", .object(nil, [
        "container": .ref(.containerId),
        "class": .ref(.className),
        "warm": .boolean("True for a hit (a prerendered container)."),
        "output": .any("`configure`'s output; present when `data` was given."),
        "transitionMs": .number("With `reply: \"afterAppear\"`: host-clock ms from the request to the container's `viewDidAppear`.").minimum(0),
        "presentation": .allOf([PresentationSchemas.info], "With `present: {presenter, ...}`: the presentation it was shown in."),
        "note": .ref(.virtualClockNote),
    ], required: ["container", "class", "warm"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownClass, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var className: String = ""
        var stack: String?
        var animated: Bool?
        var data: JSONValue?
        var duration: Double?
        var present: JSONValue?
        var reply = "now"

        static let fields: [ParamField<Params>] = [
            .required("class", \.className, .ref(.className), "The class to show."),
            .optional("stack", \.stack, .ref(.stackId), "Push the container onto this stack (one of this connection's)."),
            .optional("animated", \.animated, .boolean().default(false), "Animate the push onto `stack`: the did-hooks run after `duration` ms of host clock (default false)."),
            .value("data", \.data, .any("Any JSON value."), "Business data for `configure`: after the push, or (with `present: \"onSuccess\"`) before it, offscreen."),
            .duration(\.duration),
            .value("present", \.present, .oneOf([
                .string().oneOfValues(["now", "onSuccess"]).default("now"),
                .object("Present it modally instead of pushing it (`presentation.present`, docs/lifecycle.md \"Presentations\"): over `presenter` in `style`, animated as `animated` says, for `duration`.", [
                    "presenter": .oneOf([.ref(.stackId), TabSchemas.id, .ref(.containerId)], "What presents it: a stack or a tab bar, its top or selected container, or a presented container (this connection's)."),
                    "style": PresentationSchemas.style.default("pageSheet"),
                    "modalInPresentation": .boolean("`isModalInPresentation` (default false).").default(false),
                    "removesPresenterViews": .boolean("`custom` only (default false).").default(false),
                ], required: ["presenter"], additionalProperties: false),
            ]), "`now` (default): the container is pushed, then configured with `data`. `onSuccess` (the prerendering article's passive pop-up): it is configured with `data` in the green room, offscreen, first, and presented only if that succeeded; otherwise nothing reaches the stack and the reply is -32004 naming the hook. Needs `data`. `{presenter, style?, modalInPresentation?, removesPresenterViews?}`: instead of a push, the container (warm or not) is presented over `presenter`, in UIKit's order for its style (not with `stack`, -32602); a presentation UIKit refuses (the presenter already presents, or is not on screen) is -32003 before anything leaves the pool; then configured with `data`; the reply has `presentation`."),
            .choice("reply", \.reply, .string().oneOfValues(["now", "afterAppear"]).default("now"),
                    "`now` (default), or `afterAppear`: the reply waits for the container's `viewDidAppear` (the end of an animated push; under the virtual clock, the `clock.advance` that reaches it) and says `transitionMs`, as the article's completion block runs after the transition; a container torn down before it appears answers with that failure (-32004). Needs `stack` (-32602); not in a batch (-32602) nor onto a hidden stack (-32003)."),
        ]
    }
}

/// `pool.configure`: Configures the pool of a class at a size.
enum PoolConfigure: HostMethod {
    static let name = "pool.configure"
    static let summary = "Configures the pool of a class at a size."
    static let description = "Creates the pool if needed and sets its depth and policy. An `eager` pool queues warm-ups up to `depth` (idle tasks, after the reply); shrinking releases the surplus idle containers at once. `width` and `height` go together (default 375x667). Pools are host-wide. Under `--clock virtual` an eager pool's warm-ups wait for `tasks.drain`, and the reply's `note` says so (docs/virtual-clock.md). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["prerender"]
    static let result = ResultSpec("pool", .ref(.poolStatus))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownClass, .unauthorized]

    struct Params: RPCParams {
        var className: String = ""
        var depth: Int?
        var width: Double?
        var height: Double?
        var policy = "lazy"

        static let fields: [ParamField<Params>] = [
            .required("class", \.className, .ref(.className), "The pool's class."),
            .optional("depth", \.depth, .integer().minimum(0).maximum(100000).default(1), "Idle containers to aim for (default 1)."),
            .optional("width", \.width, .ref(.dimension), "The pool's width (with `height`; default 375)."),
            .optional("height", \.height, .ref(.dimension), "The pool's height (with `width`; default 667)."),
            .choice("policy", \.policy, .allOf([
                .ref(.poolPolicy),
            ]).default("lazy"), "Refill policy (default `lazy`).", allowed: SchemaName.poolPolicy.schema.enumStrings),
        ]
    }
}

/// `pool.warm`: Queues warm-ups.
enum PoolWarm: HostMethod {
    static let name = "pool.warm"
    static let summary = "Queues warm-ups."
    static let description = "Queues `count` warm-ups (default: what the pool lacks to reach its depth, at least 1) as idle tasks in `default` mode; they run after the reply (with a virtual clock: on `tasks.drain`). Each creates a container and pushes it into the green room: `init`, `loadView`, `viewDidLoad`, layout, `viewWillAppear`, `viewDidAppear`, all `offscreen: true`; then a `pool` event `warmed`. Explicit demand: it works during a cool-down too. Under `--clock virtual` the reply's `note` says that the warm-ups wait for `tasks.drain` (docs/virtual-clock.md). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["prerender"]
    static let result = ResultSpec("queued", .object(nil, [
        "class": .ref(.className),
        "queued": .integer().minimum(0),
        "pool": .ref(.poolStatus),
        "note": .ref(.virtualClockNote),
    ], required: ["class", "queued", "pool"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownClass, .unauthorized]

    struct Params: RPCParams {
        var className: String = ""
        var count: Int?
        var width: Double?
        var height: Double?

        static let fields: [ParamField<Params>] = [
            .required("class", \.className, .ref(.className), "The pool's class."),
            .optional("count", \.count, .integer().minimum(0).maximum(100000), "Warm-ups to queue."),
            .optional("width", \.width, .ref(.dimension), "The pool's width (with `height`; default 375)."),
            .optional("height", \.height, .ref(.dimension), "The pool's height (with `width`; default 667)."),
        ]
    }
}

/// `pool.status`: The prerender pools.
enum PoolStatus: HostMethod {
    static let name = "pool.status"
    static let summary = "The prerender pools."
    static let description = "Every pool (or those of `class`), in creation order. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["prerender"]
    static let result = ResultSpec("pools", .object(nil, [
        "pools": .array(.ref(.poolStatus)),
    ], required: ["pools"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownClass, .unauthorized]

    struct Params: RPCParams {
        var className: String?

        static let fields: [ParamField<Params>] = [
            .optional("class", \.className, .ref(.className), "Only this class's pools."),
        ]
    }
}

/// `pool.purge`: Releases idle pooled containers.
enum PoolPurge: HostMethod {
    static let name = "pool.purge"
    static let summary = "Releases idle pooled containers."
    static let description = "Every idle container of every pool (or of `class`'s pools) disappears (offscreen) and deinits; its memory is really freed. One `pool` event `purged` per pool. Unlike a memory warning, no cool-down follows. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["prerender"]
    static let result = ResultSpec("purged", .object(nil, [
        "purged": .integer("Containers released.").minimum(0),
        "bytes": .integer("Bytes they held.").minimum(0),
    ], required: ["purged", "bytes"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownClass, .unauthorized]

    struct Params: RPCParams {
        var className: String?

        static let fields: [ParamField<Params>] = [
            .optional("class", \.className, .ref(.className), "Only this class's pools."),
        ]
    }
}
