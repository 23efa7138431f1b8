import GreenroomCore
import GreenroomJSON
import GreenroomRPC

extension PageSessions {
    /// The connection's page session `id` (-32002 naming `session` otherwise).
    func entry(_ id: String, owner: HostConnection) throws(RPCError) -> PageSessionEntry {
        try owner.owned(id, "session", in: sessions, expected: "page session") { $0.owner }
    }

    /// The session `id` for a call that is not part of its curl gesture: -32003 while a curl is in progress.
    func entryAtRest(_ id: String, owner: HostConnection, call: String) throws(RPCError) -> PageSessionEntry {
        let e = try entry(id, owner: owner)
        if let c = e.session.curl {
            throw .invalidState("Page session \(e.session.id) has a curl in progress (to page \(c.transition.to)): finish it (page.finishInteractiveCurl) or cancel it (page.cancelInteractiveCurl) first",
                                ["session": .string(e.session.id), "call": .string(call), "to": .int(c.transition.to), "progress": .double(c.progress)])
        }
        return e
    }

    /// The session `id` for a call of the scroll stream: -32003 for a pageCurl session, which has none.
    func scrollEntry(_ id: String, owner: HostConnection, call: String) throws(RPCError) -> PageSessionEntry {
        let e = try entry(id, owner: owner)
        guard e.session.transitionStyle == .scroll else {
            throw .invalidState("Page session \(e.session.id) turns its pages by curl: it has no scroll stream (page.show, or page.beginInteractiveCurl ...)",
                                ["session": .string(e.session.id), "call": .string(call), "transitionStyle": "pageCurl"])
        }
        return e
    }

    /// The session `id` with a curl in progress (-32003 otherwise).
    func curlEntry(_ id: String, owner: HostConnection) throws(RPCError) -> PageSessionEntry {
        let e = try entry(id, owner: owner)
        guard e.session.curl != nil else {
            throw .invalidState("Page session \(e.session.id) has no curl in progress (page.beginInteractiveCurl starts one)",
                                ["session": .string(e.session.id)])
        }
        return e
    }

    /// Maps Core's page errors onto JSON-RPC errors (CoreToWire.swift); a failed child is torn down (-32004).
    /// `notMade`: why the child the error names could not be made (`driveReporting`), answered as it is.
    func rpc(_ e: PageError, notMade: (failure: ContainerFailure, error: RPCError)? = nil) async -> RPCError {
        await RPCError.from(e) { failure in
            if let c = containers.containers[failure.container], !c.isDestroyed { return await containers.fail(c) }
            if let notMade, notMade.failure == failure { return notMade.error }
            return RPCError(.pluginFailed, "A page's container failed in \(failure.hook.rawValue)",
                            ["container": .string(failure.container), "hook": .string(failure.hook.rawValue)])
        }
    }

    /// Runs `op` on `e`'s session; its error is the call's.
    func run(_ op: consuming PageOperation, in e: PageSessionEntry) async throws(RPCError) {
        let outcome = await driveReporting(op, in: e)
        if let error = outcome.error { throw await rpc(error, notMade: outcome.notMade) }
    }

