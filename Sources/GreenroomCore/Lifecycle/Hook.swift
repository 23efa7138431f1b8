/// The hooks a container runs, in UIKit's names. Each hook that runs is one `lifecycle` event.
public enum Hook: String, Sendable, CaseIterable {
    case initialize = "init"
    case loadView
    case viewDidLoad
    case viewWillAppear
    case viewDidAppear
    case viewWillDisappear
    case viewDidDisappear
    case viewWillLayoutSubviews
    case viewDidLayoutSubviews
    case configure
    case didReceiveMemoryWarning
    case willMoveToParent
    case didMoveToParent
    case deinitialize = "deinit"
}

/// A size in points.
public struct Size: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
    public var description: String { "\(width)x\(height)" }
}
