import CGreenroomPlugin
import Glibc
import GreenroomCore
import GreenroomHost
import GreenroomJSON
import Testing

// In-process plugins: init functions written as C function pointers, handed to
// `PluginLoader.initialize(entry:)`, for the errors no well-built library would show.

let currentABI = UInt32(GREENROOM_PLUGIN_ABI_VERSION)

/// A class table whose instance is `class_ctx` and whose hook does nothing.
func fakeClass(abi: UInt32 = currentABI, plugin: UnsafePointer<CChar>? = nil, hook: Bool = true) -> greenroom_class {
    var table = greenroom_class()
    table.abi_version = abi
    table.struct_size = UInt32(MemoryLayout<greenroom_class>.size)
    table.plugin_name = plugin
    table.class_ctx = UnsafeMutableRawPointer(bitPattern: 0x1000)
    table.create = { context, _, _ in context }
    if hook { table.hook = { _, _, _, _, _ in 0 } }
    table.destroy = { _ in }
    return table
}

func register(_ api: UnsafePointer<greenroom_host_api>?, _ host: OpaquePointer?, _ name: String,
              _ table: greenroom_class = fakeClass()) -> Int32 {
    var table = table
    return name.withCString { n in
        table.name = n
        return api!.pointee.register_class(host, &table)
    }
}

/// The names `registerListing` puts in `optional_hooks` (a global: init functions are C function pointers,
/// which capture nothing; the tests that use it run one at a time, serialized by the suite).
nonisolated(unsafe) var optionalHookNames: [String] = []

/// Registers a fake class whose table lists `names` in `optional_hooks` (NULL-terminated).
func registerListing(_ api: UnsafePointer<greenroom_host_api>?, _ host: OpaquePointer?, _ name: String, _ names: [String],
                     structSize: UInt32 = UInt32(MemoryLayout<greenroom_class>.size)) -> Int32 {
    let copies = names.map { strdup($0) } + [nil]
    defer { copies.forEach { free($0) } }
    var table = fakeClass()
    table.struct_size = structSize
    return copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { list in
        table.optional_hooks = list.baseAddress
        return register(api, host, name, table)
    }
}

/// A class whose hooks answer through the host API: `configure` sets `data.output` verbatim as its
/// output, any other hook fails with status 3 and no message. Its class_ctx (and instance) is the API.
func talkingClass(_ api: UnsafePointer<greenroom_host_api>?) -> greenroom_class {
    var table = fakeClass()
    table.class_ctx = UnsafeMutableRawPointer(mutating: api)
    table.hook = { instance, hook, input, length, call in
        let api = instance!.assumingMemoryBound(to: greenroom_host_api.self)
        guard String(cString: hook!) == "configure" else { return 3 }
        let value = try! JSONCodec.decode(UnsafeRawBufferPointer(start: input, count: length))
        let text = value["data"]?["output"]?.stringValue ?? ""
        return text.withCString { t in
            api.pointee.set_output(call, t, strlen(t))
            return 0
        }
    }
    table.create = { context, id, call in
        let api = context!.assumingMemoryBound(to: greenroom_host_api.self)
        guard String(cString: id!) != "c-refused" else {
            api.pointee.set_error(call, "no containers named c-refused")
            return nil
        }
        return context
    }
    table.instance_memory_bytes = 1234
    return table
}

/// The pointers a plugin kept from its init, for the "after init" test (globals for a C function pointer,
/// written and read by that one test).
nonisolated(unsafe) var keptAPI: UnsafePointer<greenroom_host_api>?
nonisolated(unsafe) var keptHost: OpaquePointer?

/// A class that refuses to be created, with no message.
func silentRefusal() -> greenroom_class {
    var table = fakeClass()
    table.create = { _, _, _ in nil }
    return table
}

/// A scripted class for name clashes.
final class ScriptedStub: ContainerClass {
    let name: String
    init(_ name: String) { self.name = name }
    var pluginName: String? { nil }
    var isScripted: Bool { true }
    func makeInstance(containerID: String) throws(HookFailure) -> ContainerInstance { throw HookFailure("unused") }
}

