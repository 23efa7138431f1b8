/// An appearance call, as an unbalanced one is reported: begin (appearing or not) or end.
public enum AppearanceCall: Equatable, Sendable { case beginAppearing, beginDisappearing, end }

/// A container's appearance state (UIKit's begin/end appearance transitions).
public enum Appearance: String, Sendable, CaseIterable {
    case disappeared, appearing, appeared, disappearing
}

/// The four-state appearance machine of docs/lifecycle.md. Each input returns the hook to run, or
/// `.unbalanced` — a call UIKit would warn about ("Unbalanced calls to begin/end appearance
/// transitions"), which runs no hook and changes no state.
public struct AppearanceMachine: Equatable, Sendable {
    public enum Outcome: Equatable, Sendable {
        case hook(Hook)
        case unbalanced
    }

    public private(set) var state: Appearance = .disappeared

    public init(state: Appearance = .disappeared) { self.state = state }

    public mutating func begin(appearing: Bool) -> Outcome {
        switch (state, appearing) {
        case (.disappeared, true), (.disappearing, true):
            state = .appearing
            return .hook(.viewWillAppear)
        case (.appearing, false), (.appeared, false):
            state = .disappearing
            return .hook(.viewWillDisappear)
        default:
            return .unbalanced
        }
    }

    public mutating func end() -> Outcome {
        switch state {
        case .appearing:
            state = .appeared
            return .hook(.viewDidAppear)
        case .disappearing:
            state = .disappeared
            return .hook(.viewDidDisappear)
        default:
            return .unbalanced
        }
    }
}
