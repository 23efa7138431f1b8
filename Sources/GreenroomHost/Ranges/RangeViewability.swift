import GreenroomCore
import GreenroomJSON
import GreenroomRPC

/// A range session's viewability (`range.create {viewability}`, docs/ranges.md "Viewability"): Core's
/// machine, and the one host timer that wakes it when a pending item falls due.
final class RangeViewability {
    var machine: Viewability
    /// The session's timer (at most one), and the deadline it was set for.
    var timer: TimerID?
    var deadline: Double?

    init(_ thresholds: [ViewabilityThreshold]) { machine = Viewability(thresholds: thresholds) }
}

extension RangeSessions {
    private static let viewableTopic = EventRouter.mask([ViewableTopic.topic])

    /// `range.create`'s `viewability`, checked member by member (-32602 naming the field) before the
    /// session exists; nil when not given.
    static func viewabilityThresholds(_ list: [JSONObject]?) throws(RPCError) -> [ViewabilityThreshold]? {
        guard let list else { return nil }
        guard !list.isEmpty, list.count <= Viewability.maxThresholds else {
            throw .invalidParams(path: "viewability", "must have 1 to \(Viewability.maxThresholds) thresholds")
        }
        var out: [ViewabilityThreshold] = []
        for (i, o) in list.enumerated() {
            let path = "viewability[\(i)]"
            for key in o.keys where !["name", "minPercent", "minMs"].contains(key) {
                throw .invalidParams(path: "\(path).\(key)", "unknown member (known: name, minPercent, minMs)")
            }
            guard let n = o["name"] else { throw .invalidParams(path: "\(path).name", "is required") }
            let name = try String.decodeParam(n, path: "\(path).name")
            guard !name.isEmpty else { throw .invalidParams(path: "\(path).name", "must not be empty") }
            guard !out.contains(where: { $0.name == name }) else {
                throw .invalidParams(path: "\(path).name", "\"\(name)\" names another threshold already")
            }
            let percent = try o["minPercent"].map { v throws(RPCError) in try Double.decodeParam(v, path: "\(path).minPercent") } ?? 50
            guard percent > 0, percent <= 100 else { throw .invalidParams(path: "\(path).minPercent", "must be in (0, 100]") }
            let ms = try o["minMs"].map { v throws(RPCError) in try Double.decodeParam(v, path: "\(path).minMs") } ?? 0
            guard ms >= 0, ms <= 86_400_000 else { throw .invalidParams(path: "\(path).minMs", "must be between 0 and 86400000 (a day)") }
            out.append(ViewabilityThreshold(name: name, minPercent: percent, minMs: ms))
        }
        return out
    }

    /// The percent of item `f`'s length along the axis inside the viewport `[offset, offset + L)`; an
    /// item of length 0 on screen is wholly inside.
    func viewablePercent(_ s: RangeSession, _ f: Int) -> Double {
        let start = s.start(f), length = s.end(f) - start
        guard length > 0 else { return 100 }
        let inside = min(start + length, s.offset + s.viewportLength) - max(start, s.offset)
        return min(100, max(0, inside / length * 100))
    }

    /// Observes what is on screen now (after the call's range update): `refresh` runs it at the end of
    /// every call that moves or changes what is on screen, whether or not the ranges changed.
    /// O(visible items x thresholds).
    func evaluateViewability(_ e: RangeEntry) {
        guard let v = e.viewability else { return }
        let s = e.session
        var items: [(flat: Int, percent: Double)] = []
        if s.isVisible {
            // The visible interval is empty when invisible or when nothing is on the viewport (overscroll).
            items.reserveCapacity(s.visible.count)
            for f in s.visible.lo..<s.visible.hi { items.append((f, viewablePercent(s, f))) }
        }
        let step = v.machine.observe(now: now, visible: items, isVisible: s.isVisible)
        emitViewability(e, step.transitions)
        armViewabilityTimer(e, step.deadline)
    }

