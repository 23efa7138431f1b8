import CGreenroomPlugin
import Glibc

/// Loads native plugins (docs/plugins.md): a shared library exporting `greenroom_plugin_init`, which registers
/// container classes through the C ABI in `greenroom_plugin.h`. Call on the loop thread (or before the
/// loop runs). Libraries are never unloaded — their classes, and the pointers the plugin kept, live as
/// long as the process — so a refused library also stays mapped.
public enum PluginLoader {
    /// Opens the library at `path`, checks its ABI version, runs its init and adds its classes to
    /// `host.classes` — all of them, or none when anything is wrong.
    @discardableResult
    public static func load(path: String, into host: Host, log: @escaping PluginLogger = logToStandardError)
        throws(PluginLoadError) -> PluginInfo
    {
        let entry = try open(path: path)
        return try initialize(entry: entry, path: realPath(path) ?? path, into: host, log: log)
    }

    /// Opens the library at `path` and checks its ABI version; returns its init function.
    package static func open(path: String) throws(PluginLoadError) -> greenroom_plugin_init_fn {
        var st = stat()
        guard stat(path, &st) == 0 else { throw .fileNotFound(path: path) }
        // Without a slash dlopen would search the library path instead of opening this file.
        let openPath = path.contains("/") ? path : "./" + path
        _ = dlerror()
        guard let handle = dlopen(openPath, RTLD_NOW | RTLD_LOCAL) else {
            throw .notALibrary(path: path, reason: lastDLError() ?? "dlopen failed")
        }
        if let probe = dlsym(handle, GREENROOM_PLUGIN_ABI_VERSION_SYMBOL) {
            let version = unsafeBitCast(probe, to: greenroom_plugin_abi_version_fn.self)()
            guard version == UInt32(GREENROOM_PLUGIN_ABI_VERSION) else {
                throw .abiMismatch(path: path, expected: UInt32(GREENROOM_PLUGIN_ABI_VERSION), got: version,
                                   source: "\(GREENROOM_PLUGIN_ABI_VERSION_SYMBOL)()")
            }
        }
        _ = dlerror()
        guard let symbol = dlsym(handle, GREENROOM_PLUGIN_INIT_SYMBOL) else {
            throw .missingSymbol(path: path, symbol: GREENROOM_PLUGIN_INIT_SYMBOL,
                                 reason: lastDLError() ?? "no such symbol")
        }
        return unsafeBitCast(symbol, to: greenroom_plugin_init_fn.self)
    }

    /// Runs a plugin's init and checks what it registered, without adding anything to a host (a plugin
    /// worker process has none). `host` only serves `queue_work`.
    package static func runInit(entry: greenroom_plugin_init_fn, path: String, host: Host?, log: @escaping PluginLogger)
        throws(PluginLoadError) -> PluginHostContext
    {
        let context = PluginHostContext(path: path, host: host, logger: log)
        context.isInitializing = true
        // The plugin may keep this pointer for good (queue_work, log), even if it is refused.
        let status = entry(PluginHostAPI.table, context.retainedPointer())
        context.isInitializing = false
        if let error = context.registrationError { throw error }
        guard status == 0 else { throw .initFailed(path: path, status: status, message: context.lastErrorDuringInit) }
        guard !context.registered.isEmpty else { throw .noClasses(path: path) }
        var seen = Set<String>()
        for name in context.registeredNames {
            guard seen.insert(name).inserted else {
                throw .duplicateClass(path: path, name: name, owner: "this plugin, which registers it twice")
            }
        }
        return context
    }

    /// Runs a plugin's init function that is already at hand (a plugin linked into the executable, or
    /// a test's) and adds its classes to `host.classes`. `path` names the plugin in messages.
    @discardableResult
    public static func initialize(entry: greenroom_plugin_init_fn, path: String, into host: Host,
                                  log: @escaping PluginLogger = logToStandardError) throws(PluginLoadError) -> PluginInfo
    {
        let context = try runInit(entry: entry, path: path, host: host, log: log)
        // Check every name before adding any, so a refused library leaves the registry as it was.
        try checkNamesAreFree(context.registeredNames, path: path, in: host.classes)
        let maxDepth = host.config.limits.maxDepth
        for (i, (name, table)) in zip(context.registeredNames, context.registered).enumerated() {
            let cls = PluginClass(name: name, plugin: context.pluginName, table: table,
                                  optionalHooks: context.registeredOptionalHooks[i], maxOutputDepth: maxDepth,
                                  maxOutputBytes: host.config.plugins.maxOutputBytes)
            do { try host.classes.register(cls) } catch {
                throw .duplicateClass(path: path, name: name, owner: "another class")
            }
        }
        let info = PluginInfo(name: context.pluginName, path: path, version: context.pluginVersion,
                              classes: context.registeredNames)
        host.classes.addPlugin(info)
        log(context.pluginName, .info, "loaded \(path) (version \(info.version.isEmpty ? "unknown" : info.version)): "
            + info.classes.joined(separator: ", "))
        return info
    }

    /// Refuses a library one of whose class names the host already has.
    package static func checkNamesAreFree(_ names: [String], path: String, in classes: ClassRegistry) throws(PluginLoadError) {
        for name in names {
            if let existing = classes[name] {
                let owner = existing.pluginName.map { "plugin \($0)" }
                    ?? (existing.isScripted ? "a scripted class" : "a built-in class")
                throw .duplicateClass(path: path, name: name, owner: owner)
            }
        }
    }

    /// The default logger: one line per message on stderr.
    public static func logToStandardError(plugin: String, level: PluginLogLevel, message: String) {
        writeStandardError("greenroom: plugin \(plugin): \(level.rawValue): \(message)\n")
    }

    private static func lastDLError() -> String? {
        dlerror().map { String(cString: $0) }
    }

    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
