/// A window with a tab bar (UITabBarController, docs/lifecycle.md "Tab bars"): children in tab order, one
/// selected. Only the selected child is on screen, and only while the window is shown and no presentation
/// covers it.
public final class TabsRecord {
    public let id: String
    public let owner: String
    public var size: Size
    public var isHidden: Bool
    /// A presentation over it took its views out of the window (as `StackRecord.isCovered`).
    public var isCovered = false
    /// Tab order.
    public var children: [ContainerRecord] = []
    /// The selected tab (0 when there are none).
    public var selectedIndex = 0

    public init(id: String, size: Size, hidden: Bool, owner: String) {
        self.id = id
        self.size = size
        self.isHidden = hidden
        self.owner = owner
    }

    /// Its selected child is on screen: the window is shown and no presentation covers it.
    public var isShown: Bool { !isHidden && !isCovered }
    public var selected: ContainerRecord? { children.indices.contains(selectedIndex) ? children[selectedIndex] : nil }

    /// `setViewControllers`' choice of the selected tab (Apple: "the tab bar controller remembers the view
    /// controller object that was previously selected and attempts to reselect it. If the selected view
    /// controller is no longer present, it attempts to select the view controller at the same index in the
    /// array as the previous selection. If that index is invalid, it selects the view controller at index 0").
    public func reselection(in list: [ContainerRecord]) -> Int {
        if let old = selected, let i = list.firstIndex(where: { $0 === old }) { return i }
        return selectedIndex < list.count ? selectedIndex : 0
    }
}
