/// Why a plugin library was refused at start-up. Each message names the library and says what to do.
public enum PluginLoadError: Error, Equatable, CustomStringConvertible {
    /// Nothing at `path`.
    case fileNotFound(path: String)
    /// `dlopen` refused the file; `reason` is dlerror()'s text.
    case notALibrary(path: String, reason: String)
    /// The library does not export a required symbol; `reason` is dlerror()'s text.
    case missingSymbol(path: String, symbol: String, reason: String)
    /// The library was built against another ABI version; `source` says who reported it
    /// (`greenroom_plugin_abi_version()` or a class table).
    case abiMismatch(path: String, expected: UInt32, got: UInt32, source: String)
    /// `greenroom_plugin_init` returned non-zero; `message` is the last error the plugin logged.
    case initFailed(path: String, status: Int32, message: String?)
    /// Init succeeded but registered nothing.
    case noClasses(path: String)
    /// A class table the host cannot use (too small, no name, a required function missing...).
    case invalidClass(path: String, name: String?, reason: String)
    /// A class name already taken; `owner` says by whom.
    case duplicateClass(path: String, name: String, owner: String)
    /// The plugin's worker process refused the library (its message, verbatim) or could not start.
    case worker(path: String, message: String)

    public var description: String {
        switch self {
        case .fileNotFound(let path):
            return "cannot load plugin \(path): no such file"
        case .notALibrary(let path, let reason):
            return "cannot load plugin \(path): not a shared library (\(reason))"
        case .missingSymbol(let path, let symbol, let reason):
            return "cannot load plugin \(path): it does not export \(symbol) (\(reason)); "
                + "a plugin defines it as declared in greenroom_plugin.h"
        case .abiMismatch(let path, let expected, let got, let source):
            return "cannot load plugin \(path): ABI version mismatch: expected \(expected), got \(got) "
                + "(from \(source)); rebuild the plugin against this host's greenroom_plugin.h"
        case .initFailed(let path, let status, let message):
            let why = message.map { ": \($0)" } ?? " (the plugin logged no error)"
            return "cannot load plugin \(path): greenroom_plugin_init returned \(status)\(why)"
        case .noClasses(let path):
            return "cannot load plugin \(path): greenroom_plugin_init registered no classes"
        case .invalidClass(let path, let name, let reason):
            let which = name.map { "class \($0)" } ?? "a class"
            return "cannot load plugin \(path): \(which) is invalid: \(reason)"
        case .duplicateClass(let path, let name, let owner):
            return "cannot load plugin \(path): class \(name) is already defined (by \(owner))"
        case .worker(let path, let message):
            return message.hasPrefix("cannot load plugin") ? message : "cannot load plugin \(path): \(message)"
        }
    }
}
