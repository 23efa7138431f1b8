/// What the page session still calls while it runs: it is not yet a machine returning steps (as
/// `StackOperation` is), because what it does next depends on whether the lifecycle's actions failed. The host
/// performs those actions as they are made, and keeps time for the animations.
public protocol LifecycleHost: AnyObject {
    /// Performs `actions` in order (as `Lifecycle.perform` does); throws the first hook failure.
    func perform(_ actions: LifecycleActions) throws(ContainerFailure)
    /// Runs `action` after `ms` on the host clock; returns a token for `cancel`.
    func schedule(afterMs ms: Double, _ action: @escaping () -> Void) -> Int
    func cancel(_ token: Int)
}
