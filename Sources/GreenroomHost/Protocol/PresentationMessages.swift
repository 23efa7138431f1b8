import GreenroomCore
import GreenroomJSON
import GreenroomRPC

private let tail = " Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."

/// `presentation.present`: Presents a container modally over a stack or a presented container.
enum PresentationPresent: HostMethod {
    static let name = "presentation.present"
    static let summary = "Presents a container modally (UIKit's present(_:animated:)), in a style."
    static let description = "`container` (one of this connection's, in no stack, page, pool or presentation, not on screen) is presented over `presenter`: a stack (its window), a stack's top container (it presents from its window, as UIKit forwards a presentation up to the controller that covers the screen) or a presented container (a chain). The presented container loads (`loadView`, `viewDidLoad`); if the style removes the presenter's views (`fullScreen`, `currentContext`, `custom` with `removesPresenterViews`), the presenter's top gets `viewWillDisappear`; the presented container gets `viewWillAppear`, `viewIsAppearing` and its layout at the presented size; then (after `duration` when `animated`) its `viewDidAppear`, and last the removed presenter's `viewDidDisappear` (docs/lifecycle.md \"Presentations\"). Styles that keep the presenter's views (sheets, the over- styles, custom by default) give the presenter no call. A stack whose views are removed is covered: its navigations run only their containment calls until the dismissal reveals its top. UIKit refuses, with a console warning, to present from a presenter that already presents, while a presentation on it is still running, or whose view is not in the window hierarchy (a hidden stack, a container below a stack's top, a container in no window): each is -32003 with `data.reason` (`alreadyPresenting`, `presentationInProgress`, `notInWindowHierarchy`) and UIKit's warning in `data.warning`, and nothing changes. A running stack transition completes first; a live interactive pop or sheet swipe on the presenter is -32003. A failing hook is -32004: that container is torn down (a presented one is dismissed at once, its presenter revealed). Under `--clock virtual` an animated presentation ends only on `clock.advance`; the reply's `note` says so." + tail
    static let tags = ["presentations"]
    static let result = ResultSpec("presented", .object(nil, [
        "presentation": PresentationSchemas.info,
        "note": .ref(.virtualClockNote),
    ], required: ["presentation"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var presenter: String = ""
        var container: String = ""
        var style = "pageSheet"
        var removesPresenterViews: Bool?
        var animated: Bool?
        var duration: Double?
        var modalInPresentation: Bool?

        static let fields: [ParamField<Params>] = [
            .required("presenter", \.presenter, .oneOf([.ref(.stackId), TabSchemas.id, .ref(.containerId)]), "What presents: a stack or a tab bar (its window), a stack's top or a tab bar's selected container (it presents from its window), or a presented container (one of this connection's)."),
            .required("container", \.container, .ref(.containerId), "The container to present (one of this connection's)."),
            .choice("style", \.style, PresentationSchemas.style.default("pageSheet"), "UIModalPresentationStyle (default `pageSheet`, iOS 13's default).",
                    allowed: PresentationStyle.allCases.map(\.rawValue)),
            .optional("removesPresenterViews", \.removesPresenterViews, .boolean().default(false), "`custom` only (-32602 otherwise): the presentation controller's `shouldRemovePresentersView` (default false, as UIKit's)."),
            .animated(\.animated),
            .duration(\.duration),
            .optional("modalInPresentation", \.modalInPresentation, .boolean().default(false), "`isModalInPresentation`: a swipe-down is refused with a `didAttemptToDismiss` event (default false)."),
        ]
    }
}

/// `presentation.dismiss`: Dismisses a presented container and everything it presents.
enum PresentationDismiss: HostMethod {
    static let name = "presentation.dismiss"
    static let summary = "Dismisses a presented container and everything it presents (UIKit's dismiss(animated:))."
    static let description = "Every container of the chain still on screen gets `viewWillDisappear`, top first (only the top one `animated`: UIKit animates the top-most and simply removes the ones between); if the bottom presentation removed its presenter's views and the presenter is shown, the presenter's top gets `viewWillAppear`, `viewIsAppearing` and its layout if its size changed; then (after `duration` when `animated`) the presenter's `viewDidAppear` and the `viewDidDisappear` calls, top first, and the containers are this connection's again, in no parent. A programmatic dismissal sends no `presentation` event (Apple: the delegate's will/didDismiss are \"not called if the presentation is dismissed programmatically\"). Transitions still running on the chain or its presenter complete first. A container that is not presented, or one whose chain has a live swipe, is -32003. Under `--clock virtual` an animated dismissal ends only on `clock.advance`; the reply's `note` says so." + tail
    static let tags = ["presentations"]
    static let result = ResultSpec("dismissed", .object(nil, [
        "containers": .array(.ref(.containerId), "The dismissed containers, bottom first."),
        "note": .ref(.virtualClockNote),
    ], required: ["containers"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var container: String = ""
        var animated: Bool?
        var duration: Double?

        static let fields: [ParamField<Params>] = [
            .required("container", \.container, .ref(.containerId), "The presented container (one of this connection's)."),
            .animated(\.animated),
            .duration(\.duration),
        ]
    }
}

/// `presentation.beginInteractiveDismiss`: A sheet's swipe-down begins.
enum PresentationBeginInteractiveDismiss: HostMethod {
    static let name = "presentation.beginInteractiveDismiss"
    static let summary = "A sheet's swipe-down begins."
    static let description = "For a `pageSheet` or `formSheet` at the top of its chain (-32003 otherwise). With `modalInPresentation` the swipe is refused: a `presentation` event `didAttemptToDismiss` and nothing else. Otherwise `shouldDismiss`; if `shouldDismiss` is false (the delegate's answer) `didAttemptToDismiss` and nothing else; else `willDismiss` and the sheet's `viewWillDisappear` (animated). A refused swipe stays open (update, finish and cancel answer and do nothing), so a prototype can stream it. While it is live, every other presentation call on the chain is -32003." + tail
    static let tags = ["presentations"]
    static let result = ResultSpec("presentation", PresentationSchemas.info)
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var container: String = ""
        var shouldDismiss: Bool?

        static let fields: [ParamField<Params>] = [
            .required("container", \.container, .ref(.containerId), "The presented sheet."),
            .optional("shouldDismiss", \.shouldDismiss, .boolean().default(true), "What the delegate's `presentationControllerShouldDismiss` answers (default true)."),
        ]
    }
}

/// `presentation.updateInteractiveDismiss`: Moves a sheet's swipe-down on.
enum PresentationUpdateInteractiveDismiss: HostMethod {
    static let name = "presentation.updateInteractiveDismiss"
    static let summary = "Moves a sheet's swipe-down on: no lifecycle call."
    static let description = "Records how far the swipe has gone (0 to 1): it decides how long the finish or the cancel takes. No hook runs. A container with no swipe in progress is -32003; a progress outside 0...1 is -32602." + tail
    static let tags = ["presentations"]
    static let result = ResultSpec("presentation", PresentationSchemas.info)
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .unauthorized]

    struct Params: RPCParams {
        var container: String = ""
        var progress: Double = 0

        static let fields: [ParamField<Params>] = [
            .required("container", \.container, .ref(.containerId), "The presented sheet."),
            .required("progress", \.progress, .number().minimum(0).maximum(1), "How far the swipe has gone, 0 to 1."),
        ]
    }
}

/// `presentation.finishInteractiveDismiss`: Completes a sheet's swipe-down.
enum PresentationFinishInteractiveDismiss: HostMethod {
    static let name = "presentation.finishInteractiveDismiss"
    static let summary = "Completes a sheet's swipe-down."
    static let description = "After the rest of the transition, `duration * (1 - progress)` ms of host clock (at once when that is 0), the sheet gets `viewDidDisappear`, a `presentation` event `didDismiss` follows, and the sheet is this connection's again, in no parent. A refused swipe just ends. A container with no swipe in progress is -32003. Under `--clock virtual` the end comes only on `clock.advance`; the reply's `note` says so." + tail
    static let tags = ["presentations"]
    static let result = ResultSpec("ended", PresentationSchemas.gestureEnd)
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var container: String = ""
        var duration: Double?

        static let fields: [ParamField<Params>] = [
            .required("container", \.container, .ref(.containerId), "The presented sheet."),
            .duration(\.duration),
        ]
    }
}

/// `presentation.cancelInteractiveDismiss`: Calls a sheet's swipe-down off.
enum PresentationCancelInteractiveDismiss: HostMethod {
    static let name = "presentation.cancelInteractiveDismiss"
    static let summary = "Calls a sheet's swipe-down off: the sheet comes back."
    static let description = "After the way back, `duration * progress` ms of host clock (at once when that is 0), the sheet gets `viewWillAppear`, `viewIsAppearing` and `viewDidAppear`: its `viewWillDisappear` stays without a `viewDidDisappear`, as in every cancelled interactive transition of UIKit. No `presentation` event. A refused swipe just ends. A container with no swipe in progress is -32003. Under `--clock virtual` the end comes only on `clock.advance`; the reply's `note` says so." + tail
    static let tags = ["presentations"]
    static let result = ResultSpec("ended", PresentationSchemas.gestureEnd)
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    /// The same as the finish's: the sheet and the duration.
    typealias Params = PresentationFinishInteractiveDismiss.Params
}

/// `presentation.info`: A presented container's presentation.
enum PresentationInfo: HostMethod {
    static let name = "presentation.info"
    static let summary = "A presented container's presentation: its presenter, style, chain and what is running."
    static let description = "A container that is not presented is -32003." + tail
    static let tags = ["presentations"]
    static let result = ResultSpec("presentation", PresentationSchemas.info)
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .unauthorized]

