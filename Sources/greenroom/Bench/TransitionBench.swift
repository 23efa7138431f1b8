import GreenroomJSON
import GreenroomRPC

/// The container transitions a test script drives most, each as round trips on a real-clock host, against
/// a push plus a pop on the same connection: a present plus a dismiss (full screen, so the presenter's
/// calls run too), and a tab switch. Not animated: the calls' own cost, no timer.
struct TransitionBench {
    let client: LineClient

    private func time(_ calls: [(String, JSONValue)]) throws -> Double {
        let t0 = monotonicNanos()
        for (method, params) in calls { _ = try client.call(method, params) }
        return Double(monotonicNanos() - t0) / 1000
    }

    /// Medians in microseconds of `rounds` interleaved rounds: (push + pop, present + dismiss, tab switch).
    func transitions(rounds: Int) throws -> (pushPop: Double, presentDismiss: Double, tabSwitch: Double) {
        func container() throws -> JSONValue { try client.call("container.create", ["class": "Container"])["container"]! }
        let stack = try client.call("stack.create", ["width": 375, "height": 667])["stack"]!
        let root = try container()
        _ = try client.call("stack.push", ["stack": stack, "container": root])
        let pushed = try container()
        let presented = try container()
        let tabs = try client.call("tabs.create", ["width": 375, "height": 667, "containers": [try container(), try container()]])["tabs"]!
        var pushPop: [Double] = [], presentDismiss: [Double] = [], tabSwitch: [Double] = []
        for i in 0..<rounds {
            pushPop.append(try time([
                ("stack.push", ["stack": stack, "container": pushed]),
                ("stack.pop", ["stack": stack]),
            ]))
            presentDismiss.append(try time([
                ("presentation.present", ["presenter": stack, "container": presented, "style": "fullScreen"]),
                ("presentation.dismiss", ["container": presented]),
            ]))
            tabSwitch.append(try time([("tabs.select", ["tabs": tabs, "index": .int((i + 1) % 2)])]))
        }
        _ = try client.call("tabs.destroy", ["tabs": tabs])
        _ = try client.call("stack.destroy", ["stack": stack])
        for c in [pushed, presented] { _ = try client.call("container.release", ["container": c]) }
        return (PrerenderBench.median(pushPop), PrerenderBench.median(presentDismiss), PrerenderBench.median(tabSwitch))
    }
}
