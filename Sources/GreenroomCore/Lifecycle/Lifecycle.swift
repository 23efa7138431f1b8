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

/// A hook failed: the container is failed and must be torn down; nothing else is affected.
public struct ContainerFailure: Error, Equatable, Sendable {
    public let container: String
    public let hook: Hook
    public init(container: String, hook: Hook) {
        self.container = container
        self.hook = hook
    }
}

/// Where a container's layout falls in its first appearance (and in one at a new size).
public enum LayoutOrder: Sendable {
    /// Laid out before `viewWillAppear`: a page session sizes a page's view to the page when it places
    /// the page in its scrolling content, before it forwards the appearance call (docs/pages.md).
    case beforeWillAppear
    /// Laid out after `viewWillAppear`: UINavigationController adds the incoming view to the window
    /// inside the transition, after telling it that it will appear (stacks and the green room).
    case afterWillAppear
}

/// The lifecycle rules of docs/lifecycle.md over `ContainerRecord`s: lazy view loading, layout at a size,
/// the appearance machine, containment, teardown. A machine in the shape of `AppearanceMachine`: each
/// input updates the record and returns the actions the host performs, in order (`perform`); what the
/// hooks did comes back as inputs (`hookFailed`, `didDeinitialize`). It holds no reference to the host:
/// the host walks one list with a `LifecyclePass`.
public struct Lifecycle: Sendable {
    public init() {}

    /// Loads the view if it is not loaded yet (loadView, viewDidLoad), then lays it out at `size`.
    public func loadIfNeeded(_ c: ContainerRecord, size: Size?) -> LifecycleActions {
        var a = LifecycleActions()
        loadIfNeeded(c, size: size, into: &a)
        return a
    }

    /// Lays the view out when its size changes (viewWillLayoutSubviews, viewDidLayoutSubviews).
    public func layout(_ c: ContainerRecord, size: Size) -> LifecycleActions {
        var a = LifecycleActions()
        layout(c, size: size, into: &a)
        return a
    }

    /// begin(appearing:) per the table; appearing loads the view first and lays it out at `size`,
    /// before or after `viewWillAppear` as `layout` says.
    /// A failed or torn-down container gets no appearance call: its teardown ran (or will run) its
    /// last hooks, and a call its failure cut short must not be ended later (that would be unbalanced).
    public func begin(_ c: ContainerRecord, appearing: Bool, animated: Bool, size: Size? = nil,
                      layout: LayoutOrder = .beforeWillAppear) -> LifecycleActions {
        var a = LifecycleActions()
        begin(c, appearing: appearing, animated: animated, size: size, layout: layout, into: &a)
        return a
    }

    public func end(_ c: ContainerRecord, animated: Bool) -> LifecycleActions {
        var a = LifecycleActions()
        end(c, animated: animated, into: &a)
        return a
    }

    /// Brings a container to `disappeared` with balanced calls (nothing to do when it already is).
    public func disappear(_ c: ContainerRecord, animated: Bool = false) -> LifecycleActions {
        var a = LifecycleActions()
        disappear(c, animated: animated, into: &a)
        return a
    }

    /// Brings a container to `appeared` with balanced calls.
    public func appear(_ c: ContainerRecord, animated: Bool = false, size: Size? = nil,
                       layout: LayoutOrder = .beforeWillAppear) -> LifecycleActions {
        var a = LifecycleActions()
        switch c.state {
        case .disappeared, .disappearing:
            begin(c, appearing: true, animated: animated, size: size, layout: layout, into: &a)
            end(c, animated: animated, into: &a)
        case .appearing:
            end(c, animated: animated, into: &a)
        case .appeared:
            if let size { self.layout(c, size: size, into: &a) }
        }
        return a
    }

    /// `viewWillTransition(to:with:)`, for a loaded container whose size is about to change (Apple: "UIKit
    /// calls this method before changing the size of a presented view controller's view"; a view that never
    /// loaded lays out at its size when it does).
    public func willTransition(_ c: ContainerRecord, to size: Size) -> LifecycleActions {
        guard c.viewLoaded, !c.isFailed, !c.isDestroyed, c.optionalHooks.contains(.viewWillTransitionToSize) else { return LifecycleActions() }
        return LifecycleActions(.run(.viewWillTransitionToSize, c, HookContext(size: size)))
    }

    public func willMove(_ c: ContainerRecord, toParent parent: String?) -> LifecycleActions {
        LifecycleActions(.run(.willMoveToParent, c, HookContext(parent: .some(parent))))
    }

    /// The container joins a stack (`true`) or leaves one (`false`): joining, its next layout pass starts
    /// with the inset hooks its class asked for; leaving before that pass, it owes none.
    public func stackMembershipChanged(_ c: ContainerRecord, joined: Bool) {
        guard !c.optionalHooks.isEmpty, c.insetsChanged != joined else { return }
        c.insetsChanged = joined
    }

    /// The stack the container is in changed size: its next layout pass (now, for a shown top) starts with
    /// the inset hooks its class asked for.
    public func stackResized(_ c: ContainerRecord) {
        guard !c.optionalHooks.isEmpty, !c.insetsChanged else { return }
        c.insetsChanged = true
    }

    public func didMove(_ c: ContainerRecord, toParent parent: String?) -> LifecycleActions {
        LifecycleActions(.run(.didMoveToParent, c, HookContext(parent: .some(parent))))
    }