    /// Items were inserted before flat index `at`: the viewable and pending items after it move with them.
    func viewabilityInserted(_ e: RangeEntry, at: Int, count: Int) {
        guard let v = e.viewability, count > 0 else { return }
        v.machine.shift(insertingAt: at, count: count)
    }

    /// Item `f` is deleted (`path`: where it was): it ends `removed` for each threshold it was viewable
    /// for, and every later item moves back by one. Call once per item, highest first.
    func viewabilityRemoved(_ e: RangeEntry, flat f: Int, path: JSONValue) {
        guard let v = e.viewability else { return }
        emitViewability(e, v.machine.shift(insertingAt: f, count: -1), path: path)
    }

    /// A batch changed the items: tracked items follow theirs, and deleted viewable ones end `removed`
    /// (with their paths before the batch, from `oldPath`).
    func viewabilityRemapped(_ e: RangeEntry, _ newFlat: (Int) -> Int?, oldPath: (Int) -> JSONValue) {
        guard let v = e.viewability else { return }
        for t in v.machine.remap(newFlat) { emitViewability(e, [t], path: oldPath(t.flat)) }
    }

    /// The session ends (`range.destroy`, its connection closed): its timer goes. No `ended` event is
    /// sent: the session's owner ended it, or is gone.
    func endViewability(_ e: RangeEntry) {
        guard let v = e.viewability else { return }
        if let t = v.timer { timers.cancel(t) }
        v.timer = nil
        v.deadline = nil
    }

    /// `range.state`'s `viewable`: per threshold, the items viewable now, ascending.
    func viewableState(_ e: RangeEntry) -> JSONValue? {
        guard let v = e.viewability else { return nil }
        return .object(JSONObject(v.machine.thresholds.indices.map { t in
            (key: v.machine.thresholds[t].name, value: paths(e.session, v.machine.viewableItems(t)))
        }))
    }

    /// Keeps the session's one timer at `deadline` (the earliest pending item's): left alone when it is
    /// already there, moved otherwise, cancelled when nothing is pending. Its events name the timer
    /// (`r-N viewability`) and what scheduled it.
    private func armViewabilityTimer(_ e: RangeEntry, _ deadline: Double?) {
        guard let v = e.viewability, v.deadline != deadline else { return }
        if let t = v.timer { timers.cancel(t) }
        v.timer = nil
        v.deadline = deadline
        guard let deadline else { return }
        let cause = EventCause.timer("\(e.session.id) viewability", scheduledBy: events.currentCause)
        v.timer = timers.schedule(at: deadline) { [weak self, weak e] in
            guard let self, let e, let v = e.viewability, self.sessions[e.session.id] === e else { return }
            v.timer = nil
            v.deadline = nil
            // Nothing moved since the last observation (a call would have observed again): what was
            // pending is where it was, and what falls due now becomes viewable.
            events.withCause(cause) {
                let step = v.machine.tick(now: self.now)
                self.emitViewability(e, step.transitions)
                self.armViewabilityTimer(e, step.deadline)
            }
        }
    }

    /// One `viewable` event per transition, in order (`path`: for a deleted item, where it was).
    private func emitViewability(_ e: RangeEntry, _ transitions: [ViewabilityTransition], path: JSONValue? = nil) {
        guard !transitions.isEmpty, let v = e.viewability,
              events.wants(mask: Self.viewableTopic, owner: e.connection) else { return }
        let s = e.session
        for tr in transitions {
            var f: JSONObject = ["session": .string(s.id), "name": .string(v.machine.thresholds[tr.threshold].name)]
            switch tr.kind {
            case .viewable:
                f["kind"] = "viewable"
            case .ended(let reason):
                f["kind"] = "ended"
                f["reason"] = .string(reason.rawValue)
            }
            f["path"] = path ?? pathJSON(s, tr.flat)
            f["percent"] = .double(tr.percent)
            events.emit(ViewableTopic.self, owner: e.connection, f)
        }
    }
}
