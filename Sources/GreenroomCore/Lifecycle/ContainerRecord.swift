/// Where a container sits.
public enum ContainerParent: Equatable, Sendable {
    case none
    /// In a stack's navigation stack.
    case stack(String)
    /// A child of a page session at an index.
    case page(session: String, index: Int)
    /// Idle in the green room (a prerender pool).
    case greenRoom(String)
    /// A cell of a range session: bound to an item, or parked in its reuse queue.
    case cell(session: String)
    /// Presented (modally) by a stack or by another presented container.
    case presentation(presenter: String)
    /// A child of a tab bar.
    case tabs(String)

    /// The parent's id for containment hooks (nil for none).
    public var id: String? {
        switch self {
        case .none: nil
        case .stack(let s): s
        case .page(let s, _): s
        case .greenRoom(let g): g
        case .cell(let s): s
        case .presentation(let p): p
        case .tabs(let t): t
        }
    }
}

/// One container as Core sees it: identity, appearance state, view state and place. The class-side
/// state (hooks' work) lives with the host, which performs `Lifecycle`'s actions on it.
public final class ContainerRecord {
    public let id: String
    public let className: String
    public internal(set) var appearance = AppearanceMachine() { willSet { journal?.willChange(self) } }
    public internal(set) var viewLoaded = false { willSet { journal?.willChange(self) } }
    /// The size of the last layout; nil before the first.
    public internal(set) var laidOutSize: Size? { willSet { journal?.willChange(self) } }
    public var parent: ContainerParent = .none { willSet { journal?.willChange(self) } }
    /// Who receives its events: a connection id; nil while the host owns it (idle in a pool).
    public var owner: String? { willSet { journal?.willChange(self) } }
    /// True once it has run `deinit`.
    public internal(set) var isDestroyed = false { willSet { journal?.willChange(self) } }
    /// True after a hook failed: no further hook runs but `deinit`.
    public internal(set) var isFailed = false { willSet { journal?.willChange(self) } }
    /// The hooks UIKit sends only to classes that override them (`Hook.isOptional`) that its class asked
    /// for: only these of them run.
    public let optionalHooks: Set<Hook>
    /// The UIKit whose hooks it gets (its host's).
    public let uikit: UIKitGeneration
    /// It joined a stack, or its stack changed size, since its last layout: its next layout pass begins
    /// with the inset hooks it asked for (`viewSafeAreaInsetsDidChange`, `viewLayoutMarginsDidChange`).
    public internal(set) var insetsChanged = false { willSet { journal?.willChange(self) } }

    /// Where its changes are saved during a speculative run (nil: never).
    private let journal: RecordJournal?
    /// The journal run that last saved it.
    var journalRun = 0

    public init(id: String, className: String, owner: String?, optionalHooks: Set<Hook> = [],
                uikit: UIKitGeneration = .current, journal: RecordJournal? = nil) {
        self.id = id
        self.className = className
        self.owner = owner
        self.optionalHooks = optionalHooks
        self.uikit = uikit
        self.journal = journal
    }

    /// Its whole changeable state, for `RecordJournal`.
    struct Saved {
        var appearance: AppearanceMachine, viewLoaded: Bool, laidOutSize: Size?, parent: ContainerParent
        var owner: String?, isDestroyed: Bool, isFailed: Bool, insetsChanged: Bool
    }

    var saved: Saved {
        Saved(appearance: appearance, viewLoaded: viewLoaded, laidOutSize: laidOutSize, parent: parent, owner: owner,
              isDestroyed: isDestroyed, isFailed: isFailed, insetsChanged: insetsChanged)
    }

    func restore(_ s: Saved) {
        appearance = s.appearance
        viewLoaded = s.viewLoaded
        laidOutSize = s.laidOutSize
        parent = s.parent
        owner = s.owner
        isDestroyed = s.isDestroyed
        isFailed = s.isFailed
        insetsChanged = s.insetsChanged
    }

    /// A hook failed outside Core's own sequences (init, configure): only deinit may run now.
    public func markFailed() { isFailed = true }

    public var state: Appearance { appearance.state }
    /// Events about containers in the green room carry `offscreen: true`.
    public var isOffscreen: Bool {
        if case .greenRoom = parent { return true }
        return false
    }
}