    func info(_ e: PageSessionEntry) -> JSONValue {
        let s = e.session
        var mode: JSONObject
        switch s.cacheMode {
        case .limit(let n): mode = ["limit": .int(n)]
        case .reuse: mode = ["mode": "reuse"]
        }
        var o: JSONObject = [
            "session": .string(s.id),
            "index": .int(s.current),
            "count": .int(s.count),
            "width": .double(s.pageSize.width),
            "height": .double(s.pageSize.height),
            "phase": .string(s.phase.wireName),
            "offset": .double(s.offset),
            "guess": s.guess.map { .int($0) } ?? .null,
            "visible": .bool(s.isVisible),
            "cache": .object(mode),
            "container": e.ownContainer.map { .string($0.id) } ?? .null,
            "children": .array(s.children.keys.sorted().map { i in
                let c = s.children[i]!
                return ["index": .int(i), "container": .string(c.id), "state": .string(c.state.rawValue)]
            }),
            "deferred": .array(s.deferred.sorted().map { .int($0) }),
            "reuseQueue": .object(JSONObject(e.reuseQueue.keys.sorted().map { (key: $0, value: .int(e.reuseQueue[$0]!.count)) })),
        ]
        // Only a curl session says so: a scroll session's info is what it was before curls existed, so its
        // transcripts replay unchanged.
        if s.transitionStyle == .pageCurl {
            o["transitionStyle"] = .string(s.transitionStyle.rawValue)
            o["interactiveCurl"] = s.curl.map { ["to": .int($0.transition.to), "progress": .double($0.progress)] } ?? .null
        }
        return .object(o)
    }

    /// A light reply for the scroll stream (it is called at frame rate).
    func streamReply(_ e: PageSessionEntry) -> JSONValue {
        ["session": .string(e.session.id), "index": .int(e.session.current), "phase": .string(e.session.phase.wireName),
         "guess": e.session.guess.map { .int($0) } ?? .null]
    }

    /// The classes and data of a `pages` list, or of `count` pages of `class` with `data` (page.create,
    /// page.insertPages); -32602 names the bad field, -32001 an unknown class.
    func pageList(className: String?, pages: [JSONObject]?, count: Int?, data list: [JSONValue]?) throws(RPCError)
        -> (classes: [String], data: [Int: JSONValue])
    {
        var classes: [String] = []
        var data: [Int: JSONValue] = [:]
        if let pages {
            guard className == nil else { throw .invalidParams(path: "class", "give either class or pages, not both") }
            guard list == nil else { throw .invalidParams(path: "data", "with pages, give each page its data (pages[i].data)") }
            for (i, page) in pages.enumerated() {
                guard case .string(let name)? = page["class"] else { throw .invalidParams(path: "pages[\(i)].class", "is required (a class name)") }
                _ = try self.classes.require(name, path: "pages[\(i)].class")
                for key in page.keys where key != "class" && key != "data" {
                    throw .invalidParams(path: "pages[\(i)].\(key)", "unknown member (known: class, data)")
                }
                classes.append(name)
                if let d = page["data"] { data[i] = d }
            }
            if let count, count != pages.count {
                throw .invalidParams(path: "count", "is \(count) but pages has \(pages.count)")
            }
        } else {
            guard let name = className else { throw .invalidParams(path: "class", "is required") }
            _ = try self.classes.require(name)
            guard let count = count ?? list?.count else {
                throw .invalidParams(path: "count", "is required with class (or give data, one per page)")
            }
            guard count >= 1, count <= 1_000_000 else { throw .invalidParams(path: "count", "must be between 1 and 1000000") }
            if let list, list.count > count { throw .invalidParams(path: "data", "has \(list.count) entries for \(count) pages") }
            classes = Array(repeating: name, count: count)
            for (i, d) in (list ?? []).enumerated() { data[i] = d }
        }
        return (classes, data)
    }

    /// Pages may change only at rest.
    func refuseUnlessAtRest(_ e: PageSessionEntry, _ method: String) throws(RPCError) {
        guard e.session.phase != .idle else { return }
        throw RPCError(.invalidState, "Page session \(e.session.id) is \(e.session.phase.wireName): \(method) waits for rest",
                       ["session": .string(e.session.id), "phase": .string(e.session.phase.wireName), "call": .string(method)])
    }

    /// A page index param (`PageIndex`: 0...999999), checked before the session is looked up so that a bad
    /// index is -32602 whatever the session.
    static func checkPageIndex(_ i: Int, _ path: String) throws(RPCError) {
        guard i >= 0, i <= 999_999 else { throw .invalidParams(path: path, "must be between 0 and 999999") }
    }

