import GreenroomCore
import GreenroomHost
import GreenroomJSON
import Testing

/// The Swift example plugin (built with GreenroomPluginKit), loaded from its shared library.
@Suite struct ArticlePluginTests {
    let sample: JSONValue = [
        "title": "Pools & <Prerendering>",
        "subtitle": "Why the green room works",
        "author": ["name": "Ada", "handle": "ada"],
        "tags": ["swift", "libuv"],
        "body": "Containers wait, loaded and laid out, until they go on stage.",
        "items": [
            ["name": "Pool", "price": 3, "currency": "$", "url": "/pool"],
            ["name": "Stage", "soldOut": true, "url": "/stage"],
        ],
    ]

    @Test func registersTheArticleClass() throws {
        let host = makeHost()
        let info = try load("ArticlePlugin", into: host)
        #expect(info.name == "article")
        #expect(info.version == "1.0.0")
        #expect(info.classes == ["Article"])
        #expect(info.path.hasPrefix("/") && info.path.hasSuffix("/libArticlePlugin.so"))
        #expect(host.classes.plugins.map(\.name) == ["article"])
        let cls = try #require(host.classes["Article"])
        #expect(cls.pluginName == "article")
        #expect(!cls.isScripted)
    }

    @Test func livesThroughEveryHook() async throws {
        #expect(Set(lifeOrder) == Set(Hook.allCases))
        let host = makeHost()
        try load("ArticlePlugin", into: host)
        let article = try await instance(of: "Article", in: host)
        let fresh = article.memoryBytes
        var outputs: [Hook: JSONValue] = [:]
        var memory: [Hook: Int] = [:]
        for hook in lifeOrder {
            outputs[hook] = try await article.run(hook, input: input(for: hook, data: hook == .configure ? sample : .null))
            memory[hook] = article.memoryBytes
        }
        // viewDidLoad parsed the template: real nodes, real bytes.
        let nodes = try #require(outputs[.viewDidLoad]?["nodes"]?.intValue)
        #expect(nodes > 40)
        #expect(memory[.viewDidLoad]! > fresh + 2000)
        // configure rendered the page at the laid-out size and holds it.
        let out = try #require(outputs[.configure])
        #expect(out["title"] == "Pools & <Prerendering>")
        #expect(out["size"] == ["width": 390.0, "height": 844.0])
        let bytes = try #require(out["bytes"]?.intValue)
        #expect(bytes > 2000)
        #expect(out["checksum"]?.intValue != nil)
        #expect(memory[.configure]! >= memory[.viewDidLoad]! + bytes)
        // The memory warning gave the page back.
        #expect(outputs[.didReceiveMemoryWarning] == ["freed": .int(bytes)])
        #expect(memory[.didReceiveMemoryWarning]! <= memory[.configure]! - bytes)
        // deinit released everything but the object itself; destroy frees that.
        #expect(memory[.deinitialize]! < fresh + 64)
        await article.destroy()
        #expect(article.memoryBytes == 0)
    }

    @Test func rendersSectionsEscapedAndAtTheLaidOutSize() async throws {
        let host = makeHost()
        try load("ArticlePlugin", into: host)
        let article = try await instance(of: "Article", in: host, id: "c-7")
        _ = try await article.run(.viewDidLoad, input: [:])
        _ = try await article.run(.viewDidLayoutSubviews, input: ["size": ["width": 768, "height": 1024]])
        var data = sample.objectValue!
        data["includeHTML"] = true
        let html = try await #require(try article.run(.configure, input: ["data": .object(data)])?["html"]?.stringValue)
        #expect(html.contains("<title>Pools &amp; &lt;Prerendering&gt;</title>"))
        #expect(html.contains("<a href=\"/authors/ada\">Ada</a>"))
        #expect(html.contains("<li>swift</li><li>libuv</li>"))
        #expect(html.contains("<span class=\"price\">$3</span>"))
        #expect(html.contains("class=\"item sold-out\""))
        #expect(html.contains("<span class=\"price\">free</span>"))
        #expect(!html.contains("Nothing mentioned here."))
        #expect(html.contains("content=\"width=768, height=1024"))
        #expect(html.contains("Rendered for container c-7 at 768×1024."))
        #expect(!html.contains("{{"))

        // Inverted sections render when the data is missing.
        let bare = try await #require(try article.run(.configure, input: ["data": ["title": "Bare", "includeHTML": true]])?["html"]?.stringValue)
        #expect(bare.contains("By the editors"))
        #expect(bare.contains("Nothing mentioned here."))
        #expect(bare.contains("<html lang=\"en\">"))
    }

    @Test func theChecksumFollowsTheData() async throws {
        let host = makeHost()
        try load("ArticlePlugin", into: host)
        let a = try await instance(of: "Article", in: host, id: "c-1")
        let b = try await instance(of: "Article", in: host, id: "c-1")
        // configure on a view that never loaded loads it first.
        let first = try await a.run(.configure, input: ["data": sample])
        let same = try await b.run(.configure, input: ["data": sample])
        #expect(first == same)
        var changed = sample.objectValue!
        changed["title"] = "Another title"
        let other = try await a.run(.configure, input: ["data": .object(changed)])
        #expect(other?["checksum"] != first?["checksum"])
        #expect(other?["title"] == "Another title")
        await a.destroy()
        await b.destroy()
    }

    @Test func configureFailsWhenTheDataAsks() async throws {
        let host = makeHost()
        try load("ArticlePlugin", into: host)
        let article = try await instance(of: "Article", in: host, id: "c-3")
        _ = try await article.run(.viewDidLoad, input: [:])
        let failure = try await #require(throws: HookFailure.self) {
            try await article.run(.configure, input: ["data": ["title": "x", "fail": true]])
        }
        #expect(failure.message == "Article.configure failed on purpose: data.fail is true (container c-3)")
        #expect(failure.data["hook"] == "configure")
        #expect(failure.data["plugin"] == "article")
        #expect(failure.data["class"] == "Article")
        #expect(failure.data["container"] == "c-3")

        let notObject = try await #require(throws: HookFailure.self) {
            try await article.run(.configure, input: ["data": "a string"])
        }
        #expect(notObject.message == "Article.configure expects data to be an object, got string")
        await article.destroy()
    }
}
