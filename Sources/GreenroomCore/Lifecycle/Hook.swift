/// The hooks a container runs, in UIKit's names. Each hook that runs is one `lifecycle` event.
public enum Hook: String, Sendable, CaseIterable {
    case initialize = "init"
    case loadView
    case viewDidLoad
    case viewWillAppear
    /// Right after `viewWillAppear`, on every appearance (also one that a cancelled transition later takes
    /// back), before the container's own layout and `viewDidAppear`: UIKit 17's hook, back-deployed to iOS
    /// 13. Only containers of a host that models that UIKit get it (`UIKitGeneration`).
    case viewIsAppearing
    case viewDidAppear
    case viewWillDisappear
    case viewDidDisappear
    case viewWillLayoutSubviews
    case viewDidLayoutSubviews
    /// The root view's safe area insets changed: sent, to a class that asks for it, at the start of the
    /// layout pass after the container joins a stack or its stack is resized (docs/lifecycle.md).
    case viewSafeAreaInsetsDidChange
    /// The root view's layout margins changed (they follow the safe area): right after
    /// `viewSafeAreaInsetsDidChange`, under the same rule.
    case viewLayoutMarginsDidChange
    /// `viewWillTransition(to:with:)`: the view's size is about to change (a window resized or rotated),
    /// before the layout at the new size; to loaded containers whose size changes, parents first. Optional:
    /// only classes that ask for it get it.
    case viewWillTransitionToSize
    case configure
    case didReceiveMemoryWarning
    case willMoveToParent
    case didMoveToParent
    case deinitialize = "deinit"

    /// Hooks a class receives only when it asks for them (a scripted class lists them in `hooks`, a plugin
    /// class in `optional_hooks`): UIKit sends them to every controller, but a stream with them for every
    /// container would bury the appearance calls that tests compare.
    /// `viewWillTransitionToSize` is one of them: classes written before it existed (and transcripts recorded
    /// then) see the same stream on a resize.
    public static let optional: Set<Hook> = [.viewSafeAreaInsetsDidChange, .viewLayoutMarginsDidChange, .viewWillTransitionToSize]
}

/// The UIKit a host models: what differs between them is which hooks a container gets. A host's
/// transcripts say which they were recorded with, so that a recording made before a hook existed still
/// replays.
public enum UIKitGeneration: Int, Sendable, Comparable, CaseIterable {
    /// iOS 16 and earlier: no `viewIsAppearing`.
    case ios16 = 16
    /// iOS 17 and later (the default): `viewIsAppearing` after every `viewWillAppear`.
    case ios17 = 17

    /// What a host models unless told otherwise.
    public static let current = UIKitGeneration.ios17

    public static func < (a: UIKitGeneration, b: UIKitGeneration) -> Bool { a.rawValue < b.rawValue }

    /// Whether containers get `viewIsAppearing`.
    public var sendsViewIsAppearing: Bool { self >= .ios17 }
}

/// A size in points.
public struct Size: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
    public var description: String { "\(width)x\(height)" }
}