func loadError(_ body: () throws -> Void) -> PluginLoadError? {
    do {
        try body()
        return nil
    } catch let error as PluginLoadError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

@Suite struct PluginLoaderTests {
    @Test func aMissingFile() throws {
        let host = makeHost()
        let error = loadError { try PluginLoader.load(path: "/nonexistent/libNope.so", into: host) }
        #expect(error == .fileNotFound(path: "/nonexistent/libNope.so"))
        #expect(error?.description == "cannot load plugin /nonexistent/libNope.so: no such file")
    }

    @Test func aFileThatIsNotASharedLibrary() throws {
        var template = Array("/tmp/greenroom-not-a-plugin-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        try #require(fd >= 0)
        let path = String(cString: template)
        defer { unlink(path) }
        _ = "this is text, not ELF\n".withCString { write(fd, $0, strlen($0)) }
        close(fd)
        let error = loadError { try PluginLoader.load(path: path, into: makeHost()) }
        guard case .notALibrary(let p, let reason)? = error else {
            Issue.record("expected notALibrary, got \(String(describing: error))")
            return
        }
        #expect(p == path)
        #expect(reason.contains(path))  // dlerror() names the file and what is wrong with it
        #expect(error!.description.hasPrefix("cannot load plugin \(path): not a shared library ("))
    }

    @Test func aLibraryWithoutTheEntryPoint() throws {
        let path = try pluginLibrary("NoEntryPlugin")
        let host = makeHost()
        let before = host.classes.order
        let error = loadError { try PluginLoader.load(path: path, into: host) }
        guard case .missingSymbol(_, let symbol, let reason)? = error else {
            Issue.record("expected missingSymbol, got \(String(describing: error))")
            return
        }
        #expect(symbol == "greenroom_plugin_init")
        #expect(reason.contains("greenroom_plugin_init"))
        #expect(error!.description.contains("it does not export greenroom_plugin_init"))
        #expect(host.classes.order == before && host.classes.plugins.isEmpty)
    }

    @Test func aLibraryForAnotherABIVersion() throws {
        let path = try pluginLibrary("BadABIPlugin")
        let host = makeHost()
        let before = host.classes.order
        let error = loadError { try PluginLoader.load(path: path, into: host) }
        #expect(error == .abiMismatch(path: path, expected: currentABI, got: currentABI + 1,
                                      source: "greenroom_plugin_abi_version()"))
        #expect(error?.description == "cannot load plugin \(path): ABI version mismatch: expected \(currentABI), "
            + "got \(currentABI + 1) (from greenroom_plugin_abi_version()); rebuild the plugin against this host's greenroom_plugin.h")
        #expect(host.classes.order == before)
    }

    @Test func aClassTableForAnotherABIVersion() {
        let host = makeHost()
        let before = host.classes.order
        let log = LogRecorder()
        let error = loadError {
            try PluginLoader.initialize(entry: { api, host in register(api, host, "Future", fakeClass(abi: 7)) },
                                        path: "future.so", into: host, log: log.logger)
        }
        #expect(error == .abiMismatch(path: "future.so", expected: currentABI, got: 7, source: "class table of Future"))
        #expect(log.lines.contains { $0.level == .error && $0.message == error?.description })
        #expect(host.classes.order == before)
    }

    @Test func initFailing() {
        let host = makeHost()
        let log = LogRecorder()
        let error = loadError {
            try PluginLoader.initialize(entry: { api, host in
                api!.pointee.log(host, GREENROOM_LOG_ERROR, "no license file")
                return 7
            }, path: "failing.so", into: host, log: log.logger)
        }
        #expect(error == .initFailed(path: "failing.so", status: 7, message: "no license file"))
        #expect(error?.description == "cannot load plugin failing.so: greenroom_plugin_init returned 7: no license file")
        #expect(log.lines.first?.plugin == "failing")
        #expect(log.lines.first?.level == .error)
    }

    @Test func noClasses() {
        let error = loadError {
            try PluginLoader.initialize(entry: { _, _ in 0 }, path: "empty.so", into: makeHost(), log: { _, _, _ in })
        }
        #expect(error == .noClasses(path: "empty.so"))
        #expect(error?.description == "cannot load plugin empty.so: greenroom_plugin_init registered no classes")
    }

    @Test func aClassNameTakenByAnotherPlugin() throws {
        let host = makeHost()
        let path = try pluginLibrary("CounterPlugin")
        try load("CounterPlugin", into: host)
        let error = loadError { try PluginLoader.load(path: path, into: host, log: { _, _, _ in }) }
        guard case .duplicateClass(_, "Counter", "plugin counter")? = error else {
            Issue.record("expected duplicateClass, got \(String(describing: error))")
            return
        }
        #expect(error!.description.hasSuffix("class Counter is already defined (by plugin counter)"))
        #expect(host.classes.plugins.count == 1)
    }

    @Test func aClassNameTakenByAScriptedClass() throws {
        let host = makeHost()
        try host.classes.register(ScriptedStub("Counter"))
        let path = try pluginLibrary("CounterPlugin")
        let error = loadError { try PluginLoader.load(path: path, into: host, log: { _, _, _ in }) }
        guard case .duplicateClass(_, "Counter", "a scripted class")? = error else {
            Issue.record("expected duplicateClass, got \(String(describing: error))")
            return
        }
        #expect(host.classes.plugins.isEmpty)
    }

    @Test func aClassRegisteredTwice() {
        let error = loadError {
            try PluginLoader.initialize(entry: { api, host in
                register(api, host, "Twice") | register(api, host, "Twice")
            }, path: "twice.so", into: makeHost(), log: { _, _, _ in })
        }
        #expect(error == .duplicateClass(path: "twice.so", name: "Twice", owner: "this plugin, which registers it twice"))
    }

    @Test func aRefusedLibraryAddsNoClassAtAll() {
        let host = makeHost()
        let error = loadError {
            try PluginLoader.initialize(entry: { api, host in
                _ = register(api, host, "Good")
                _ = register(api, host, "NoHook", fakeClass(hook: false))
                return 0  // ignores the refusal; the host does not
            }, path: "half.so", into: host, log: { _, _, _ in })
        }
        #expect(error == .invalidClass(path: "half.so", name: "NoHook", reason: "no hook function"))
        #expect(host.classes["Good"] == nil)
        #expect(host.classes.plugins.isEmpty)
    }

    @Test func invalidClassTables() {
        func refusal(_ entry: greenroom_plugin_init_fn) -> PluginLoadError? {
            loadError { try PluginLoader.initialize(entry: entry, path: "bad.so", into: makeHost(), log: { _, _, _ in }) }
        }
        #expect(refusal({ api, host in register(api, host, "") }) == .invalidClass(
            path: "bad.so", name: nil, reason: "its name is missing, empty or not UTF-8"))
        #expect(refusal({ api, host in
            var table = fakeClass()
            table.struct_size = 16
            return register(api, host, "Small", table)
        }) == .invalidClass(path: "bad.so", name: nil,
                            reason: "struct_size is 16, a version-1 greenroom_class has 80 bytes"))
        #expect(refusal({ api, host in
            "one".withCString { one in
                "two".withCString { two in
                    register(api, host, "A", fakeClass(plugin: one)) | register(api, host, "B", fakeClass(plugin: two))
                }
            }
        }) == .invalidClass(path: "bad.so", name: "B", reason: "its plugin_name two differs from one, given by an earlier class"))
    }

    @Test func registeringAfterInitIsRefused() throws {
        let host = makeHost()
        let before = host.classes.order
        try PluginLoader.initialize(entry: { api, host in
            keptAPI = api
            keptHost = host
            return register(api, host, "Early")
        }, path: "late.so", into: host, log: { _, _, _ in })
        #expect(register(keptAPI, keptHost, "Late") != 0)
        #expect(host.classes.order == before + ["Early"])
        // Unnamed plugins are named after their file.
        #expect(host.classes.plugins.first?.name == "late")
    }

    @Test func hooksOutputErrorsAndMemoryThroughTheHostAPI() async throws {
        let host = makeHost()
        try PluginLoader.initialize(entry: { api, host in
            register(api, host, "Talking", talkingClass(api)) | register(api, host, "Refusing", silentRefusal())
        }, path: "talking.so", into: host, log: { _, _, _ in })
        let talking = try #require(host.classes["Talking"])
        let instance = try await talking.makeInstance(containerID: "c-1")
        #expect(instance.memoryBytes == 1234)
        await #expect(try instance.run(.configure, input: ["data": ["output": "{\"ok\":[1,2]}"]]) == ["ok": [1, 2]])
        await #expect(try instance.run(.configure, input: ["data": ["output": ""]]) == nil)

        let invalid = try await #require(throws: HookFailure.self) {
            try await instance.run(.configure, input: ["data": ["output": "{not json"]])
        }
        #expect(invalid.message.hasPrefix("Talking.configure returned invalid JSON: "))
        #expect(invalid.data["plugin"] == "talking")

        let silent = try await #require(throws: HookFailure.self) { try await instance.run(.viewDidLoad, input: [:]) }
        #expect(silent.message == "Talking.viewDidLoad failed with status 3 and set no error")
        #expect(silent.data["status"] == 3)

        await instance.destroy()
        #expect(instance.memoryBytes == 0)
        await #expect(throws: HookFailure.self) { try await instance.run(.configure, input: [:]) }

        var refusal: HookFailure?
        do throws(HookFailure) { _ = try await talking.makeInstance(containerID: "c-refused") } catch { refusal = error }
        let refused = try #require(refusal)
        #expect(refused.message == "no containers named c-refused")
        #expect(refused.data["hook"] == "create")
        let refusing = try #require(host.classes["Refusing"])
        var silence: HookFailure?
        do throws(HookFailure) { _ = try await refusing.makeInstance(containerID: "c-2") } catch { silence = error }
        let silentCreate = try #require(silence)
        #expect(silentCreate.message == "Refusing: create returned no instance and set no error")
    }
}

