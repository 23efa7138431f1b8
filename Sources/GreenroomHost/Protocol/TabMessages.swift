import GreenroomJSON
import GreenroomRPC

private let tail = " Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."

/// `tabs.create`: Creates a tab bar: a window with tabs of containers.
enum TabsCreate: HostMethod {
    static let name = "tabs.create"
    static let summary = "Creates a tab bar (UITabBarController): a window whose tabs are containers, one selected."
    static let description = "Each container (this connection's, in no parent, off screen) gets `willMoveToParent` and `didMoveToParent` with the tab bar, in tab order; then, unless `hidden`, only the selected one loads and appears, not animated: `loadView`, `viewDidLoad`, `viewWillAppear`, `viewIsAppearing`, its layout at the window's size, `viewDidAppear` (docs/lifecycle.md \"Tab bars\"). The others load when first selected. A container listed twice, or `selected` outside the tabs, is -32602." + tail
    static let tags = ["tabs"]
    static let result = ResultSpec("tabs", TabSchemas.info)
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var width: Double = 0
        var height: Double = 0
        var containers: [String] = []
        var selected: Int?
        var hidden: Bool?

        static let fields: [ParamField<Params>] = [
            .required("width", \.width, .ref(.dimension), "Window width, points."),
            .required("height", \.height, .ref(.dimension), "Window height, points."),
            .required("containers", \.containers, .array(.ref(.containerId)).maxItems(64), "The tabs, in order (this connection's containers, each once; at most 64)."),
            .optional("selected", \.selected, .integer().minimum(0).default(0), "The selected tab's index (default 0)."),
            .optional("hidden", \.hidden, .boolean().default(false), "Start hidden (default false): nothing appears until `tabs.setHidden false`."),
        ]
    }
}

/// `tabs.select`: Selects a tab.
enum TabsSelect: HostMethod {
    static let name = "tabs.select"
    static let summary = "Selects a tab: UIKit's tab switch."
    static let description = "On a shown tab bar the newly selected child loads the first time and gets `viewWillAppear`, `viewIsAppearing` and its layout, then the old one `viewWillDisappear` and `viewDidDisappear`, then the new one `viewDidAppear`, all not animated: the new tab's `viewWillAppear` comes before the old tab's `viewWillDisappear`, unlike a push (docs/lifecycle.md \"Tab bars\"). Selecting the selected tab runs nothing. A hidden or covered tab bar changes its selection silently: the new child appears when the window does. An index outside the tabs is -32602." + tail
    static let tags = ["tabs"]
    static let result = ResultSpec("tabs", TabSchemas.info)
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var tabs: String = ""
        var index: Int = 0

        static let fields: [ParamField<Params>] = [
            .required("tabs", \.tabs, TabSchemas.id, "The tab bar (one of this connection's)."),
            .required("index", \.index, .integer().minimum(0), "The tab to select."),
        ]
    }
}

/// `tabs.setContainers`: Replaces the tabs.
enum TabsSetContainers: HostMethod {
    static let name = "tabs.setContainers"
    static let summary = "Replaces the tabs (UITabBarController's setViewControllers)."
    static let description = "Kept children get no containment call. Leaving ones get `willMoveToParent(null)`, joining ones `willMoveToParent` with the tab bar; if the child on screen changes, the tab switch's order runs (or a plain appearance or disappearance when there was, or is, none); then the leaving ones get `didMoveToParent(null)` (they stay this connection's, in no parent) and the joining ones `didMoveToParent`. Without `selected`, the previously selected child stays selected if it is kept, else the same index if there is one, else 0 (Apple's rule). A container listed twice, or `selected` outside the list, is -32602." + tail
    static let tags = ["tabs"]
    static let result = ResultSpec("tabs", TabSchemas.info)
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var tabs: String = ""
        var containers: [String] = []
        var selected: Int?

        static let fields: [ParamField<Params>] = [
            .required("tabs", \.tabs, TabSchemas.id, "The tab bar (one of this connection's)."),
            .required("containers", \.containers, .array(.ref(.containerId)).maxItems(64), "The new tabs, in order."),
            .optional("selected", \.selected, .integer().minimum(0), "The tab to select (default: Apple's reselection rule)."),
        ]
    }
}

