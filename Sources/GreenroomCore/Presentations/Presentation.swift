/// UIKit's modal presentation styles (`UIModalPresentationStyle`), and what each does to the presenter
/// (docs/lifecycle.md "Presentations").
public enum PresentationStyle: String, CaseIterable, Sendable {
    case pageSheet, formSheet, fullScreen, overFullScreen, currentContext, overCurrentContext, custom

    /// A sheet: it can be swiped down (`presentation.beginInteractiveDismiss`).
    public var isSheet: Bool { self == .pageSheet || self == .formSheet }

    /// Sized to the presenter (the current context) rather than to the window.
    public var isContext: Bool { self == .currentContext || self == .overCurrentContext }

    /// Whether UIKit takes the presenter's views out of the window once the presentation completes, so that
    /// the presenter gets `viewWillDisappear`/`viewDidDisappear` on present and the appearance calls back on
    /// dismiss. Apple: fullScreen and currentContext "The views belonging to the presenting view controller
    /// are removed after the presentation completes"; overFullScreen and overCurrentContext "are not
    /// removed"; sheets since iOS 13 leave the presenter in place; custom only when its presentation
    /// controller's `shouldRemovePresentersView` is true ("The default implementation of this method returns
    /// false").
    public func removesPresenterViews(custom removes: Bool?) -> Bool {
        switch self {
        case .fullScreen, .currentContext: true
        case .overFullScreen, .overCurrentContext, .pageSheet, .formSheet: false
        case .custom: removes ?? false
        }
    }
}

/// What presents: a window, a stack or a tab bar (a container in one presents from its window's root, as
/// UIKit forwards a presentation up to the controller that covers the screen), or a presented container
/// (a chain).
public enum Presenter {
    case stack(StackRecord)
    case tabs(TabsRecord)
    case container(ContainerRecord)

    public var id: String {
        switch self {
        case .stack(let s): s.id
        case .tabs(let t): t.id
        case .container(let c): c.id
        }
    }
}

/// One presentation: `presented` over `presenter`, in `style`, until it is dismissed.
public final class PresentationRecord {
    public let presented: ContainerRecord
    public let presenter: Presenter
    public let style: PresentationStyle
    /// The presenter's views leave the window while this presentation is up.
    public let removesPresenterViews: Bool
    /// `isModalInPresentation`: the sheet's swipe-down is refused (`didAttemptToDismiss`).
    public let isModalInPresentation: Bool
    /// The size the presented container is laid out at (it follows its window's size).
    public var size: Size
    /// What the presented container itself presents (the next link of the chain), if anything.
    public var presenting: PresentationRecord?
    /// The transition still running (its end calls to come) and its timer (0: none).
    public var transition: (pending: PresentationTransition, timer: Int)?
    /// The sheet's swipe-down between its begin and its finish or cancel.
    public var gesture: SheetGesture?
    /// It was dismissed (its end calls may still be to come).
    public var isDismissed = false

    public init(presented: ContainerRecord, presenter: Presenter, style: PresentationStyle, removesPresenterViews: Bool,
                modalInPresentation: Bool, size: Size) {
        self.presented = presented
        self.presenter = presenter
        self.style = style
        self.removesPresenterViews = removesPresenterViews
        self.isModalInPresentation = modalInPresentation
        self.size = size
    }

    /// This presentation and every one above it, bottom first.
    public var chain: [PresentationRecord] {
        var out = [self]
        while let next = out.last?.presenting { out.append(next) }
        return out
    }
}

/// A sheet's swipe-down in progress: how far it has gone, and whether it was refused (isModalInPresentation,
/// or the delegate said no): a refused gesture stays open so that a prototype can stream it to its end, but
/// runs nothing.
public struct SheetGesture: Sendable {
    public var progress: Double
    public let refused: Bool
    public init(progress: Double = 0, refused: Bool) {
        self.progress = progress
        self.refused = refused
    }
}

/// A presentation's transition whose end calls are still to come.
public enum PresentationTransition {
    /// Present: the presented container's `viewDidAppear`, then the removed presenter's `viewDidDisappear`.
    case present(removed: [ContainerRecord], animated: Bool)
    /// Dismiss: the revealed presenter's `viewDidAppear`, then each dismissed container's
    /// `viewDidDisappear` (top first; only the top's animated), and the chain is taken down.
    case dismiss(revealed: [ContainerRecord], dismissed: [(ContainerRecord, animated: Bool)], animated: Bool)
    /// A finished swipe-down: `viewDidDisappear`, `didDismiss`, and the presentation is taken down.
    case finishSwipe
    /// A cancelled swipe-down: `viewWillAppear` (`viewIsAppearing`), `viewDidAppear`.
    case cancelSwipe
}