/// `optional_hooks`, the field appended to version 1's table: the names a class lists are the optional
/// hooks its containers get; anything else refuses the class; a version-1 table never has it read.
/// Serialized: the init functions read the names from one global.
@Suite(.serialized) struct OptionalHookTableTests {
    @Test func optionalHooksAreReadFromTablesThatHaveThem() throws {
        let host = makeHost()
        optionalHookNames = ["viewLayoutMarginsDidChange", "viewSafeAreaInsetsDidChange", "viewWillTransitionToSize"]
        try PluginLoader.initialize(entry: { api, host in
            registerListing(api, host, "Insets", optionalHookNames) | register(api, host, "Plain")
        }, path: "insets.so", into: host, log: { _, _, _ in })
        #expect(host.classes["Insets"]?.optionalHooks == Hook.optional)
        #expect(host.classes["Plain"]?.optionalHooks == [])
    }

    @Test func aVersion1TableHasNoOptionalHooksRead() throws {
        let host = makeHost()
        optionalHookNames = ["not a hook"]
        try PluginLoader.initialize(entry: { api, host in
            registerListing(api, host, "Old", optionalHookNames, structSize: UInt32(MemoryLayout<greenroom_class>.offset(of: \.optional_hooks)!))
        }, path: "old.so", into: host, log: { _, _, _ in })
        #expect(host.classes["Old"]?.optionalHooks == [])
    }

    @Test func anOptionalHookThatIsNotOneRefusesTheClass() {
        for bad in ["viewDidLoad", "viewSafeAreaInsetChanged", ""] {
            let host = makeHost()
            optionalHookNames = ["viewLayoutMarginsDidChange", bad]
            let error = loadError {
                try PluginLoader.initialize(entry: { api, host in registerListing(api, host, "Insets", optionalHookNames) },
                                            path: "bad.so", into: host, log: { _, _, _ in })
            }
            #expect(error == .invalidClass(path: "bad.so", name: "Insets",
                reason: "optional_hooks names \"\(bad)\", which is not an optional hook (viewLayoutMarginsDidChange, viewSafeAreaInsetsDidChange, viewWillTransitionToSize)"))
            #expect(host.classes["Insets"] == nil)
        }
    }
}