/// `tabs.setHidden`: Hides or shows the tab bar's window.
enum TabsSetHidden: HostMethod {
    static let name = "tabs.setHidden"
    static let summary = "Hides or shows the tab bar's window: the selected child disappears or appears."
    static let description = "Not animated. Hiding a tab bar that presents is -32003 (dismiss first)." + tail
    static let tags = ["tabs"]
    static let result = ResultSpec("tabs", TabSchemas.info)
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var tabs: String = ""
        var hidden = false

        static let fields: [ParamField<Params>] = [
            .required("tabs", \.tabs, TabSchemas.id, "The tab bar (one of this connection's)."),
            .required("hidden", \.hidden, .boolean(), "Hide (true) or show (false)."),
        ]
    }
}

/// `tabs.resize`: Resizes the tab bar's window.
enum TabsResize: HostMethod {
    static let name = "tabs.resize"
    static let summary = "Resizes the tab bar's window: UIKit's size transition."
    static let description = "First `viewWillTransitionToSize {size}` to the selected child, if it is loaded and the size changes (the other tabs are not told; they lay out at the new size when next selected), then to each container the tab bar presents whose size changes, bottom first; then the selected child, when shown, lays out again, and the presented containers on screen at their new sizes (docs/lifecycle.md \"Size transitions\"). A hidden tab bar changes size silently. A live swipe-down on one of its presentations is -32003." + tail
    static let tags = ["tabs"]
    static let result = ResultSpec("tabs", TabSchemas.info)
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var tabs: String = ""
        var width: Double = 0
        var height: Double = 0

        static let fields: [ParamField<Params>] = [
            .required("tabs", \.tabs, TabSchemas.id, "The tab bar (one of this connection's)."),
            .required("width", \.width, .ref(.dimension), "New width, points."),
            .required("height", \.height, .ref(.dimension), "New height, points."),
        ]
    }
}

/// `tabs.info`: A tab bar's state.
enum TabsInfo: HostMethod {
    static let name = "tabs.info"
    static let summary = "A tab bar's tabs, selection and window."
    static let description = "Runs nothing." + tail
    static let tags = ["tabs"]
    static let result = ResultSpec("tabs", TabSchemas.info)
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var tabs: String = ""
        static let fields: [ParamField<Params>] = [.required("tabs", \.tabs, TabSchemas.id, "The tab bar (one of this connection's).")]
    }
}

/// `tabs.destroy`: Destroys a tab bar and its children.
enum TabsDestroy: HostMethod {
    static let name = "tabs.destroy"
    static let summary = "Destroys a tab bar: what it presents is dismissed, then every child is torn down."
    static let description = "The selected child disappears if on screen; every child is deinited, in tab order after the selected one (as `stack.destroy` tears its containers down)." + tail
    static let tags = ["tabs"]
    static let result = ResultSpec("destroyed", .object(nil, [
        "tabs": TabSchemas.id,
        "destroyed": .boolean(),
        "released": .array(.ref(.containerId), "The children torn down, in the order they went."),
    ], required: ["tabs", "destroyed", "released"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var tabs: String = ""
        static let fields: [ParamField<Params>] = [.required("tabs", \.tabs, TabSchemas.id, "The tab bar (one of this connection's).")]
    }
}

/// The component schemas of tab bars.
enum TabSchemas {
    enum Name: String {
        case id = "TabsId"
        case info = "TabsInfo"
    }

    static var id: Schema { .ref(named: Name.id.rawValue) }
    static var info: Schema { .ref(named: Name.info.rawValue) }

    static var components: [Component] {
        [
            Component(Name.id.rawValue, .string("Opaque id of a tab bar (`t-N`).").pattern("^t-[1-9][0-9]*$")),
            Component(Name.info.rawValue, .object("A tab bar (docs/lifecycle.md \"Tab bars\").", [
                "tabs": .ref(named: Name.id.rawValue),
                "width": .ref(.dimension),
                "height": .ref(.dimension),
                "hidden": .boolean(),
                "covered": .boolean("A presentation over it removed its views (`fullScreen`, `currentContext`): its selected child is off screen until the dismissal."),
                "containers": .array(.ref(.containerId), "The tabs, in order."),
                "selected": .integer("The selected tab's index (0 when there are none).").minimum(0),
                "selectedContainer": .oneOf([.ref(.containerId), .null()], "The selected child, null when there are no tabs."),
            ], required: ["tabs", "width", "height", "hidden", "covered", "containers", "selected", "selectedContainer"])),
        ]
    }
}
