/// One thing the lifecycle machine asks the host to do.
public enum LifecycleAction: Equatable {
    /// Run `hook` on the container and emit its `lifecycle` event; a failure is an input back
    /// (`Lifecycle.hookFailed`).
    case run(Hook, ContainerRecord, HookContext)
    /// An appearance call the table rejects: no hook runs; the host counts and emits it (with the
    /// container's state, which the call left as it was).
    case unbalanced(ContainerRecord, AppearanceCall, state: Appearance)

    public static func == (a: LifecycleAction, b: LifecycleAction) -> Bool {
        switch (a, b) {
        case let (.run(h1, c1, x1), .run(h2, c2, x2)): h1 == h2 && c1 === c2 && x1 == x2
        case let (.unbalanced(c1, k1, s1), .unbalanced(c2, k2, s2)): c1 === c2 && k1 == k2 && s1 == s2
        default: false
        }
    }
}

/// The actions of one lifecycle input, in order. At most nine (a first appearance loads, begins, is
/// appearing, hears its new insets, lays out and ends), held inline: an input allocates nothing.
public struct LifecycleActions: RandomAccessCollection, Equatable {
    public static let capacity = 9
    // Nine fields rather than an `InlineArray`: copying, building and dropping a list then compiles to
    // plain code for each field, where the array's went through generic value witnesses per element.
    private var a0, a1, a2, a3, a4, a5, a6, a7, a8: LifecycleAction?
    public private(set) var count = 0

    public init() {}

    public init(_ action: LifecycleAction) {
        append(action)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public subscript(i: Int) -> LifecycleAction {
        switch i {
        case 0: a0!
        case 1: a1!
        case 2: a2!
        case 3: a3!
        case 4: a4!
        case 5: a5!
        case 6: a6!
        case 7: a7!
        default: a8!
        }
    }

    mutating func append(_ action: LifecycleAction) {
        assert(count < Self.capacity, "a lifecycle input has at most \(Self.capacity) actions")
        switch count {
        case 0: a0 = action
        case 1: a1 = action
        case 2: a2 = action
        case 3: a3 = action
        case 4: a4 = action
        case 5: a5 = action
        case 6: a6 = action
        case 7: a7 = action
        default: a8 = action
        }
        count += 1
    }

    public static func == (a: LifecycleActions, b: LifecycleActions) -> Bool { a.elementsEqual(b) }
}

/// The list a machine's `perform` step asks for, held apart from the machine (a list is large: the
/// machines stay small to make and return).
final class StepActions {
    var list: LifecycleActions
    init(_ list: LifecycleActions) { self.list = list }
}
