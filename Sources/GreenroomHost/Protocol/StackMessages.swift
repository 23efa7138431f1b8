import GreenroomJSON
import GreenroomRPC

/// `stack.create`: Creates a stack: a window with a navigation stack.
enum StackCreate: HostMethod {
    static let name = "stack.create"
    static let summary = "Creates a stack: a window with a navigation stack."
    static let description = "Only the top container is on screen, and only while the window is shown: a hidden stack loads and shows nothing until `stack.setHidden false` (as the article on prerendering view controllers found of UIKit: rendering depends on the window being shown, not on being on screen; docs/pools.md). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["stacks"]
    static let result = ResultSpec("stack", .ref(.stackInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unauthorized]

    struct Params: RPCParams {
        var width: Double = 0
        var height: Double = 0
        var hidden: Bool?

        static let fields: [ParamField<Params>] = [
            .required("width", \.width, .ref(.dimension), "Window width, points."),
            .required("height", \.height, .ref(.dimension), "Window height, points."),
            .optional("hidden", \.hidden, .boolean().default(false), "Start hidden (default false)."),
        ]
    }
}

/// `stack.push`: Pushes a container onto a stack.
enum StackPush: HostMethod {
    static let name = "stack.push"
    static let summary = "Pushes a container onto a stack."
    static let description = "Pushes a container, as UINavigationController does: the container gets `willMoveToParent` and loads if needed (`loadView`, `viewDidLoad`); the old top gets `viewWillDisappear`; the new top `viewWillAppear`, then its layout (`viewWillLayoutSubviews`, `viewDidLayoutSubviews`) at the stack's size when that differs from its last; then the old top's `viewDidDisappear`, the new top's `viewDidAppear` and `didMoveToParent` (after `duration`, 300 ms of host clock by default, when `animated`). A transition still running on the stack completes first. Pushing a container already in this stack is -32003 (UIKit crashes); one in another stack is moved (it disappears there first). On a hidden stack only the containment hooks run. While an interactive pop is in progress on either stack it is -32003. A failing hook is -32004: that container is torn down. Under `--clock virtual` an animated push ends only on `clock.advance`; the reply's `note` says so (docs/virtual-clock.md). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["stacks"]
    static let result = ResultSpec("stack", .ref(.stackInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var stack: String = ""
        var container: String = ""
        var animated: Bool?
        var duration: Double?
        var reply = "now"

        static let fields: [ParamField<Params>] = [
            .stack(\.stack),
            .required("container", \.container, .ref(.containerId), "The container (one of this connection's)."),
            .animated(\.animated),
            .duration(\.duration),
            .choice("reply", \.reply, .string().oneOfValues(["now", "afterAppear"]).default("now"),
                    "`now` (default), or `afterAppear`: the reply waits for the container's `viewDidAppear` (the end of an animated push; under the virtual clock, the `clock.advance` that reaches it) and the stack's info then has `transitionMs`; a container torn down before it appears answers with that failure (-32004). Not in a batch (-32602) nor onto a hidden stack (-32003), where it would wait until the stack is shown."),
        ]
    }
}

/// `stack.pop`: Pops the top container.
enum StackPop: HostMethod {
    static let name = "stack.pop"
    static let summary = "Pops the top container."
    static let description = "Pops the top container, as UINavigationController does: the top gets `willMoveToParent(null)`; the one below loads if it never did; the top gets `viewWillDisappear`, the one below `viewWillAppear` and its layout if its size changed; then the top's `viewDidDisappear`, the one below's `viewDidAppear` and the top's `didMoveToParent(null)` (after `duration`, 300 ms by default, when `animated`). The popped container stays this connection's (release it, or push it again). An empty stack is -32003 and changes nothing (a pop still animating there keeps its time); so is a stack with an interactive pop in progress. Under `--clock virtual` an animated pop ends only on `clock.advance`; the reply's `note` says so (docs/virtual-clock.md). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["stacks"]
    static let result = ResultSpec("popped", .object(nil, [
        "container": .ref(.containerId),
        "stack": .ref(.stackInfo),
        "note": .ref(.virtualClockNote),
    ], required: ["container", "stack"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .unauthorized]

    struct Params: RPCParams {
        var stack: String = ""
        var animated: Bool?
        var duration: Double?

        static let fields: [ParamField<Params>] = [
            .stack(\.stack),
            .animated(\.animated),
            .duration(\.duration),
        ]
    }
}

/// `stack.popToRoot`: Pops every container above the root (UINavigationController's popToRootViewController).
enum StackPopToRoot: HostMethod {
    static let name = "stack.popToRoot"
    static let summary = "Pops every container above the root (UINavigationController's popToRootViewController)."
    static let description = "Every container above the root leaves: each gets `willMoveToParent(null)` first (top first), then only the old top and the root get appearance calls, as in a pop (the old top `viewWillDisappear`, the root loads if it never did and gets `viewWillAppear` and its layout; then the old top's `viewDidDisappear` and the root's `viewDidAppear`), and last each leaving container gets `didMoveToParent(null)` (top first); the ones passed over get no appearance call. With `animated` the end calls come after `duration` (300 ms by default). A stack holding one container or none pops nothing (`containers: []`). The popped containers stay this connection's. A stack with an interactive pop in progress is -32003. Under `--clock virtual` an animated pop ends only on `clock.advance`; the reply's `note` says so. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["stacks"]
    static let result = ResultSpec("popped", .object(nil, [
        "containers": .array(.ref(.containerId), "The containers taken off, bottom first."),
        "stack": .ref(.stackInfo),
        "note": .ref(.virtualClockNote),
    ], required: ["containers", "stack"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var stack: String = ""
        var animated: Bool?
        var duration: Double?

        static let fields: [ParamField<Params>] = [
            .stack(\.stack),
            .animated(\.animated),
            .duration(\.duration),
        ]
    }
}

/// `stack.setContainers`: Replaces a stack's containers (UINavigationController's setViewControllers).
enum StackSetContainers: HostMethod {
    static let name = "stack.setContainers"
    static let summary = "Replaces a stack's containers (UINavigationController's setViewControllers)."
    static let description = "`containers` (bottom first) becomes the stack. Containers kept get no call at all, wherever they move in the list; newcomers join (`willMoveToParent` before the appearance calls, `didMoveToParent` after; one in another stack leaves it first, at once) and containers not in the list leave (`willMoveToParent(null)` before, `didMoveToParent(null)` after, top first). Only a top that changes gets appearance calls: the old top disappears (`viewWillDisappear` ... `viewDidDisappear`) and the new one appears (loading if needed, `viewWillAppear`, its layout, ... `viewDidAppear`), the did-calls after `duration` when `animated`; a new list with the same top gives none. An empty list empties the stack. A container named twice is -32602 naming both places; one that is not this connection's is -32002 (`data.path` names it); a page session's child, or a stack (this one or the newcomer's) with an interactive pop in progress, is -32003. On a hidden stack only the containment hooks run. Under `--clock virtual` an animated change ends only on `clock.advance`; the reply's `note` says so. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["stacks"]
    static let result = ResultSpec("changed", .object(nil, [
        "stack": .ref(.stackInfo),
        "removed": .array(.ref(.containerId), "The containers that left the stack, bottom first; they stay this connection's."),
        "note": .ref(.virtualClockNote),
    ], required: ["stack", "removed"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var stack: String = ""
        var containers: [String] = []
        var animated: Bool?
        var duration: Double?

        static let fields: [ParamField<Params>] = [
            .stack(\.stack),
            .required("containers", \.containers, .array(.ref(.containerId)).maxItems(10000), "The new stack, bottom first: this connection's containers, each once."),
            .animated(\.animated),
            .duration(\.duration),
        ]
    }
}

/// `stack.beginInteractivePop`: Begins an interactive pop (the edge-swipe back gesture).
enum StackBeginInteractivePop: HostMethod {
    static let name = "stack.beginInteractivePop"
    static let summary = "Begins an interactive pop (the edge-swipe back gesture)."
    static let description = "A running transition completes first. The top gets `willMoveToParent(null)`; the one below loads if it never did; the top gets `viewWillDisappear` and the one below `viewWillAppear` and its layout (all `animated: true`). Both stay in the stack until `stack.finishInteractivePop` or `stack.cancelInteractivePop`; meanwhile every other call on the stack (and moving or releasing its containers) is -32003, `stack.info` shows `interactivePop`, and a connection that closes mid-gesture has it cancelled at once before its objects are torn down. A hidden stack, a stack of fewer than two containers, or one whose gesture is already in progress is -32003. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["stacks"]
    static let result = ResultSpec("gesture", .object(nil, [
        "stack": .ref(.stackInfo),
    ], required: ["stack"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var stack: String = ""

        static let fields: [ParamField<Params>] = [
            .stack(\.stack),
        ]
    }
}

/// `stack.updateInteractivePop`: Moves an interactive pop on: no lifecycle call.
enum StackUpdateInteractivePop: HostMethod {
    static let name = "stack.updateInteractivePop"
    static let summary = "Moves an interactive pop on: no lifecycle call."
    static let description = "Records how far the gesture has gone (0 to 1): it decides how long the finish or the cancel takes. No hook runs. A stack with no gesture in progress is -32003; a progress outside 0...1 is -32602. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["stacks"]
    static let result = ResultSpec("gesture", .object(nil, [
        "stack": .ref(.stackInfo),
    ], required: ["stack"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .unauthorized]

    struct Params: RPCParams {
        var stack: String = ""
        var progress: Double = 0

        static let fields: [ParamField<Params>] = [
            .stack(\.stack),
            .required("progress", \.progress, .number().minimum(0).maximum(1), "How far the gesture has gone, 0 to 1."),
        ]
    }
}

/// `stack.finishInteractivePop`: Completes an interactive pop.
enum StackFinishInteractivePop: HostMethod {
    static let name = "stack.finishInteractivePop"
    static let summary = "Completes an interactive pop."
    static let description = "The top is off the stack at once (the reply's `container`; it stays this connection's). After the rest of the transition, `duration * (1 - progress)` ms of host clock (at once when that is 0), the top gets `viewDidDisappear`, the one below `viewDidAppear`, and the top `didMoveToParent(null)`. A stack with no gesture in progress is -32003. Under `--clock virtual` the end comes only on `clock.advance`; the reply's `note` says so. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["stacks"]
    static let result = ResultSpec("popped", .object(nil, [
        "container": .ref(.containerId),
        "stack": .ref(.stackInfo),
        "note": .ref(.virtualClockNote),
    ], required: ["container", "stack"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var stack: String = ""
        var duration: Double?

        static let fields: [ParamField<Params>] = [
            .stack(\.stack),
            .optional("duration", \.duration, .ref(.durationMs), "The whole gesture's duration in ms of host clock (default 300): the rest, `duration * (1 - progress)`, is what is left to run."),
        ]
    }
}

/// `stack.cancelInteractivePop`: Calls an interactive pop off: the stack stays as it was.
enum StackCancelInteractivePop: HostMethod {
    static let name = "stack.cancelInteractivePop"
    static let summary = "Calls an interactive pop off: the stack stays as it was."
    static let description = "After the way back, `duration * progress` ms of host clock (at once when that is 0: UIKit runs a cancelled transition backwards from where the gesture was), UIKit's cancelled order runs: the one below gets `viewWillDisappear` and `viewDidDisappear`, then the top `viewWillAppear` and `viewDidAppear`, and the top `didMoveToParent` with the stack (it had `willMoveToParent(null)` at the begin). A stack with no gesture in progress is -32003. Under `--clock virtual` the end comes only on `clock.advance`; the reply's `note` says so. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["stacks"]
    static let result = ResultSpec("gesture", .object(nil, [
        "stack": .ref(.stackInfo),
        "note": .ref(.virtualClockNote),
    ], required: ["stack"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var stack: String = ""
        var duration: Double?

        static let fields: [ParamField<Params>] = [
            .stack(\.stack),
            .optional("duration", \.duration, .ref(.durationMs), "The whole gesture's duration in ms of host clock (default 300): the way back, `duration * progress`, is what is left to run."),
        ]
    }
}

/// `stack.setHidden`: Shows or hides the window.
enum StackSetHidden: HostMethod {
    static let name = "stack.setHidden"
    static let summary = "Shows or hides the window."
    static let description = "Hiding: the top disappears. Showing: the top loads if needed, gets `viewWillAppear`, lays out at the stack's size and gets `viewDidAppear`. A running transition completes first. While an interactive pop is in progress on the stack (`stack.beginInteractivePop`) it is -32003 naming the gesture. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["stacks"]
    static let result = ResultSpec("stack", .ref(.stackInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .unauthorized]

    struct Params: RPCParams {
        var stack: String = ""
        var hidden: Bool = false

        static let fields: [ParamField<Params>] = [
            .stack(\.stack),
            .required("hidden", \.hidden, .boolean(), "True to hide, false to show."),
        ]
    }
}

/// `stack.resize`: Resizes the window.
enum StackResize: HostMethod {
    static let name = "stack.resize"
    static let summary = "Resizes the window."
    static let description = "UIKit's size transition (docs/lifecycle.md \"Size transitions\"): first `viewWillTransitionToSize {size}` to the top, if it is loaded and the size changes (the ones below are not told: only the top of a navigation controller is), then to each container the stack presents whose size changes, bottom first (a top that a full-screen presentation covers is still told); then the top, when shown, lays out again (`viewWillLayoutSubviews` / `viewDidLayoutSubviews` with the size), and the presented containers on screen at their new sizes; the others lay out when they next appear. A hidden stack changes size silently. A live swipe-down on one of its presentations is -32003. While an interactive pop is in progress on the stack (`stack.beginInteractivePop`) it is -32003 naming the gesture. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["stacks"]
    static let result = ResultSpec("stack", .ref(.stackInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .unauthorized]

    struct Params: RPCParams {
        var stack: String = ""
        var width: Double = 0
        var height: Double = 0

        static let fields: [ParamField<Params>] = [
            .stack(\.stack),
            .required("width", \.width, .ref(.dimension), "New width, points."),
            .required("height", \.height, .ref(.dimension), "New height, points."),
        ]
    }
}

/// `stack.info`: A stack's state.
enum StackInfo: HostMethod {
    static let name = "stack.info"
    static let summary = "A stack's state."
    static let description = "Size, visibility, containers (bottom first), top, animating. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["stacks"]
    static let result = ResultSpec("stack", .ref(.stackInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var stack: String = ""

        static let fields: [ParamField<Params>] = [
            .stack(\.stack),
        ]
    }
}

/// `stack.destroy`: Destroys a stack and its containers.
enum StackDestroy: HostMethod {
    static let name = "stack.destroy"
    static let summary = "Destroys a stack and its containers."
    static let description = "A running transition completes; page sessions whose own container sits in the stack are destroyed (their children disappear and deinit first); then every container, top first, disappears if on screen and deinits. While an interactive pop is in progress on the stack (`stack.beginInteractivePop`) it is -32003 naming the gesture. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["stacks"]
    static let result = ResultSpec("destroyed", .object(nil, [
        "stack": .ref(.stackId),
        "destroyed": .any().const(true),
        "released": .array(.ref(.containerId), "The containers released, top first."),
    ], required: ["stack", "destroyed", "released"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .unauthorized]

    struct Params: RPCParams {
        var stack: String = ""

        static let fields: [ParamField<Params>] = [
            .stack(\.stack),
        ]
    }
}
