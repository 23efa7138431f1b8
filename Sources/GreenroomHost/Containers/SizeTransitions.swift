import GreenroomCore
import GreenroomJSON
import GreenroomRPC

extension Containers {
    /// A window (a stack or a tab bar) changes size (rotation, split view): UIKit's size transition
    /// (docs/lifecycle.md "Size transitions"). First `viewWillTransitionToSize` to every loaded container of
    /// the window whose size changes, the window's own tree (`root`) first, then the presentations hanging
    /// from it, bottom first (a presenter a full-screen presentation covers is still told); then the
    /// containers on screen lay out at their new sizes in the same order (`layoutRoot` lays out the window's
    /// own). A hidden window changes size silently: its containers lay out when they next appear. A live
    /// swipe on one of its presentations refuses the resize (-32003); transitions still running on them
    /// complete first.
    func resizeWindow(_ id: String, root: [ContainerRecord], hidden: Bool, from old: Size, to new: Size,
                      layoutRoot: () async -> Void) async throws(RPCError) {
        let before = presentations.byPresenter[id]?.chain ?? []
        await presentations.settle(touching: Set([id] + root.map(\.id) + before.map(\.presented.id)))
        // Settling may have ended a dismissal: the chain as it is now.
        let chain = presentations.byPresenter[id]?.chain ?? []
        if let live = chain.first(where: { $0.gesture != nil }) { throw presentations.liveSwipe(live) }
        // Each presented container's size after the resize: the window's, or its context's.
        var sizes: [Size] = []
        for r in chain {
            let contextSize = sizes.last ?? new
            sizes.append(r.style.isContext ? contextSize : new)
        }
        if !hidden {
            if old != new {
                for c in root { await performReporting(lifecycle.willTransition(c, to: new)) }
            }
            for (r, size) in zip(chain, sizes) where size != r.size {
                await performReporting(lifecycle.willTransition(r.presented, to: size))
            }
        }
        for (r, size) in zip(chain, sizes) { r.size = size }
        await layoutRoot()
        guard !hidden else { return }
        for r in chain where r.presented.state == .appeared || r.presented.state == .appearing {
            await performReporting(lifecycle.layout(r.presented, size: r.size))
        }
    }

    /// Performs `actions`; a failure tears its container down (no reply carries it but the call's own).
    func performReporting(_ actions: LifecycleActions) async {
        if let failure = await failure(performing: actions) { await deferredFailure(failure) }
    }
}