    struct Params: RPCParams {
        var container: String = ""

        static let fields: [ParamField<Params>] = [
            .required("container", \.container, .ref(.containerId), "The presented container (one of this connection's)."),
        ]
    }
}

/// The `presentation` event: the presentation controller's delegate calls.
enum PresentationTopic: RPCEvent {
    static let topic = "presentation"
    static let summary = "A presentation controller's delegate call (UIAdaptivePresentationControllerDelegate)."
    static let description = "`shouldDismiss`, `willDismiss`, `didDismiss` and `didAttemptToDismiss` for a sheet's swipe-down (docs/lifecycle.md \"Presentations\"): begin sends `shouldDismiss` then `willDismiss` (or `didAttemptToDismiss` when refused), a finished swipe `didDismiss` after the sheet's `viewDidDisappear`. A programmatic `presentation.dismiss` sends none. To the container's owner and `scope: \"all\"` observers."
    static let params: Schema = .ref(named: PresentationSchemas.Name.event.rawValue)
}

/// The component schemas of presentations, beside `SchemaName`'s (`GreenroomProtocol` lists them).
enum PresentationSchemas {
    enum Name: String, CaseIterable {
        case info = "PresentationInfo"
        case event = "PresentationEvent"
        case style = "PresentationStyle"
    }

