import CGreenroomPlugin
import GreenroomCore

/// How a plugin's log line is rated (`greenroom_log_level`).
public enum PluginLogLevel: String, Sendable {
    case debug, info, warning, error

    package init(_ level: greenroom_log_level) {
        switch level {
        case GREENROOM_LOG_DEBUG: self = .debug
        case GREENROOM_LOG_INFO: self = .info
        case GREENROOM_LOG_WARNING: self = .warning
        default: self = .error
        }
    }
}

/// Where plugins' log lines go: (plugin name, level, message). The host takes one; it does not make one.
public typealias PluginLogger = (_ plugin: String, _ level: PluginLogLevel, _ message: String) -> Void

/// What one loaded library's `greenroom_host *` points at. It lives as long as the process: the
/// plugin keeps the pointer, and libraries are never unloaded.
package final class PluginHostContext {
    package let path: String
    /// Weak: the host owns the classes that own this context.
    weak var host: Host?
    package let logger: PluginLogger
    /// The plugin's name: its file name until a class names the plugin.
    package var pluginName: String
    package var pluginVersion = ""
    package var namedByClass = false
    /// `register_class` is accepted only while init runs.
    package var isInitializing = false
    package var registered: [greenroom_class] = []
    package var registeredNames: [String] = []
    /// Each registered class's `optional_hooks`.
    package var registeredOptionalHooks: [Set<Hook>] = []
    /// The first problem `register_class` met; refuses the library whatever init returns.
    package var registrationError: PluginLoadError?
    /// The last error the plugin logged while init ran, for `initFailed`'s message.
    package var lastErrorDuringInit: String?

    /// Background work when the context has no host (a plugin worker process runs its own). Set once,
    /// when the worker starts and before any plugin runs; C callbacks (which cannot capture) read it.
    package nonisolated(unsafe) static var processScheduler: WorkScheduler?

    /// The byte limit on one call's output (`set_output`); past it the call fails.
    package var outputLimit = Int.max

    /// `host` is nil in a plugin worker process: `queue_work` then runs inline.
    package init(path: String, host: Host?, logger: @escaping PluginLogger) {
        self.path = path
        self.host = host
        self.logger = logger
        pluginName = PluginHostContext.stem(of: path)
    }

    /// `libCounterPlugin.so` -> `CounterPlugin`.
    package static func stem(of path: String) -> String {
        var name = Substring(path.split(separator: "/").last ?? Substring(path))
        if name.hasPrefix("lib") { name = name.dropFirst(3) }
        if let dot = name.firstRange(of: ".so") { name = name[..<dot.lowerBound] }
        return name.isEmpty ? path : String(name)
    }

    /// The pointer handed to the plugin. Retained for good (see the type's comment).
    package func retainedPointer() -> OpaquePointer {
        OpaquePointer(Unmanaged.passRetained(self).toOpaque())
    }

    package static func from(_ pointer: OpaquePointer?) -> PluginHostContext? {
        guard let pointer else { return nil }
        return Unmanaged<PluginHostContext>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    /// The size of a version-1 class table: fields are only ever appended after `instance_memory_bytes`.
    package static let classTableV1Size = MemoryLayout<greenroom_class>.offset(of: \.instance_memory_bytes)! + MemoryLayout<Int>.size

    /// Validates and copies one class table (`register_class`). Returns 0, or -1 after recording why.
    package func register(_ table: UnsafePointer<greenroom_class>) -> Int32 {
        func refuse(_ error: PluginLoadError) -> Int32 {
            if registrationError == nil { registrationError = error }
            logger(pluginName, .error, error.description)
            return -1
        }
        guard isInitializing else {
            logger(pluginName, .error, "register_class called after greenroom_plugin_init returned; ignored")
            return -1
        }
        // The version comes first: in another version, the rest of the table may mean something else.
        let version = table.pointee.abi_version
        guard version == UInt32(GREENROOM_PLUGIN_ABI_VERSION) else {
            let name = table.pointee.struct_size >= UInt32(Self.classTableV1Size) ? Self.string(table.pointee.name) : nil
            return refuse(.abiMismatch(path: path, expected: UInt32(GREENROOM_PLUGIN_ABI_VERSION), got: version,
                                       source: "class table\(name.map { " of \($0)" } ?? "")"))
        }
        guard Int(table.pointee.struct_size) >= Self.classTableV1Size else {
            return refuse(.invalidClass(path: path, name: nil,
                reason: "struct_size is \(table.pointee.struct_size), a version-1 greenroom_class has \(Self.classTableV1Size) bytes"))
        }
        // Read only the fields the plugin's table has; later fields stay zero.
        var copy = greenroom_class()
        withUnsafeMutableBytes(of: &copy) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(start: table, count: min(Int(table.pointee.struct_size), dst.count)))
        }
        guard let name = Self.string(copy.name), !name.isEmpty else {
            return refuse(.invalidClass(path: path, name: nil, reason: "its name is missing, empty or not UTF-8"))
        }
        var missing: [String] = []
        if copy.create == nil { missing.append("create") }
        if copy.hook == nil { missing.append("hook") }
        if copy.destroy == nil { missing.append("destroy") }
        guard missing.isEmpty else {
            return refuse(.invalidClass(path: path, name: name, reason: "no \(missing.joined(separator: ", ")) function"))
        }
        if let plugin = Self.string(copy.plugin_name), !plugin.isEmpty {
            if namedByClass && plugin != pluginName {
                return refuse(.invalidClass(path: path, name: name,
                    reason: "its plugin_name \(plugin) differs from \(pluginName), given by an earlier class"))
            }
            pluginName = plugin
            namedByClass = true
        }
        if let version = Self.string(copy.plugin_version), !version.isEmpty { pluginVersion = version }
        var optional = Set<Hook>()
        if var list = copy.optional_hooks {
            while let entry = list.pointee {
                guard let hookName = Self.string(entry), let hook = Hook(rawValue: hookName), Hook.optional.contains(hook) else {
                    let known = Hook.optional.map(\.rawValue).sorted().joined(separator: ", ")
                    return refuse(.invalidClass(path: path, name: name,
                        reason: "optional_hooks names \(Self.string(entry).map { "\"\($0)\"" } ?? "a string that is not UTF-8"), which is not an optional hook (\(known))"))
                }
                optional.insert(hook)
                list += 1
            }
        }
        // The host keeps its own copies of the strings: the plugin may free its own.
        copy.name = nil
        copy.plugin_name = nil
        copy.plugin_version = nil
        copy.optional_hooks = nil
        registered.append(copy)
        registeredNames.append(name)
        registeredOptionalHooks.append(optional)
        return 0
    }

    package static func string(_ p: UnsafePointer<CChar>?) -> String? {
        p.flatMap { String(validatingCString: $0) }
    }
}

