import GreenroomJSON

/// Rows with budgets for page sessions, against a real-clock host.
struct PageBench {
    let client: LineClient

    /// Median round trip of `page.didScroll` during a drag and of `host.ping`, interleaved, in us.
    func didScrollRoundTrip(samples: Int) throws -> (ping: Double, didScroll: Double) {
        let s = try client.call("page.create", ["class": "Container", "count": 1000, "width": 375, "height": 667])["session"]!
        var pings: [Double] = [], scrolls: [Double] = []
        var offset = 0.0
        _ = try client.call("page.willBeginDragging", ["session": s, "offset": 0])
        let pre = PrerenderBench(client: client)
        for i in 0..<samples {
            // A drag that moves forward a few points per frame, crossing pages now and then.
            offset = min(offset + 7, 374_000)
            pings.append(try pre.time("host.ping").0)
            scrolls.append(try pre.time("page.didScroll", ["session": s, "offset": .double(offset)]).0)
            if i % 500 == 499 {
                _ = try client.call("page.didEndDragging", ["session": s, "offset": .double(offset), "willDecelerate": false])
                _ = try client.call("page.willBeginDragging", ["session": s, "offset": .double(offset)])
            }
        }
        _ = try client.call("page.didEndDragging", ["session": s, "offset": .double(offset), "willDecelerate": false])
        _ = try client.call("page.destroy", ["session": s])
        return (PrerenderBench.median(pings), PrerenderBench.median(scrolls))
    }

    /// Containers alive after showing every page of a 1,000-page session once, per cache policy.
    func sweep(cache: JSONValue) throws -> Int {
        let before = try client.call("host.stats")["containers"]?["total"]?.intValue ?? 0
        let s = try client.call("page.create", ["class": "Container", "count": 1000, "width": 375, "height": 667, "cache": cache])["session"]!
        for i in 1..<1000 { _ = try client.call("page.show", ["session": s, "index": .int(i), "animated": false]) }
        let after = try client.call("host.stats")["containers"]?["total"]?.intValue ?? 0
        _ = try client.call("page.destroy", ["session": s])
        return after - before
    }
}
