import Testing
@testable import GreenroomCore

/// Every cell of docs/lifecycle.md's table: state x input -> (new state, hook) or unbalanced.
@Suite struct AppearanceMachineTests {
    enum Input: CaseIterable { case beginTrue, beginFalse, end }

    static let table: [(Appearance, Input, Appearance?, Hook?)] = [
        (.disappeared, .beginTrue, .appearing, .viewWillAppear),
        (.disappeared, .beginFalse, nil, nil),
        (.disappeared, .end, nil, nil),
        (.appearing, .beginTrue, nil, nil),
        (.appearing, .beginFalse, .disappearing, .viewWillDisappear),
        (.appearing, .end, .appeared, .viewDidAppear),
        (.appeared, .beginTrue, nil, nil),
        (.appeared, .beginFalse, .disappearing, .viewWillDisappear),
        (.appeared, .end, nil, nil),
        (.disappearing, .beginTrue, .appearing, .viewWillAppear),
        (.disappearing, .beginFalse, nil, nil),
        (.disappearing, .end, .disappeared, .viewDidDisappear),
    ]

    @Test(arguments: 0..<12)
    func cell(_ i: Int) {
        let (from, input, to, hook) = Self.table[i]
        var m = AppearanceMachine(state: from)
        let outcome: AppearanceMachine.Outcome
        switch input {
        case .beginTrue: outcome = m.begin(appearing: true)
        case .beginFalse: outcome = m.begin(appearing: false)
        case .end: outcome = m.end()
        }
        if let to, let hook {
            #expect(outcome == .hook(hook))
            #expect(m.state == to)
        } else {
            #expect(outcome == .unbalanced, "\(from) \(input) is unbalanced")
            #expect(m.state == from, "an unbalanced call changes nothing")
        }
    }

    @Test func tableCoversEveryCell() {
        #expect(Set(Self.table.map { "\($0.0)-\($0.1)" }).count == Appearance.allCases.count * Input.allCases.count)
    }
}

/// Performs lifecycle actions by recording hooks as "c-1:viewWillAppear" (failing those in `failOn`),
/// and runs scheduled work on a fake clock.
final class RecordingDelegate {
    var log: [String] = []
    var unbalancedCalls: [String] = []
    var failOn: Set<String> = []
    var now: Double = 0
    var timers: [(at: Double, token: Int, action: () -> Void)] = []
    var nextToken = 1

    func perform(_ actions: LifecycleActions) throws(ContainerFailure) {
        var pass = LifecyclePass()
        while let action = pass.next(in: actions) {
            switch action {
            case .run(let hook, let c, _):
                log.append("\(c.id):\(hook.rawValue)")
                pass.ran(action, ok: !failOn.contains("\(c.id):\(hook.rawValue)"))
            case .unbalanced(let c, let call, _):
                // UIKit's names for the calls, as the host's event says them.
                let name = switch call {
                case .beginAppearing: "beginAppearance(true)"
                case .beginDisappearing: "beginAppearance(false)"
                case .end: "endAppearance"
                }
                unbalancedCalls.append("\(c.id):\(name)")
            }
        }
        if let failure = pass.failure { throw failure }
    }
    func schedule(afterMs ms: Double, _ action: @escaping () -> Void) -> Int {
        defer { nextToken += 1 }
        timers.append((now + ms, nextToken, action))
        return nextToken
    }
    func cancel(_ token: Int) { timers.removeAll { $0.token == token } }
    func advance(_ ms: Double) {
        now += ms
        while let i = timers.indices.filter({ timers[$0].at <= now }).min(by: { timers[$0].at < timers[$1].at }) {
            let t = timers.remove(at: i)
            t.action()
        }
    }
    func take() -> [String] { defer { log = [] }; return log }
}

@Suite struct LifecycleTests {
    let d = RecordingDelegate()
    let life = Lifecycle()

    @Test func viewLoadsLazilyBeforeFirstAppearanceAndLaysOutOnlyOnSizeChange() throws {
        let c = ContainerRecord(id: "c", className: "K", owner: nil)
        let size = Size(width: 10, height: 20)
        try d.perform(life.begin(c, appearing: true, animated: false, size: size))
        #expect(d.take() == ["c:loadView", "c:viewDidLoad", "c:viewWillLayoutSubviews", "c:viewDidLayoutSubviews", "c:viewWillAppear",
                             "c:viewIsAppearing"])
        try d.perform(life.end(c, animated: false))
        try d.perform(life.disappear(c))
        try d.perform(life.appear(c, size: size))
        #expect(d.take() == ["c:viewDidAppear", "c:viewWillDisappear", "c:viewDidDisappear", "c:viewWillAppear", "c:viewIsAppearing",
                             "c:viewDidAppear"])
        try d.perform(life.layout(c, size: Size(width: 11, height: 20)))
        #expect(d.take() == ["c:viewWillLayoutSubviews", "c:viewDidLayoutSubviews"])
    }

    @Test func teardownDisappearsThenDeinits() throws {
        let c = ContainerRecord(id: "c", className: "K", owner: nil)
        try d.perform(life.appear(c))
        _ = d.take()
        try d.perform(life.teardown(c))
        #expect(d.take() == ["c:viewWillDisappear", "c:viewDidDisappear", "c:deinit"])
        #expect(c.isDestroyed)
        try d.perform(life.teardown(c))
        #expect(d.take().isEmpty, "teardown runs once")
    }

    @Test func aFailedHookStopsTheSequenceAndOnlyDeinitRunsAfter() {
        let c = ContainerRecord(id: "c", className: "K", owner: nil)
        d.failOn = ["c:viewDidLoad"]
        #expect(throws: ContainerFailure(container: "c", hook: .viewDidLoad)) {
            try d.perform(life.begin(c, appearing: true, animated: false))
        }
        #expect(d.take() == ["c:loadView", "c:viewDidLoad"])
        #expect(c.isFailed)
        try? d.perform(life.teardown(c))
        #expect(d.take() == ["c:deinit"])
    }

    @Test func unbalancedCallsRunNoHookAndAreReported() throws {
        let c = ContainerRecord(id: "c", className: "K", owner: nil)
        try d.perform(life.end(c, animated: false))
        try d.perform(life.begin(c, appearing: false, animated: false))
        #expect(d.take().isEmpty)
        #expect(d.unbalancedCalls == ["c:endAppearance", "c:beginAppearance(false)"])
    }
}

