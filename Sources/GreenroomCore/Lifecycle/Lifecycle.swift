/// Details of one hook run, for the event the host emits.
public struct HookContext: Sendable, Equatable {
    public var animated: Bool?
    public var size: Size?
    /// For containment hooks: the new parent id, or nil for "no parent".
    public var parent: String??
    public init(animated: Bool? = nil, size: Size? = nil, parent: String?? = nil) {
        self.animated = animated
        self.size = size
        self.parent = parent
    }
}

/// What Core asks of the host: run hooks (and emit their events), report unbalanced calls, and keep
/// time. Core decides which hooks run and in what order; the host does the work.
public protocol LifecycleDelegate: AnyObject {
    /// Runs `hook` on `container` and emits its `lifecycle` event. Returns false when the hook failed.
    func perform(_ hook: Hook, on container: ContainerRecord, _ context: HookContext) -> Bool
    /// An appearance call the state table rejects (`begin` or `end`); counted and emitted.
    func unbalanced(_ container: ContainerRecord, call: AppearanceCall)
    /// Runs `action` after `ms` on the host clock; returns a token for `cancel`.
    func schedule(afterMs ms: Double, _ action: @escaping () -> Void) -> Int
    func cancel(_ token: Int)
}

/// A hook failed: the container is failed and must be torn down; nothing else is affected.
public struct ContainerFailure: Error, Equatable, Sendable {
    public let container: String
    public let hook: Hook
    public init(container: String, hook: Hook) {
        self.container = container
        self.hook = hook
    }
}

/// The lifecycle rules of docs/lifecycle.md over `ContainerRecord`s: lazy view loading, layout at a size,
/// the appearance machine, containment, teardown.
public struct Lifecycle {
    public unowned let delegate: LifecycleDelegate

    public init(delegate: LifecycleDelegate) { self.delegate = delegate }

    @inline(__always)
    func run(_ hook: Hook, _ c: ContainerRecord, _ context: HookContext = HookContext()) throws(ContainerFailure) {
        guard !c.isFailed, !c.isDestroyed else { throw ContainerFailure(container: c.id, hook: hook) }
        if !delegate.perform(hook, on: c, context) {
            c.isFailed = true
            throw ContainerFailure(container: c.id, hook: hook)
        }
    }

    /// Loads the view if it is not loaded yet (loadView, viewDidLoad), then lays it out at `size`.
    public func loadIfNeeded(_ c: ContainerRecord, size: Size?) throws(ContainerFailure) {
        if !c.viewLoaded {
            try run(.loadView, c)
            try run(.viewDidLoad, c)
            c.viewLoaded = true
        }
        if let size { try layout(c, size: size) }
    }

    /// Lays the view out when its size changes (viewWillLayoutSubviews, viewDidLayoutSubviews).
    public func layout(_ c: ContainerRecord, size: Size) throws(ContainerFailure) {
        guard c.viewLoaded, c.laidOutSize != size else { return }
        try run(.viewWillLayoutSubviews, c, HookContext(size: size))
        c.laidOutSize = size
        try run(.viewDidLayoutSubviews, c, HookContext(size: size))
    }

    /// begin(appearing:) per the table; appearing loads the view first (at `size`).
    /// A failed or torn-down container gets no appearance call: its teardown ran (or will run) its
    /// last hooks, and a call its failure cut short must not be ended later (that would be unbalanced).
    public func begin(_ c: ContainerRecord, appearing: Bool, animated: Bool, size: Size? = nil) throws(ContainerFailure) {
        guard !c.isFailed, !c.isDestroyed else { return }
        if appearing { try loadIfNeeded(c, size: size) }
        switch c.appearance.begin(appearing: appearing) {
        case .hook(let h): try run(h, c, HookContext(animated: animated))
        case .unbalanced: delegate.unbalanced(c, call: appearing ? .beginAppearing : .beginDisappearing)
        }
    }

    public func end(_ c: ContainerRecord, animated: Bool) throws(ContainerFailure) {
        guard !c.isFailed, !c.isDestroyed else { return }
        switch c.appearance.end() {
        case .hook(let h): try run(h, c, HookContext(animated: animated))
        case .unbalanced: delegate.unbalanced(c, call: .end)
        }
    }

    /// Brings a container to `disappeared` with balanced calls (nothing to do when it already is).
    public func disappear(_ c: ContainerRecord, animated: Bool = false) throws(ContainerFailure) {
        switch c.state {
        case .appearing, .appeared:
            try begin(c, appearing: false, animated: animated)
            try end(c, animated: animated)
        case .disappearing:
            try end(c, animated: animated)
        case .disappeared:
            break
        }
    }

    /// Brings a container to `appeared` with balanced calls.
    public func appear(_ c: ContainerRecord, animated: Bool = false, size: Size? = nil) throws(ContainerFailure) {
        switch c.state {
        case .disappeared, .disappearing:
            try begin(c, appearing: true, animated: animated, size: size)
            try end(c, animated: animated)
        case .appearing:
            try end(c, animated: animated)
        case .appeared:
            if let size { try layout(c, size: size) }
        }
    }

    public func willMove(_ c: ContainerRecord, toParent parent: String?) throws(ContainerFailure) {
        try run(.willMoveToParent, c, HookContext(parent: .some(parent)))
    }

    public func didMove(_ c: ContainerRecord, toParent parent: String?) throws(ContainerFailure) {
        try run(.didMoveToParent, c, HookContext(parent: .some(parent)))
    }

    /// Tears a container down: disappear (balanced) if it is on screen, then deinit. A failed
    /// container skips straight to deinit. Never throws: teardown always completes.
    public func teardown(_ c: ContainerRecord) {
        guard !c.isDestroyed else { return }
        if !c.isFailed { try? disappear(c) }
        c.isFailed = false  // deinit always runs, even after a failure
        _ = delegate.perform(.deinitialize, on: c, HookContext())
        c.isDestroyed = true
        c.parent = .none
    }
}
