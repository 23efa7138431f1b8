@testable import GreenroomCore

/// How the step tests of Core's machines read and answer a perform step.
extension LifecycleActions {
    /// The list in words: "a:willMoveToParent,a:loadView", an unbalanced call as "a:unbalanced end".
    var words: String {
        map { action -> String in
            switch action {
            case .run(let hook, let c, _): "\(c.id):\(hook.rawValue)"
            case .unbalanced(let c, let call, _): "\(c.id):unbalanced \(call)"
            }
        }.joined(separator: ",")
    }

    /// Performs the list as a host would, every hook succeeding but those in `failing` ("a:viewDidLoad");
    /// returns the first that failed, the answer the machine takes back.
    func failure(failing: Set<String>) -> ContainerFailure? {
        var failure: ContainerFailure?
        var pass = LifecyclePass()
        while let action = pass.next(in: self) {
            guard case .run(let hook, let c, _) = action else { continue }
            let ok = !failing.contains("\(c.id):\(hook.rawValue)")
            if !ok, failure == nil { failure = ContainerFailure(container: c.id, hook: hook) }
            pass.ran(action, ok: ok)
        }
        return failure
    }
}