/// The host API table every plugin receives. One table for the process; `greenroom_host *` tells
/// plugins (and hosts) apart.
package enum PluginHostAPI {
    /// Built once, on first use, and never written again: plugins only read it (through the pointer they
    /// keep), so sharing it across threads is safe though its pointer type is not `Sendable`.
    package nonisolated(unsafe) static let table: UnsafePointer<greenroom_host_api> = {
        let t = UnsafeMutablePointer<greenroom_host_api>.allocate(capacity: 1)
        t.initialize(to: greenroom_host_api(
            abi_version: UInt32(GREENROOM_PLUGIN_ABI_VERSION),
            struct_size: UInt32(MemoryLayout<greenroom_host_api>.size),
            register_class: { host, table in
                guard let context = PluginHostContext.from(host), let table else { return -1 }
                return context.register(table)
            },
            log: { host, level, message in
                guard let context = PluginHostContext.from(host), let message else { return }
                let text = String(cString: message)
                let level = PluginLogLevel(level)
                if context.isInitializing && level == .error { context.lastErrorDuringInit = text }
                context.logger(context.pluginName, level, text)
            },
            queue_work: { host, work, done, ctx in
                guard let context = PluginHostContext.from(host), let work, let done else { return -1 }
                guard let scheduler = context.host?.workScheduler ?? PluginHostContext.processScheduler else {
                    // No thread pool (unit tests): run it now, as the contract allows.
                    work(ctx)
                    done(ctx, 0)
                    return 0
                }
                scheduler.queue(work: { work(ctx) }, done: { done(ctx, 0) })
                return 0
            },
            set_output: { call, json, length in
                guard let call = PluginCall.from(call) else { return }
                if length > call.outputLimit {
                    // Never a truncated reply: the call fails, saying why.
                    call.oversizedOutput = length
                    call.output = nil
                } else if let json, length > 0 {
                    call.oversizedOutput = nil
                    call.output = Array(UnsafeRawBufferPointer(start: json, count: length))
                } else {
                    call.oversizedOutput = nil
                    call.output = nil
                }
            },
            set_error: { call, message in
                guard let call = PluginCall.from(call) else { return }
                call.error = message.map { String(cString: $0) }
            }))
        return UnsafePointer(t)
    }()
}

/// One create or hook call in progress: what the plugin set through `set_output` and `set_error`.
/// Lives on the Swift side for the duration of the call; the plugin sees it as `greenroom_call *`.
package final class PluginCall {
    package var output: [UInt8]?
    package var error: String?
    /// Most bytes `set_output` may give.
    package var outputLimit = Int.max
    /// The size of the last output refused for being over `outputLimit`.
    package var oversizedOutput: Int?

    package init(outputLimit: Int = .max) { self.outputLimit = outputLimit }

    /// Runs `body` with this call as the plugin sees it.
    package func with<R>(_ body: (OpaquePointer) -> R) -> R {
        withExtendedLifetime(self) { body(OpaquePointer(Unmanaged.passUnretained(self).toOpaque())) }
    }

    package static func from(_ pointer: OpaquePointer?) -> PluginCall? {
        guard let pointer else { return nil }
        return Unmanaged<PluginCall>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }
}
