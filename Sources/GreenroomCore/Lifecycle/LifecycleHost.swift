/// What the stack and page machines still call while they run: they are not yet machines returning
/// actions, because what they do next depends on whether the lifecycle's actions failed. The host
/// performs those actions as they are made, and keeps time for the animations.
public protocol LifecycleHost: AnyObject {
    /// Performs `actions` in order (as `Lifecycle.perform` does); throws the first hook failure.
    func perform(_ actions: LifecycleActions) throws(ContainerFailure)
    /// Runs `action` after `ms` on the host clock; returns a token for `cancel`.
    func schedule(afterMs ms: Double, _ action: @escaping () -> Void) -> Int
    func cancel(_ token: Int)
}
