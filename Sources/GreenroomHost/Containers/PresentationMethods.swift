import GreenroomCore
import GreenroomJSON
import GreenroomRPC

extension Containers {
    /// Refuses (-32003) a container that cannot join a new parent (a presentation, a tab bar): one already in
    /// a hierarchy, a page session's own container, or one on screen (its appearance driven by hand). `as`
    /// names what it would become, `uikit` what UIKit says of it, for the message.
    func requireFree(_ c: ContainerRecord, as role: String, uikit: String? = nil, path: String = "container") throws(RPCError) {
        var data: JSONObject = ["container": .string(c.id), "path": .string(path)]
        if c.parent != .none {
            data["parent"] = containerInfo(c).objectValue?["parent"] ?? .null
            throw .invalidState("Container \(c.id) is already in a hierarchy\(uikit.map { " (UIKit: \"\($0)\")" } ?? ""); take it out first", data)
        }
        if let session = pages?.session(owning: c) {
            data["session"] = .string(session)
            throw .invalidState("Container \(c.id) is page session \(session)'s own container", data)
        }
        guard c.state == .disappeared else {
            data["appearance"] = .string(c.state.rawValue)
            throw .invalidState("Container \(c.id) is \(c.state.rawValue) (its appearance was driven by hand): \(role) comes from off screen", data)
        }
    }

    /// Refuses (-32003) moving or releasing a presented container: it is dismissed first.
    func refusePresented(_ c: ContainerRecord, path: String = "container") throws(RPCError) {
        guard case .presentation(let p) = c.parent else { return }
        throw .invalidState("Container \(c.id) is presented by \(p): dismiss it first (presentation.dismiss)",
                            ["container": .string(c.id), "presenter": .string(p), "path": .string(path)])
    }

    func registerPresentationMethods(into r: inout MethodRegistry<HostConnection>) {
        r.register(PresentationPresent.self) { [unowned self] conn, p async throws(RPCError) in
            let animated = p.animated ?? false
            let ms = try duration(p.duration, animated: animated)
            guard let style = PresentationStyle(rawValue: p.style) else { throw .invalidParams(path: "style", "unknown style") }
            if p.removesPresenterViews != nil, style != .custom {
                throw .invalidParams(path: "removesPresenterViews", "is for style \"custom\" only (the style \(style.rawValue) decides by itself)")
            }
            let x = try container(p.container, owner: conn)
            let presenter = try presentations.presenter(p.presenter, for: x.id, owner: conn)
            if presenter.id == x.id || { if case .stack(let s) = presenter { s.top === x } else { false } }() {
                throw .invalidState("Container \(x.id) cannot present itself", ["container": .string(x.id), "presenter": .string(p.presenter)])
            }
            try requireFree(x, as: "a presented container", uikit: "Application tried to present modally an active controller")
            let record = try await presentations.present(x, over: presenter, style: style, removesViews: p.removesPresenterViews,
                                                         animated: animated, durationMs: ms, modal: p.modalInPresentation ?? false)
            return ["presentation": presentations.info(record)]
        }
        r.register(PresentationDismiss.self) { [unowned self] conn, p async throws(RPCError) in
            let animated = p.animated ?? false
            let ms = try duration(p.duration, animated: animated)
            let x = try container(p.container, owner: conn)
            let chain = try await presentations.dismiss(x, animated: animated, durationMs: ms)
            return ["containers": .array(chain.map { .string($0.id) })]
        }
        r.register(PresentationBeginInteractiveDismiss.self) { [unowned self] conn, p async throws(RPCError) in
            let x = try container(p.container, owner: conn)
            let record = try await presentations.beginSwipe(x, shouldDismiss: p.shouldDismiss ?? true)
            return presentations.info(record)
        }
        r.register(PresentationUpdateInteractiveDismiss.self) { [unowned self] conn, p throws(RPCError) in
            guard p.progress >= 0, p.progress <= 1 else { throw .invalidParams(path: "progress", "must be between 0 and 1") }
            let record = try presentations.swiped(try container(p.container, owner: conn))
            record.gesture?.progress = p.progress
            return presentations.info(record)
        }
        r.register(PresentationFinishInteractiveDismiss.self) { [unowned self] conn, p async throws(RPCError) in
            let ms = try duration(p.duration, animated: true)
            let record = try presentations.swiped(try container(p.container, owner: conn))
            let (remaining, refused) = await presentations.endSwipe(record, dismisses: true, durationMs: ms)
            return ["presentation": presentations.info(record), "remainingMs": .double(remaining), "refused": .bool(refused)]
        }
        r.register(PresentationCancelInteractiveDismiss.self) { [unowned self] conn, p async throws(RPCError) in
            let ms = try duration(p.duration, animated: true)
            let record = try presentations.swiped(try container(p.container, owner: conn))
            let (remaining, refused) = await presentations.endSwipe(record, dismisses: false, durationMs: ms)
            return ["presentation": presentations.info(record), "remainingMs": .double(remaining), "refused": .bool(refused)]
        }
        r.register(PresentationInfo.self) { [unowned self] conn, p throws(RPCError) in
            let x = try container(p.container, owner: conn)
            guard let record = presentations.byPresented[x.id] else { throw presentations.notPresented(x) }
            return presentations.info(record)
        }
    }
}