/// Drives `StackOperation`s as the host does, over a `RecordingDelegate`: performs each step's actions,
/// hands reported failures to `onFailure`, and keeps the animation timers on the fake clock.
struct RecordingStackDriver {
    let d: RecordingDelegate
    var animationMs: Double = 300
    init(_ d: RecordingDelegate) { self.d = d }

    func push(_ c: ContainerRecord, onto s: StackRecord, animated: Bool,
              onFailure: @escaping (ContainerFailure) -> Void) throws(ContainerFailure) {
        if let failure = run(.push(c, onto: s, animated: animated, animationMs: animationMs), onFailure).failure { throw failure }
    }
    func pop(_ s: StackRecord, animated: Bool, onFailure: @escaping (ContainerFailure) -> Void) -> ContainerRecord? {
        run(.pop(s, animated: animated, animationMs: animationMs), onFailure).removed.last
    }
    func popToRoot(_ s: StackRecord, animated: Bool, onFailure: @escaping (ContainerFailure) -> Void = { _ in }) -> [ContainerRecord] {
        run(.popToRoot(s, animated: animated, animationMs: animationMs), onFailure).removed
    }
    func setContainers(_ s: StackRecord, _ list: [ContainerRecord], animated: Bool,
                       onFailure: @escaping (ContainerFailure) -> Void = { _ in }) -> [ContainerRecord] {
        run(.setContainers(s, list, animated: animated, animationMs: animationMs), onFailure).removed
    }
    func beginInteractivePop(_ s: StackRecord, onFailure: @escaping (ContainerFailure) -> Void = { _ in }) {
        run(.beginInteractivePop(s), onFailure)
    }
    func finishInteractivePop(_ s: StackRecord, onFailure: @escaping (ContainerFailure) -> Void = { _ in }) -> ContainerRecord? {
        run(.finishInteractivePop(s, durationMs: animationMs), onFailure).removed.last
    }
    func cancelInteractivePop(_ s: StackRecord, onFailure: @escaping (ContainerFailure) -> Void = { _ in }) {
        run(.cancelInteractivePop(s, durationMs: animationMs), onFailure)
    }
    func remove(_ c: ContainerRecord, from s: StackRecord, onFailure: @escaping (ContainerFailure) -> Void) {
        run(.remove(c, from: s), onFailure)
    }
    func discard(_ c: ContainerRecord, from s: StackRecord) { run(.discard(c, from: s), { _ in }) }
    func setHidden(_ s: StackRecord, _ hidden: Bool, onFailure: @escaping (ContainerFailure) -> Void) {
        run(.setHidden(s, hidden), onFailure)
    }
    func resize(_ s: StackRecord, to size: Size, onFailure: @escaping (ContainerFailure) -> Void) {
        run(.resize(s, to: size), onFailure)
    }
    func destroy(_ s: StackRecord) { run(.destroy(s), { _ in }) }
    func completeTransition(_ s: StackRecord) { run(.completeTransition(s), { _ in }) }

    @discardableResult
    func run(_ operation: consuming StackOperation, _ onFailure: @escaping (ContainerFailure) -> Void) -> (failure: ContainerFailure?, removed: [ContainerRecord]) {
        var op = operation
        var input = StackOperation.Input.start
        while true {
            switch op.next(input) {
            case .perform:
                do throws(ContainerFailure) { try d.perform(op.actions); input = .performed(nil) } catch { input = .performed(error) }
            case .report(let failure):
                onFailure(failure)
                input = .resumed
            case .startTimer(let s, let ms):
                input = .timerStarted(d.schedule(afterMs: ms) { [d, weak s] in
                    guard let s else { return }
                    RecordingStackDriver(d).run(.transitionEnded(s), onFailure)
                })
            case .cancelTimer(let token):
                d.cancel(token)
                input = .resumed
            case .done(let failure):
                return (failure, op.removed)
            }
        }
    }
}
