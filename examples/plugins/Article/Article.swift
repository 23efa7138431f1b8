import GreenroomPluginKit

/// The web page of the article on prerendering view controllers (docs/pools.md) as a container class: `viewDidLoad`
/// parses the page template (the costly
/// part a prerender pool hides), `configure` renders the business data into HTML, the layout hooks
/// record the size the page is laid out at, and a memory warning drops the rendered page.
final class Article: PluginContainer {
    /// The page's text sits within the root view's layout margins, so it asks to hear when they change (a
    /// hook UIKit sends every controller but the host only to classes that ask): on joining a stack and
    /// when the stack is resized.
    static var optionalHooks: Set<Hook> { [.viewLayoutMarginsDidChange] }

    let containerID: String
    let host: PluginHost
    private var template: Template?
    /// Data from `init`, rendered by the first `configure` that brings none.
    private var data: JSONValue = .null
    private var html: String?
    private var size: Size?
    /// How often the layout margins changed (the next layout re-flows the page within them).
    private var marginChanges = 0

    init(containerID: String, host: PluginHost) {
        self.containerID = containerID
        self.host = host
    }

    func run(_ hook: Hook, input: JSONObject) throws -> JSONValue? {
        switch hook {
        case .initialize:
            if let d = input["data"], d != .null { data = d }
            return nil
        case .viewDidLoad:
            let template = try loadTemplate()
            return ["nodes": .int(template.nodeCount)]
        case .viewWillLayoutSubviews, .viewDidLayoutSubviews:
            if let s = input["size"], let w = s["width"]?.doubleValue, let h = s["height"]?.doubleValue {
                size = Size(width: w, height: h)
            }
            return nil
        case .viewLayoutMarginsDidChange:
            marginChanges += 1
            return ["marginChanges": .int(marginChanges)]
        case .configure:
            return try configure(input["data"] ?? .null)
        case .didReceiveMemoryWarning:
            // The parsed template stays (the view stays loaded); the rendered page is rebuilt on demand.
            let freed = html?.utf8.count ?? 0
            html = nil
            return ["freed": .int(freed)]
        case .deinitialize:
            template = nil
            html = nil
            data = .null
            return nil
        default:
            return nil
        }
    }

    private func loadTemplate() throws -> Template {
        if let template { return template }
        let parsed = try Template(parsing: articleTemplate)
        template = parsed
        return parsed
    }

    private func configure(_ given: JSONValue) throws -> JSONValue {
        let data = given == .null ? self.data : given
        guard case .object(var context) = data else {
            throw PluginError("Article.configure expects data to be an object, got \(data.typeName)")
        }
        if context["fail"] == .bool(true) {
            throw PluginError("Article.configure failed on purpose: data.fail is true (container \(containerID))")
        }
        // Configuring a container whose view never loaded loads it first, as UIKit's `view` accessor does.
        let template = try loadTemplate()
        self.data = data
        context["container"] = .string(containerID)
        if let size { context["viewport"] = ["width": .double(size.width), "height": .double(size.height)] }
        let page = template.render(.object(context))
        html = page
        var output: JSONObject = [
            "bytes": .int(page.utf8.count),
            "checksum": .int(Int(Article.checksum(page))),
            "title": context["title"]?.stringValue.map { .string($0) } ?? .null,
            "size": size.map { ["width": .double($0.width), "height": .double($0.height)] } ?? .null,
        ]
        if context["includeHTML"] == .bool(true) { output["html"] = .string(page) }
        return .object(output)
    }

    /// FNV-1a over the page's UTF-8: the same data at the same size renders the same checksum.
    static func checksum(_ page: String) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in page.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return hash
    }

    var memoryBytes: Int {
        256 + (template?.byteCount ?? 0) + (html?.utf8.count ?? 0) + Article.estimate(data)
    }

    /// Roughly what a JSON value holds in memory.
    static func estimate(_ value: JSONValue) -> Int {
        switch value {
        case .null, .bool, .int, .double: return 16
        case .string(let s): return 16 + s.utf8.count
        case .array(let a): return a.reduce(32) { $0 + estimate($1) }
        case .object(let o): return o.members.reduce(32) { $0 + 16 + $1.key.utf8.count + estimate($1.value) }
        }
    }
}
