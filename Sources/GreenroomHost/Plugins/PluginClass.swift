import CGreenroomPlugin
import GreenroomCore
import GreenroomJSON

/// A container class from a native plugin: every call goes through the class table the plugin
/// registered (`greenroom_class`), with JSON crossing as UTF-8 buffers.
public final class PluginClass: ContainerClass {
    public let name: String
    public var pluginName: String? { plugin }
    public var isScripted: Bool { false }
    /// The plugin's name, as `host.info` reports it.
    public let plugin: String
    package let table: greenroom_class
    /// Depth limit for hooks' output JSON.
    package let maxOutputDepth: Int
    /// Most bytes one hook's output may have (`--plugin-output-limit`).
    package let maxOutputBytes: Int

    /// The optional hooks its table lists (`optional_hooks`).
    public let optionalHooks: Set<Hook>

    package init(name: String, plugin: String, table: greenroom_class, optionalHooks: Set<Hook> = [], maxOutputDepth: Int,
         maxOutputBytes: Int = .max) {
        self.name = name
        self.optionalHooks = optionalHooks
        self.plugin = plugin
        self.table = table
        self.maxOutputDepth = maxOutputDepth
        self.maxOutputBytes = maxOutputBytes
    }

    public func makeInstance(containerID: String) async throws(HookFailure) -> ContainerInstance {
        try makeNativeInstance(containerID: containerID)
    }

    /// Calls the plugin's `create` (a call into this process never waits).
    package func makeNativeInstance(containerID: String) throws(HookFailure) -> PluginInstance {
        let call = PluginCall()
        let instance = call.with { c in
            containerID.withCString { id in table.create!(table.class_ctx, id, c) }
        }
        guard let instance else {
            throw HookFailure(call.error ?? "\(name): create returned no instance and set no error",
                              failureData(hook: "create", containerID: containerID))
        }
        return PluginInstance(class: self, pointer: instance, containerID: containerID)
    }

    package func failureData(hook: String, containerID: String, status: Int32? = nil, reason: String = "failed") -> JSONObject {
        var data: JSONObject = ["hook": .string(hook), "plugin": .string(plugin), "class": .string(name),
                                "container": .string(containerID), "reason": .string(reason)]
        if let status { data["status"] = .int(Int(status)) }
        return data
    }
}

/// One container's plugin-side state: the pointer `create` returned.
package final class PluginInstance: ContainerInstance {
    package let cls: PluginClass
    package let containerID: String
    private var pointer: UnsafeMutableRawPointer?

    package init(class cls: PluginClass, pointer: UnsafeMutableRawPointer, containerID: String) {
        self.cls = cls
        self.pointer = pointer
        self.containerID = containerID
    }

    package func run(_ hook: Hook, input: JSONObject) async throws(HookFailure) -> JSONValue? {
        try run(hook, inputJSON: JSONCodec.encode(.object(input)))
    }

    /// `run` with the input already encoded (a JSON object).
    package func run(_ hook: Hook, inputJSON: [UInt8]) throws(HookFailure) -> JSONValue? {
        guard let pointer else {
            throw HookFailure("\(cls.name).\(hook.rawValue) ran after the instance was destroyed",
                              cls.failureData(hook: hook.rawValue, containerID: containerID))
        }
        // A NUL after the JSON lets C plugins treat it as a C string; the length excludes it.
        var bytes = inputJSON
        let length = bytes.count
        bytes.append(0)
        let call = PluginCall(outputLimit: cls.maxOutputBytes)
        let table = cls.table
        let status = call.with { c in
            hook.rawValue.withCString { name in
                bytes.withUnsafeBytes { raw in
                    table.hook!(pointer, name, raw.baseAddress!.assumingMemoryBound(to: CChar.self), length, c)
                }
            }
        }
        guard status == 0 else {
            throw HookFailure(call.error ?? "\(cls.name).\(hook.rawValue) failed with status \(status) and set no error",
                              cls.failureData(hook: hook.rawValue, containerID: containerID, status: status))
        }
        if let size = call.oversizedOutput {
            throw HookFailure("\(cls.name).\(hook.rawValue) set \(size) bytes of output, over the limit of \(cls.maxOutputBytes) (--plugin-output-limit)",
                              mergingData(cls.failureData(hook: hook.rawValue, containerID: containerID, reason: "outputTooLarge"),
                                          ["outputBytes": .int(size), "limitBytes": .int(cls.maxOutputBytes)]))
        }
        guard let output = call.output, !output.isEmpty else { return nil }
        do {
            return try JSONCodec.decode(output, maxDepth: cls.maxOutputDepth)
        } catch {
            throw HookFailure("\(cls.name).\(hook.rawValue) returned invalid JSON: \(Self.describe(error))",
                              cls.failureData(hook: hook.rawValue, containerID: containerID, reason: "invalidOutput"))
        }
    }

    package var memoryBytes: Int {
        guard let pointer else { return 0 }
        if let measure = cls.table.memory_bytes { return Int(clamping: measure(pointer)) }
        return Int(clamping: cls.table.instance_memory_bytes)
    }

    package func destroy() async { release() }

    /// Frees the plugin's state, once.
    package func release() {
        guard let p = pointer else { return }
        pointer = nil
        cls.table.destroy!(p)
    }

    deinit {
        // The host calls destroy(); this only keeps a missed call from leaking the plugin's state.
        release()
    }

    package static func describe(_ error: JSONDecodeError) -> String {
        switch error {
        case .syntax(let message, let line, let column, _): "\(message) at line \(line), column \(column)"
        case .tooDeep(let limit): "nested deeper than \(limit)"
        }
    }
}