    /// Tears a container down: disappear (balanced) if it is on screen, then deinit. A failed
    /// container skips straight to deinit; deinit runs even when a disappearing hook fails.
    public func teardown(_ c: ContainerRecord) -> LifecycleActions {
        guard !c.isDestroyed else { return LifecycleActions() }
        var a = LifecycleActions()
        if !c.isFailed { disappear(c, animated: false, into: &a) }
        a.append(.run(.deinitialize, c, HookContext()))
        return a
    }

    // MARK: What the hooks did

    /// A hook failed: no hook but deinit runs on the container any more. Returns what the caller of the
    /// failed operation gets (the host tears the container down: `teardown`).
    public func hookFailed(_ c: ContainerRecord, _ hook: Hook) -> ContainerFailure {
        c.isFailed = true
        return ContainerFailure(container: c.id, hook: hook)
    }

    /// Its deinit ran: the container is gone and in no parent. (Its events said where it was until now.)
    public func didDeinitialize(_ c: ContainerRecord) {
        c.isFailed = false
        c.isDestroyed = true
        c.parent = .none
    }

    // MARK: Building the lists

    private func loadIfNeeded(_ c: ContainerRecord, size: Size?, into a: inout LifecycleActions) {
        if !c.viewLoaded {
            a.append(.run(.loadView, c, HookContext()))
            a.append(.run(.viewDidLoad, c, HookContext()))
            c.viewLoaded = true
        }
        if let size { layout(c, size: size, into: &a) }
    }

    private func layout(_ c: ContainerRecord, size: Size, into a: inout LifecycleActions) {
        guard c.viewLoaded else { return }
        if c.insetsChanged {
            // UIKit recomputes the safe area, then the margins that follow it, as the pass begins.
            c.insetsChanged = false
            for hook in [Hook.viewSafeAreaInsetsDidChange, .viewLayoutMarginsDidChange] where c.optionalHooks.contains(hook) {
                a.append(.run(hook, c, HookContext()))
            }
        }
        guard c.laidOutSize != size else { return }
        a.append(.run(.viewWillLayoutSubviews, c, HookContext(size: size)))
        c.laidOutSize = size
        a.append(.run(.viewDidLayoutSubviews, c, HookContext(size: size)))
    }

    private func begin(_ c: ContainerRecord, appearing: Bool, animated: Bool, size: Size?,
                       layout: LayoutOrder = .beforeWillAppear, into a: inout LifecycleActions) {
        guard !c.isFailed, !c.isDestroyed else { return }
        let layoutFirst = layout == .beforeWillAppear
        if appearing { loadIfNeeded(c, size: layoutFirst ? size : nil, into: &a) }
        switch c.appearance.begin(appearing: appearing) {
        case .hook(let h): a.append(.run(h, c, HookContext(animated: animated)))
        case .unbalanced:
            a.append(.unbalanced(c, appearing ? .beginAppearing : .beginDisappearing, state: c.state))
            return
        }
        // Apple: "once each time a view controller's view appears after the viewWillAppear(_:) call", in
        // the same CATransaction, once the view is in the hierarchy: before its own layout pass.
        if appearing, c.uikit.sendsViewIsAppearing { a.append(.run(.viewIsAppearing, c, HookContext(animated: animated))) }
        if appearing, !layoutFirst, let size { self.layout(c, size: size, into: &a) }
    }

    private func end(_ c: ContainerRecord, animated: Bool, into a: inout LifecycleActions) {
        guard !c.isFailed, !c.isDestroyed else { return }
        switch c.appearance.end() {
        case .hook(let h): a.append(.run(h, c, HookContext(animated: animated)))
        case .unbalanced: a.append(.unbalanced(c, .end, state: c.state))
        }
    }

    private func disappear(_ c: ContainerRecord, animated: Bool, into a: inout LifecycleActions) {
        switch c.state {
        case .appearing, .appeared:
            begin(c, appearing: false, animated: animated, size: nil, into: &a)
            end(c, animated: animated, into: &a)
        case .disappearing:
            end(c, animated: animated, into: &a)
        case .disappeared:
            break
        }
    }
}

/// The host performing one list of lifecycle actions, in order: `next(in:)` gives the next action of
/// the list to perform and `ran` takes what came of it. After a failure, or on a container failed or torn
/// down meanwhile, the container's later hooks are skipped but deinit; `failure` is the first failure,
/// for the host to throw once the list is done. The pass holds its place, not the list (a list is large:
/// it is read where it lies).
public struct LifecyclePass {
    private var index = 0
    public private(set) var failure: ContainerFailure?

    public init() {}

    /// The next action of `actions` to perform (nil: the list is done). Give the same list every time.
    public mutating func next(in actions: borrowing LifecycleActions) -> LifecycleAction? {
        while index < actions.count {
            let action = actions[index]
            index += 1
            if case .run(.deinitialize, _, _) = action { return action }
            guard failure == nil else { continue }
            if case .run(let hook, let c, _) = action, c.isFailed || c.isDestroyed {
                failure = ContainerFailure(container: c.id, hook: hook)
                continue
            }
            return action
        }
        return nil
    }

    /// `action` (the last `next`) was performed; `ok` is false when its hook failed. An unbalanced
    /// call's and deinit's outcome change nothing: deinit always ends the container.
    public mutating func ran(_ action: LifecycleAction, ok: Bool) {
        guard case .run(let hook, let c, _) = action else { return }
        if hook == .deinitialize {
            Lifecycle().didDeinitialize(c)
        } else if !ok {
            failure = Lifecycle().hookFailed(c, hook)
        }
    }
}