    func registerPageMethods(into r: inout MethodRegistry<HostConnection>) {
        r.register(PageCreate.self) { [unowned self] conn, p async throws(RPCError) in
            let (classes, data) = try pageList(className: p.className, pages: p.pages, count: p.count, data: p.data)
            guard !classes.isEmpty, classes.count <= 1_000_000 else {
                throw .invalidParams(path: p.pages != nil ? "pages" : "count", "must have 1 to 1000000 pages")
            }
            let size = try Containers.size(width: p.width, height: p.height)
            let initial = p.initialIndex ?? 0
            guard (0..<classes.count).contains(initial) else {
                throw .invalidParams(path: "initialIndex", "\(initial) is out of range (0..<\(classes.count))")
            }
            var mode = PageSession.CacheMode.limit(3)
            if let cache = p.cache {
                for key in cache.keys where key != "limit" && key != "mode" {
                    throw .invalidParams(path: "cache.\(key)", "unknown member (known: limit, mode)")
                }
                if let m = cache["mode"], !m.isNull {
                    guard m == "reuse" else { throw .invalidParams(path: "cache.mode", "must be \"reuse\"") }
                    guard cache["limit"] == nil else { throw .invalidParams(path: "cache", "give limit or mode, not both") }
                    mode = .reuse
                } else if let l = cache["limit"] {
                    let limit = try Int.decodeParam(l, path: "cache.limit")
                    guard limit >= 1 else { throw .invalidParams(path: "cache.limit", "must be >= 1") }
                    mode = .limit(limit)
                }
            }
            let prerender = p.prerender ?? false
            guard (0...16).contains(p.offscreenLimit) else { throw .invalidParams(path: "offscreenLimit", "must be between 0 and 16") }
            if case .limit(let limit) = mode, limit < 2 * p.offscreenLimit + 1 {
                throw .invalidParams(path: "offscreenLimit", "a cache of \(limit) cannot hold the current page and \(p.offscreenLimit) on each side: give cache.limit >= \(2 * p.offscreenLimit + 1)")
            }
            let stack = try p.stack.map { id throws(RPCError) in try containers.stack(id, owner: conn) }

            let session = PageSession(id: makeSessionID(), count: classes.count, pageSize: size, initialIndex: initial,
                                      cacheMode: mode, offscreenLimit: p.offscreenLimit,
                                      transitionStyle: PageTransitionStyle(rawValue: p.transitionStyle) ?? .scroll)
            let e = PageSessionEntry(session: session, owner: conn.id, classes: classes, data: data, prerender: prerender)
            sessions[session.id] = e
            if let stack {
                // The session is a container in the stack; its appearance is forwarded to the current page.
                // Registered under its id before it exists, so even its init event names the session.
                let ownID = containers.nextContainerID
                sessionByContainer[ownID] = e
                let own: ContainerRecord
                do throws(RPCError) { own = try await containers.create(self.classes["PageViewController"]!, owner: conn.id, data: nil) } catch {
                    sessionByContainer[ownID] = nil
                    sessions[session.id] = nil
                    throw error
                }
                e.ownContainer = own
                do throws(RPCError) { try await containers.push(own, onto: stack, animated: false) } catch {
                    await destroy(e)
                    throw error
                }
            } else {
                // No stack: on screen at once, so the initial page loads and appears now.
                do throws(RPCError) { try await run(session.setVisible(true), in: e) } catch {
                    await destroy(e)
                    throw error
                }
            }
            return info(e)
        }
        r.register(PageShow.self) { [unowned self] conn, p async throws(RPCError) in
            let ms = try containers.duration(p.duration, animated: p.animated ?? true)
            try Self.checkPageIndex(p.index, "index")
            let e = try entryAtRest(p.session, owner: conn, call: "page.show")
            let index = p.index
            let animated = p.animated ?? true
            try await run(e.session.show(index, animated: animated, durationMs: ms), in: e)
            return info(e)
        }
        r.register(PageWillBeginDragging.self) { [unowned self] conn, p async throws(RPCError) in
            let e = try scrollEntry(p.session, owner: conn, call: "page.willBeginDragging")
            let x = p.offset
            try await run(e.session.willBeginDragging(offset: x), in: e)
            return streamReply(e)
        }
        r.register(PageDidScroll.self) { [unowned self] conn, p async throws(RPCError) in
            let e = try scrollEntry(p.session, owner: conn, call: "page.didScroll")
            let x = p.offset
            try await run(e.session.didScroll(offset: x), in: e)
            return streamReply(e)
        }
        r.register(PageWillEndDragging.self) { [unowned self] conn, p async throws(RPCError) in
            // velocity and targetOffset are decoded (and checked) but change nothing: the page the drag rests on
            // decides, as UIPageViewController's paging does.
            let e = try scrollEntry(p.session, owner: conn, call: "page.willEndDragging")
            let x = p.offset
            try await run(e.session.willEndDragging(offset: x), in: e)
            return streamReply(e)
        }
        r.register(PageDidEndDragging.self) { [unowned self] conn, p async throws(RPCError) in
            let e = try scrollEntry(p.session, owner: conn, call: "page.didEndDragging")
            let x = p.offset
            let decelerate = p.willDecelerate
            try await run(e.session.didEndDragging(offset: x, willDecelerate: decelerate), in: e)
            return streamReply(e)
        }
        r.register(PageDidEndDecelerating.self) { [unowned self] conn, p async throws(RPCError) in
            let e = try scrollEntry(p.session, owner: conn, call: "page.didEndDecelerating")
            let x = p.offset
            try await run(e.session.didEndDecelerating(offset: x), in: e)
            return streamReply(e)
        }
        r.register(PageBeginInteractiveCurl.self) { [unowned self] conn, p async throws(RPCError) in
            try Self.checkPageIndex(p.index, "index")
            let e = try entryAtRest(p.session, owner: conn, call: "page.beginInteractiveCurl")
            guard e.session.transitionStyle == .pageCurl else {
                throw .invalidState("Page session \(e.session.id) scrolls: its interactive transitions are the scroll stream (page.willBeginDragging ...)",
                                    ["session": .string(e.session.id), "transitionStyle": "scroll"])
            }
            // A running animation completes first: the page it heads to may be the one named.
            try await run(e.session.completeAnimation(), in: e)
            guard p.index != e.session.current else {
                throw .invalidParams(path: "index", "\(p.index) is the current page: a curl turns to another")
            }
            try await run(e.session.beginCurl(p.index), in: e)
            return info(e)
        }
        r.register(PageUpdateInteractiveCurl.self) { [unowned self] conn, p throws(RPCError) in
            guard p.progress >= 0, p.progress <= 1 else { throw .invalidParams(path: "progress", "must be between 0 and 1") }
            let e = try curlEntry(p.session, owner: conn)
            e.session.updateCurl(progress: p.progress)
            return info(e)
        }
        r.register(PageFinishInteractiveCurl.self) { [unowned self] conn, p async throws(RPCError) in
            let ms = try containers.duration(p.duration, animated: true)
            let e = try curlEntry(p.session, owner: conn)
            try await run(e.session.finishCurl(durationMs: ms), in: e)
            return info(e)
        }
        r.register(PageCancelInteractiveCurl.self) { [unowned self] conn, p async throws(RPCError) in
            let ms = try containers.duration(p.duration, animated: true)
            let e = try curlEntry(p.session, owner: conn)
            try await run(e.session.cancelCurl(durationMs: ms), in: e)
            return info(e)
        }
        r.register(PageInfo.self) { [unowned self] conn, p throws(RPCError) in
            info(try entry(p.session, owner: conn))
        }
        r.register(PageInsertPages.self) { [unowned self] conn, p async throws(RPCError) in
            guard p.at >= 0 else { throw .invalidParams(path: "at", "must be >= 0") }
            let (classes, data) = try pageList(className: p.className, pages: p.pages, count: p.count, data: p.data)
            let e = try entryAtRest(p.session, owner: conn, call: "page.insertPages")
            let s = e.session
            guard p.at >= 0, p.at <= s.count else { throw .invalidParams(path: "at", "\(p.at) is out of range (0...\(s.count))") }
            guard s.count + classes.count <= 1_000_000 else { throw .invalidParams(path: "pages", "at most 1000000 pages in all") }
            try refuseUnlessAtRest(e, "page.insertPages")
            let k = classes.count
            s.insertPages(at: p.at, count: k)
            await ranges?.pagesMoved(s.id) { $0 >= p.at ? $0 + k : $0 }
            e.classes.insert(contentsOf: classes, at: p.at)
            var moved: [Int: JSONValue] = [:]
            for (i, d) in e.data { moved[i >= p.at ? i + k : i] = d }
            for (i, d) in data { moved[p.at + i] = d }
            e.data = moved
            schedulePreload(e)
            return info(e)
        }
        r.register(PageRemovePages.self) { [unowned self] conn, p async throws(RPCError) in
            try Self.checkPageIndex(p.at, "at")
            guard p.count >= 1, p.count <= 1_000_000 else { throw .invalidParams(path: "count", "must be between 1 and 1000000") }
            let e = try entryAtRest(p.session, owner: conn, call: "page.removePages")
            let s = e.session
            guard p.at < s.count else { throw .invalidParams(path: "at", "\(p.at) is out of range (0..<\(s.count))") }
            guard p.count >= 1, p.at + p.count <= s.count else {
                throw .invalidParams(path: "count", "pages \(p.at)..<\(p.at + p.count) are not all in the session (\(s.count) pages)")
            }
            guard p.count < s.count else { throw .invalidParams(path: "count", "a session keeps at least one page") }
            try refuseUnlessAtRest(e, "page.removePages")
            let range = p.at..<(p.at + p.count)
            if range.contains(s.current) {
                // UIKit's way: the neighbour is shown (not animated), then the old page goes.
                let neighbour = range.upperBound < s.count ? range.upperBound : range.lowerBound - 1
                try await run(s.show(neighbour, animated: false), in: e)
            }
            try await run(s.removePages(at: p.at, count: p.count), in: e)
            await ranges?.pagesMoved(s.id) { range.contains($0) ? nil : $0 >= range.upperBound ? $0 - p.count : $0 }
            e.classes.removeSubrange(range)
            var moved: [Int: JSONValue] = [:]
            for (i, d) in e.data where !range.contains(i) { moved[i >= range.upperBound ? i - p.count : i] = d }
            e.data = moved
            return info(e)
        }
        r.register(PageReloadPage.self) { [unowned self] conn, p async throws(RPCError) in
            try Self.checkPageIndex(p.index, "index")
            let e = try entryAtRest(p.session, owner: conn, call: "page.reloadPage")
            guard p.index < e.session.count else {
                throw .invalidParams(path: "index", "\(p.index) is out of range (0..<\(e.session.count))")
            }
            try refuseUnlessAtRest(e, "page.reloadPage")
            let data = p.data ?? .null
            e.data[p.index] = data
            var reply: JSONObject = ["session": .string(e.session.id), "index": .int(p.index), "container": .null]
            if let child = e.session.children[p.index] {
                reply["container"] = .string(child.id)
                do throws(RPCError) { reply["output"] = try await containers.configure(child, data: data) } catch {
                    // Its failure tore it down: it leaves the session (the current page's leaves the screen).
                    e.session.forget(child)
                    throw error
                }
            }
            return .object(reply)
        }
        r.register(PageDestroy.self) { [unowned self] conn, p async throws(RPCError) in
            let e = try entry(p.session, owner: conn)
            await destroy(e)
            return ["session": .string(e.session.id), "destroyed": true]
        }
    }
}
