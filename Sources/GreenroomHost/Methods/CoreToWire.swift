import GreenroomCore
import GreenroomJSON
import GreenroomRPC

// Core says which call, which input and why in its own enums; this file alone gives them their wire
// names, JSON paths and JSON-RPC errors (the names of hooks and appearance states are UIKit's, their
// raw values).

/// Runs a Core call; its typed error becomes the JSON-RPC error of the reply through `map`. Every method
/// file maps Core errors through here (with `RPCError.init` of the error, or a domain's own map when a
/// failure has host work to do, like tearing a failed container down).
@inline(__always)
func mappingErrors<T, E: Error>(_ map: (E) -> RPCError, _ body: () throws(E) -> T) throws(RPCError) -> T {
    do { return try body() } catch { throw map(error) }
}

/// `mappingErrors` where mapping the error runs hooks (a failed container is torn down).
func mappingErrors<T, E: Error>(_ map: (E) async -> RPCError, _ body: () async throws(E) -> T) async throws(RPCError) -> T {
    let failure: E
    do throws(E) { return try await body() } catch { failure = error }
    throw await map(failure)
}

extension RPCError {
    /// -32003: a scroll-stream call that does not fit the session's phase.
    static func outOfOrder(call: String, phase: String) -> RPCError {
        .invalidState("\(call) does not fit the scroll stream here (the session is \(phase))",
                      ["call": .string(call), "phase": .string(phase)])
    }

    /// A range session's refusal: -32602 naming the field, or -32003 for a call out of order.
    init(_ e: RangeError) {
        switch e {
        case .notFinite(let input):
            self = .invalidParams(path: input.path, "must be a finite number")
        case .outsideContent(let input, let x, let lo, let hi):
            self = .invalidParams(path: input.path, "\(x) is outside \(lo)...\(hi)")
        case .notBatchInFlight(let context, let inFlight):
            self = .invalidParams(path: "context", "\(context) is not the batch in flight (\(inFlight ?? "none"))")
        case .noSuchSection(let section):
            self = .invalidParams(path: "at[0]", "section \(section) does not exist")
        case .rowOutsideSection(let row, let rows):
            self = .invalidParams(path: "at[1]", "row \(row) is outside 0...\(rows)")
        case .tooManyItems(let limit, let count):
            self = .invalidParams(path: "lengths", "a session holds at most \(limit) items in all (it has \(count))")
        case .lengthsNotFinite:
            self = .invalidParams(path: "lengths", "lengths must be finite, >= 0, and add up to a finite content length")
        case .outOfOrder(let call, let phase):
            self = .outOfOrder(call: call.method, phase: phase.wireName)
        case .keysRequired:
            self = .invalidParams(path: "keys", "is required: this session's items have keys")
        case .keysNotKept:
            self = .invalidParams(path: "keys", "this session's items have no keys (give keys at range.create)")
        case .notGridRow(let l):
            self = .invalidParams(path: "lengths", "a grid's items have their section's row length (\(l))")
        case .keyCount(let keys, let items):
            self = .invalidParams(path: "keys", "has \(keys) keys for \(items) items")
        case .duplicateKey(let key, let index, let holder):
            let other: String
            switch holder {
            case .item(let p): other = "item \(p)'s key"
            case .given(let j): other = "keys[\(j)] too"
            }
            self = .invalidParams(path: "keys[\(index)]", "\"\(key)\" is already \(other)")
        }
    }

