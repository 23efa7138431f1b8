/// A window with a navigation stack (docs/lifecycle.md "Stacks"). Only the top container is on screen, and
/// only while the window is shown: a hidden window loads and shows nothing (the prerendering article: rendering
/// depends on the window being shown, not on being on screen).
public final class StackRecord {
    public let id: String
    public internal(set) var size: Size { willSet { journal?.willChange(self) } }
    public internal(set) var isHidden: Bool { willSet { journal?.willChange(self) } }
    /// A presentation over it took its views out of the window (fullScreen, currentContext, custom that
    /// removes them): its top is off screen, and navigations run only their containment calls until the
    /// presentation is dismissed, as on a hidden window.
    public var isCovered = false { willSet { journal?.willChange(self) } }
    /// Its top is on screen: the window is shown and no presentation covers it.
    public var isShown: Bool { !isHidden && !isCovered }
    /// Bottom first. Changed in place (a green room may hold thousands): saved before the change.
    public internal(set) var items: [ContainerRecord] {
        get { _items }
        set {
            journal?.willChange(self)
            _items = newValue
        }
        _modify {
            journal?.willChange(self)
            yield &_items
        }
    }
    private var _items: [ContainerRecord] = []
    public var owner: String? { willSet { journal?.willChange(self) } }
    /// True for the green room's stacks: popping their top does not reveal the one below.
    public let isGreenRoom: Bool
    /// The running push/pop animation: whose end calls are to come, and its timer.
    public internal(set) var transition: (pending: StackTransition, timer: Int)? { willSet { journal?.willChange(self) } }
    /// The interactive pop (the edge-swipe back gesture) in progress, if one is: its top is disappearing
    /// and the one below appearing until it finishes or is cancelled.
    public internal(set) var interactivePop: InteractivePop? { willSet { journal?.willChange(self) } }

    /// Where its changes are saved during a speculative run (nil: never).
    private let journal: RecordJournal?
    /// The journal run that last saved it.
    var journalRun = 0

    public init(id: String, size: Size, hidden: Bool = false, owner: String?, greenRoom: Bool = false,
                journal: RecordJournal? = nil) {
        self.id = id
        self.size = size
        self.isHidden = hidden
        self.owner = owner
        self.isGreenRoom = greenRoom
        self.journal = journal
    }

    /// Its whole changeable state, for `RecordJournal`.
    struct Saved {
        var size: Size, isHidden: Bool, isCovered: Bool, items: [ContainerRecord], owner: String?
        var transition: (pending: StackTransition, timer: Int)?
        var interactivePop: InteractivePop?
    }

    var saved: Saved {
        Saved(size: size, isHidden: isHidden, isCovered: isCovered, items: items, owner: owner, transition: transition, interactivePop: interactivePop)
    }

    func restore(_ s: Saved) {
        size = s.size
        isHidden = s.isHidden
        isCovered = s.isCovered
        _items = s.items
        owner = s.owner
        transition = s.transition
        interactivePop = s.interactivePop
    }

    public var top: ContainerRecord? { items.last }
    public var isAnimating: Bool { transition != nil }
    /// The container below the top (nil: fewer than two).
    public var belowTop: ContainerRecord? { items.count > 1 ? items[items.count - 2] : nil }
    public func contains(_ c: ContainerRecord) -> Bool { items.contains { $0 === c } }
}

/// An interactive pop between its begin and its finish or cancel: the top (disappearing), the one below
/// (appearing), and how far the gesture has gone (0...1).
public struct InteractivePop {
    public let top: ContainerRecord
    public let revealed: ContainerRecord
    public internal(set) var progress: Double
}
