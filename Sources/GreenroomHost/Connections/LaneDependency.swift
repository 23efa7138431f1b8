import GreenroomCore
import GreenroomRPC

/// What a call lane item may touch, and so which items must keep their order. The rule is written down
/// here, once, as sourcekit-lsp's `MessageHandlingDependencyTracker` writes down which LSP messages may
/// overlap: each call is classified by its method's type and params; two items depend on each other
/// when one touches everything or they share a scope. Items that depend on each other run in the order
/// they came; an item that depends on nothing running may start while the others are parked.
enum LaneDependency: Equatable {
    /// Anything: timers, idle passes, teardowns, shutdown, and every call not described more narrowly
    /// (a push, a page, a pool, a reset, the virtual clock...).
    case everything
    /// Only what these scopes name.
    case only(Set<LaneScope>)

    var isEverything: Bool { self == .everything }

    /// Whether an item with this dependency must keep its order with one with `other`.
    func isDependency(of other: LaneDependency) -> Bool {
        switch (self, other) {
        case (.everything, _), (_, .everything): true
        case (.only(let a), .only(let b)): !a.isDisjoint(with: b)
        }
    }
}

/// One thing a lane item touches.
enum LaneScope: Hashable {
    /// A container, by id: calls on it keep their order.
    case container(String)
    /// The code that runs a class's hooks: a plugin (its worker serves one request at a time, so calls
    /// on any of its classes keep their order) or a scripted or built-in class.
    case runner(String)
}

extension Host {
    /// The scope of the code that runs `className`'s hooks.
    func runnerScope(of className: String) -> LaneScope {
        if let plugin = classes[className]?.pluginName { return .runner("plugin:" + plugin) }
        return .runner("class:" + className)
    }

    /// What a deferred line depends on. A call on one standalone container (not in a stack, page, range
    /// or pool), and a call that makes one, touch that container and its class's runner only; anything
    /// else — a batch, a call whose params do not decode, a container that is not there — depends on
    /// everything (it then simply keeps its place, and fails there as it would have).
    func laneDependency(of read: RPCProcessor<HostConnection>.ReadLine, from c: HostConnection) -> LaneDependency {
        guard case .single(.request(let method, _, let raw)) = read, let spec = processor.registry[method],
              let params = try? spec.normalise(raw) else { return .everything }
        func standalone(_ id: String) -> LaneDependency {
            guard let record = containers.containers[id], !record.isDestroyed, record.parent == .none else { return .everything }
            return .only([.container(id), runnerScope(of: record.className)])
        }
        switch method {
        case ContainerCreate.name:
            guard let p = try? ContainerCreate.Params.decode(params), classes[p.className] != nil else { return .everything }
            // The container it makes is new: no other item can name it yet.
            return .only([runnerScope(of: p.className)])
        case ContainerConfigure.name:
            guard let p = try? ContainerConfigure.Params.decode(params) else { return .everything }
            return standalone(p.container)
        case ContainerRelease.name:
            guard let p = try? ContainerRelease.Params.decode(params) else { return .everything }
            return standalone(p.container)
        default:
            return .everything
        }
    }
}
