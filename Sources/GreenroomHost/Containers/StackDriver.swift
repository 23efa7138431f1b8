import GreenroomCore

/// Runs Core's stack operations for `Containers`, step by step (`StackOperation`): performs each step's
/// lifecycle actions (hooks and events), tears down the containers whose failures are reported, and
/// keeps the animation timers, whose end runs `StackOperation.transitionEnded`.
struct StackDriver {
    unowned let containers: Containers
    /// How long an animated transition runs on the host clock when its call names no `duration`.
    static let defaultDurationMs: Double = 300

    /// Pushes `c` (out of any other parent); a failure of `c`'s hooks is thrown (the caller tears it down).
    func push(_ c: ContainerRecord, onto s: StackRecord, animated: Bool,
              durationMs: Double = defaultDurationMs) async throws(ContainerFailure) {
        if let failure = await run(.push(c, onto: s, animated: animated, animationMs: durationMs)).failure { throw failure }
    }

    /// Pops the top container and returns it (nil: the stack was empty).
    func pop(_ s: StackRecord, animated: Bool, durationMs: Double = defaultDurationMs) async -> ContainerRecord? {
        await run(.pop(s, animated: animated, animationMs: durationMs)).removed.last
    }

    /// Pops every container above the root; returns them, bottom first.
    func popToRoot(_ s: StackRecord, animated: Bool, durationMs: Double) async -> [ContainerRecord] {
        await run(.popToRoot(s, animated: animated, animationMs: durationMs)).removed
    }

    /// Replaces the stack's containers; returns those that left, bottom first.
    func setContainers(_ s: StackRecord, _ list: [ContainerRecord], animated: Bool, durationMs: Double) async -> [ContainerRecord] {
        await run(.setContainers(s, list, animated: animated, animationMs: durationMs)).removed
    }

    func beginInteractivePop(_ s: StackRecord) async { await run(.beginInteractivePop(s)) }

    /// Finishes the interactive pop; returns the container it took off.
    func finishInteractivePop(_ s: StackRecord, durationMs: Double) async -> ContainerRecord? {
        await run(.finishInteractivePop(s, durationMs: durationMs)).removed.last
    }

    func cancelInteractivePop(_ s: StackRecord, durationMs: Double) async { await run(.cancelInteractivePop(s, durationMs: durationMs)) }

    func remove(_ c: ContainerRecord, from s: StackRecord) async { await run(.remove(c, from: s)) }
    func discard(_ c: ContainerRecord, from s: StackRecord) async { await run(.discard(c, from: s)) }
    func setHidden(_ s: StackRecord, _ hidden: Bool) async { await run(.setHidden(s, hidden)) }
    func resize(_ s: StackRecord, to size: Size) async { await run(.resize(s, to: size)) }
    func destroy(_ s: StackRecord) async { await run(.destroy(s)) }
    func completeTransition(_ s: StackRecord) async { await run(.completeTransition(s)) }

    @discardableResult
    private func run(_ operation: consuming StackOperation) async -> (failure: ContainerFailure?, removed: [ContainerRecord]) {
        var op = operation
        var input = StackOperation.Input.start
        while true {
            switch op.next(input) {
            case .perform:
                input = await .performed(containers.failure(performing: op.actions))
            case .report(let failure):
                await containers.deferredFailure(failure)
                input = .resumed
            case .startTimer(let s, let ms):
                let token = containers.schedule(afterMs: ms, label: "\(s.id) transition") { [weak containers, weak s] in
                    guard let containers, let s else { return }
                    await containers.stackOps.run(.transitionEnded(s))
                }
                input = .timerStarted(token)
            case .cancelTimer(let token):
                containers.cancel(token)
                input = .resumed
            case .done(let failure):
                return (failure, op.removed)
            }
        }
    }
}
