import GreenroomJSON
import GreenroomRPC

/// A loaded plugin, for `host.info`.
public struct PluginInfo: Sendable {
    public var name: String
    public var path: String
    public var version: String
    public var classes: [String]
    public init(name: String, path: String, version: String, classes: [String]) {
        self.name = name
        self.path = path
        self.version = version
        self.classes = classes
    }
}

/// Every container class the host knows, by name: built in, scripted and from plugins.
public final class ClassRegistry {
    public private(set) var classes: [String: ContainerClass] = [:]
    public private(set) var order: [String] = []
    public private(set) var plugins: [PluginInfo] = []
    /// A plugin's isolation and state (running, restarting, failed...), by plugin name, for `host.info`
    /// and `classes.list`; set by the plugin supervisor.
    public var pluginStatus: ((String) -> JSONObject?)?

    public init() {}

    /// Adds a class; a name already taken is `invalidState` (class names are global and never replaced
    /// while the host runs).
    public func register(_ cls: ContainerClass) throws(RPCError) {
        guard classes[cls.name] == nil else {
            throw RPCError.invalidState("Class \(cls.name) is already defined", ["class": .string(cls.name)])
        }
        classes[cls.name] = cls
        order.append(cls.name)
    }

    public func addPlugin(_ info: PluginInfo) { plugins.append(info) }

    /// Removes a scripted class (`classes.undefine`); built-in and plugin classes stay for the host's
    /// life. The caller checks that no instance lives.
    public func unregisterScripted(_ name: String) throws(RPCError) {
        let cls = try require(name, path: "name")
        guard cls.isScripted else {
            throw RPCError.invalidState("Class \(name) is \(cls.pluginName.map { "from plugin \($0)" } ?? "built in"); only classes made with classes.define can be undefined",
                                        ["class": .string(name), "plugin": cls.pluginName.map { .string($0) } ?? .null])
        }
        classes[name] = nil
        order.removeAll { $0 == name }
    }

    /// Names of the scripted classes, in the order they were defined.
    public var scriptedNames: [String] { order.filter { classes[$0]?.isScripted == true } }

    public subscript(name: String) -> ContainerClass? { classes[name] }

    /// The class, or -32001 unknownClass naming what exists.
    public func require(_ name: String, path: String = "class") throws(RPCError) -> ContainerClass {
        guard !name.isEmpty else { throw .invalidParams(path: path, "must not be empty (a class name is 1 to 128 bytes)") }
        guard let c = classes[name] else {
            throw RPCError(.unknownClass, "Unknown class \(name)",
                           ["class": .string(name), "path": .string(path), "known": .array(order.map { .string($0) })])
        }
        return c
    }
}
