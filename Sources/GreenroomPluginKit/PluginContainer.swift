@_exported import CGreenroomPlugin
@_exported import enum GreenroomCore.Hook
@_exported import struct GreenroomCore.Size
@_exported import GreenroomJSON

/// A container class written in Swift. One instance per container; the host calls it on its loop
/// thread, one hook at a time.
///
/// Throw (any `Error`, `PluginError` for a plain message) to fail a hook: the host reports -32004
/// pluginFailed with the error's description and tears that container down. A trap (`fatalError`, an
/// index out of range) cannot be caught across the C boundary and stops the host — throw instead.
public protocol PluginContainer: AnyObject {
    /// The class name clients ask for. Defaults to the type's name.
    static var className: String { get }
    /// Creates one container's state, before its `init` hook runs. `host` logs and queues background work.
    init(containerID: String, host: PluginHost) throws
    /// Runs a lifecycle hook. `input` is the hook's input object (`{"data": ...}` for init and
    /// configure, `{"size": {...}}` for layout...). The output is reported for `configure`.
    func run(_ hook: Hook, input: JSONObject) throws -> JSONValue?
    /// The bytes this instance holds now (what a memory purge gives back).
    var memoryBytes: Int { get }
    /// The optional hooks (`Hook.optional`) this class wants; none by default.
    static var optionalHooks: Set<Hook> { get }
}

extension PluginContainer {
    public static var className: String { String(describing: self) }
    public static var optionalHooks: Set<Hook> { [] }
}

/// A hook failure with a message for the client.
public struct PluginError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