    /// A reference to the style's component (one definition, so generated clients name one type).
    static var style: Schema { .ref(named: Name.style.rawValue) }
    static var info: Schema { .ref(named: Name.info.rawValue) }

    static let gestureEnd: Schema = .object(nil, [
        "presentation": .ref(named: Name.info.rawValue),
        "remainingMs": .number("Host-clock ms until the end calls (0: they ran before the reply).").minimum(0),
        "refused": .boolean("The swipe had been refused: nothing ran."),
        "note": .ref(.virtualClockNote),
    ], required: ["presentation", "remainingMs", "refused"])

    static var components: [Component] {
        [
            Component(Name.style.rawValue, .string("UIModalPresentationStyle (docs/lifecycle.md \"Presentations\").").oneOfValues(PresentationStyle.allCases.map { .string($0.rawValue) })),
            Component(Name.info.rawValue, .object("A presentation (docs/lifecycle.md \"Presentations\"). After a dismissal it describes the presentation as it was, with `dismissed: true`.", [
                "container": .ref(.containerId),
                "presenter": .oneOf([.ref(.stackId), TabSchemas.id, .ref(.containerId)], "What presents it: a stack (the window) or a presented container."),
                "style": style,
                "removesPresenterViews": .boolean("The presenter's views are out of the window while it is up (its top got `viewWillDisappear`/`viewDidDisappear`)."),
                "modalInPresentation": .boolean("`isModalInPresentation`: a swipe-down is refused."),
                "size": .ref(.size),
                "presenting": .oneOf([.ref(.containerId), .null()], "The container it presents in turn, null when none."),
                "animating": .boolean("A transition of this presentation is still running (its end calls are to come)."),
                "interactiveDismiss": .oneOf([.null(), .object(nil, [
                    "progress": .number().minimum(0).maximum(1),
                    "refused": .boolean("Refused (modal in presentation, or the delegate said no): nothing runs at its end."),
                ], required: ["progress", "refused"])], "The swipe-down in progress, null when none."),
                "dismissed": .boolean("It was dismissed (or is being: its end calls may still be to come)."),
            ], required: ["container", "presenter", "style", "removesPresenterViews", "modalInPresentation", "size", "presenting", "animating", "interactiveDismiss", "dismissed"])),
            Component(Name.event.rawValue, .object("A presentation controller's delegate call, for the presented `container`.", [
                "seq": .ref(.eventSeq),
                "t": .ref(.eventTime),
                "cause": .ref(.eventCause),
                "kind": .string().oneOfValues(["shouldDismiss", "willDismiss", "didDismiss", "didAttemptToDismiss"]),
                "container": .ref(.containerId),
                "presenter": .oneOf([.ref(.stackId), TabSchemas.id, .ref(.containerId)], "What presents it."),
            ], required: ["seq", "t", "cause", "kind", "container", "presenter"])),
        ]
    }
}
