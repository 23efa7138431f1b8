import CGreenroomPlugin
import Glibc
import GreenroomCore
import GreenroomJSON

/// Turns Swift container types into the C class tables of `greenroom_plugin.h`. A plugin's whole entry
/// point:
///
/// ```swift
/// @_cdecl("greenroom_plugin_init")
/// public func greenroomPluginInit(api: PluginKit.API, host: PluginKit.HostPointer) -> Int32 {
///     PluginKit.register(api, host, plugin: "article", version: "1.0", classes: [Article.self])
/// }
/// ```
public enum PluginKit {
    public typealias API = UnsafePointer<greenroom_host_api>?
    public typealias HostPointer = OpaquePointer?

    /// Registers `classes` with the host. Returns what `greenroom_plugin_init` returns: 0, or non-zero
    /// when the host's ABI is not this one or a class was refused (the host says why).
    public static func register(_ api: API, _ host: HostPointer, plugin: String, version: String,
                                classes: [any PluginContainer.Type]) -> Int32 {
        guard let api, let host else { return 1 }
        guard api.pointee.abi_version == UInt32(GREENROOM_PLUGIN_ABI_VERSION),
              Int(api.pointee.struct_size) >= MemoryLayout<greenroom_host_api>.size else {
            // The table's layout is unknown, so not even `log` is safe to call.
            return 2
        }
        let pluginHost = PluginHost(api: api, host: host)
        for type in classes {
            // Retained for good: the host may create instances until the process ends.
            let context = Unmanaged.passRetained(ClassContext(type: type, host: pluginHost)).toOpaque()
            var table = greenroom_class()
            table.abi_version = UInt32(GREENROOM_PLUGIN_ABI_VERSION)
            table.struct_size = UInt32(MemoryLayout<greenroom_class>.size)
            table.class_ctx = context
            table.create = { context, containerID, call in
                Unmanaged<ClassContext>.fromOpaque(context!).takeUnretainedValue()
                    .create(containerID: containerID.map { String(cString: $0) } ?? "", call: call)
            }
            table.hook = { instance, hook, input, length, call in
                Unmanaged<InstanceBox>.fromOpaque(instance!).takeUnretainedValue()
                    .run(hook: hook, input: input, length: length, call: call)
            }
            table.memory_bytes = { instance in
                let bytes = Unmanaged<InstanceBox>.fromOpaque(instance!).takeUnretainedValue().container.memoryBytes
                return bytes > 0 ? bytes : 0
            }
            table.destroy = { instance in
                Unmanaged<InstanceBox>.fromOpaque(instance!).release()
            }
            // The optional hooks' names, NULL-terminated; the host copies what it reads during the call.
            let optional = type.optionalHooks.map(\.rawValue).sorted().map { strdup($0) } + [nil]
            defer { optional.forEach { free($0) } }
            let status = type.className.withCString { name in
                plugin.withCString { pluginName in
                    version.withCString { pluginVersion in
                        optional.map { UnsafePointer($0) }.withUnsafeBufferPointer { hooks in
                            table.name = name
                            table.plugin_name = pluginName
                            table.plugin_version = pluginVersion
                            table.optional_hooks = optional.count > 1 ? hooks.baseAddress : nil
                            return api.pointee.register_class(host, &table)
                        }
                    }
                }
            }
            if status != 0 { return status }
        }
        return 0
    }
}

/// What a registered class's `class_ctx` points at.
final class ClassContext {
    let type: any PluginContainer.Type
    let host: PluginHost

    init(type: any PluginContainer.Type, host: PluginHost) {
        self.type = type
        self.host = host
    }

    func create(containerID: String, call: OpaquePointer?) -> UnsafeMutableRawPointer? {
        do {
            let container = try type.init(containerID: containerID, host: host)
            return Unmanaged.passRetained(InstanceBox(container: container, host: host)).toOpaque()
        } catch {
            host.api.pointee.set_error(call, "\(type.className): \(error)")
            return nil
        }
    }
}

/// What an instance pointer handed to the host points at.
final class InstanceBox {
    let container: any PluginContainer
    let host: PluginHost

    init(container: any PluginContainer, host: PluginHost) {
        self.container = container
        self.host = host
    }

    func run(hook name: UnsafePointer<CChar>?, input: UnsafePointer<CChar>?, length: Int, call: OpaquePointer?) -> Int32 {
        // A hook a newer host added is not this plugin's business.
        guard let name, let hook = Hook(rawValue: String(cString: name)) else { return 0 }
        do {
            var object = JSONObject()
            if let input, length > 0 {
                let value = try JSONCodec.decode(UnsafeRawBufferPointer(start: input, count: length))
                object = value.objectValue ?? [:]
            }
            guard let output = try container.run(hook, input: object) else { return 0 }
            let bytes = JSONCodec.encode(output)
            bytes.withUnsafeBytes { raw in
                host.api.pointee.set_output(call, raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count)
            }
            return 0
        } catch {
            host.api.pointee.set_error(call, "\(error)")
            return 1
        }
    }
}