    /// A batch's refusal: -32602 naming the first bad update and its member (`updates[i].paths[k]`).
    init(_ e: RangeBatchError) {
        var path = "updates[\(e.update)]"
        switch e.member {
        case .paths(let k): path += ".paths[\(k)]"
        case .at: path += ".at"
        case .from: path += ".from"
        case .to: path += ".to"
        case .lengths: path += ".lengths"
        case .keys(let k): path += ".keys[\(k)]"
        case .sections(let k): path += ".sections[\(k)]"
        case .whole: break
        }
        let why: String
        switch e.reason {
        case .noSuchItem(let p): why = "\(p) is not an item"
        case .noSuchSection(let s): why = "section \(s) does not exist"
        case .alreadyUpdated(let u): why = "names an item or section that updates[\(u)] already deletes, moves, reloads or resizes"
        case .inDeletedSection(let s, let u): why = "is in section \(s), which updates[\(u)] deletes"
        case .rowOutside(let p, let rows): why = "\(p) is outside its section after the batch (it will have \(rows) rows)"
        case .destinationTaken(let p, let u): why = "\(p) is already the destination of updates[\(u)]"
        case .intoInsertedSection(let s): why = "section \(s) is inserted by this batch and brings its own items"
        case .sectionOutside(let s, let n): why = "section \(s) is outside 0..<\(n) after the batch"
        case .sectionTaken(let s, let u): why = "section \(s) is already the destination of updates[\(u)]"
        case .badLengths: why = "lengths must be one per item, finite, >= 0, and add up to a finite content length"
        case .keysRequired: why = "keys are required: this session's items have keys"
        case .keysNotKept: why = "this session's items have no keys (give keys at range.create)"
        case .keyCount: why = "keys must be one per item"
        case .duplicateKey(let key, let holder):
            switch holder {
            case .item(let p): why = "key \"\(key)\" is already item \(p)'s"
            case .section(let s): why = "key \"\(key)\" is already section \(s)'s"
            case .update(let u): why = "key \"\(key)\" is already given by updates[\(u)]"
            }
        case .tooManyItems(let limit): why = "a session holds at most \(limit) items in all"
        case .noSectionsLeft: why = "would delete every section (a session keeps at least one)"
        case .notGridRow(let l): why = "a grid's items have their section's row length (\(l))"
        case .gridResize: why = "a grid's rows keep their length (delete and insert the items instead)"
        }
        self = .invalidParams(path: path, why)
    }

    /// A page session's refusal; a failed child is `child`'s to map (the host tears it down).
    static func from(_ e: PageError, child: (ContainerFailure) async -> RPCError) async -> RPCError {
        switch e {
        case .indexOutOfRange(let index, let count):
            .invalidParams(path: "index", "\(index) is out of range (0..<\(count))")
        case .offsetOutOfRange(let offset, let lo, let hi):
            .invalidParams(path: "offset", "\(offset) is outside \(lo)...\(hi)")
        case .outOfOrder(let call, let phase):
            .outOfOrder(call: call.method, phase: phase.wireName)
        case .offscreen(let call):
            .outOfOrder(call: call.method, phase: "offscreen")
        case .child(let failure):
            await child(failure)
        }
    }
}

extension RangeInput {
    /// The param's JSON path.
    var path: String {
        switch self {
        case .offset: "offset"
        case .targetOffset: "targetOffset"
        case .velocity: "velocity"
        }
    }
}

extension RangeCall {
    var method: String {
        switch self {
        case .willEndDragging: "range.willEndDragging"
        case .didEndDecelerating: "range.didEndDecelerating"
        }
    }
}

extension RangePhase {
    var wireName: String {
        switch self {
        case .idle: "idle"
        case .dragging: "dragging"
        case .decelerating: "decelerating"
        }
    }
}

extension ScrollDirection {
    var wireName: String {
        switch self {
        case .up: "up"
        case .down: "down"
        case .left: "left"
        case .right: "right"
        }
    }
}

extension PageCall {
    var method: String {
        switch self {
        case .show: "page.show"
        case .willBeginDragging: "page.willBeginDragging"
        case .willEndDragging: "page.willEndDragging"
        case .didEndDragging: "page.didEndDragging"
        case .didEndDecelerating: "page.didEndDecelerating"
        }
    }
}

extension PageSession.Phase {
    var wireName: String {
        switch self {
        case .idle: "idle"
        case .dragging: "dragging"
        case .decelerating: "decelerating"
        case .animating: "animating"
        }
    }
}

extension PageTransitionEvent {
    /// The `page` event's `kind`.
    var wireName: String {
        switch self {
        case .willTransition: "willTransition"
        case .didTransition: "didTransition"
        }
    }
}

extension AppearanceCall {
    /// The `call` of an `unbalancedAppearanceTransition` event (UIKit's names).
    var wireName: String {
        switch self {
        case .beginAppearing: "beginAppearance(true)"
        case .beginDisappearing: "beginAppearance(false)"
        case .end: "endAppearance"
        }
    }
}

extension ContainerRecord {
    /// A short state for `container.info` and stats: "fresh" (view not loaded), "destroyed", or the
    /// appearance.
    var summaryState: String {
        if isDestroyed { return "destroyed" }
        if !viewLoaded { return "fresh" }
        return state.rawValue
    }
}
