/// Runs background work off the loop thread (libuv's thread pool in the server); `done` runs back on
/// the loop thread.
public protocol WorkScheduler: AnyObject {
    func queue(work: @escaping () -> Void, done: @escaping () -> Void)
}
