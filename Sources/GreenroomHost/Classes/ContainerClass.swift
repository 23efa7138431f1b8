import GreenroomCore
import GreenroomJSON

/// Why a hook (or creating an instance) failed. The container is torn down and the caller gets
/// -32004 pluginFailed with this message and data.
public struct HookFailure: Error, Sendable {
    public var message: String
    public var data: JSONObject
    public init(_ message: String, _ data: JSONObject = [:]) {
        self.message = message
        self.data = data
    }
}

/// A container class: built in, scripted (`classes.define`) or from a native plugin.
public protocol ContainerClass: AnyObject {
    var name: String { get }
    /// The plugin that provides it; nil when built in or scripted.
    var pluginName: String? { get }
    var isScripted: Bool { get }
    /// The optional hooks (`Hook.optional`) its containers receive.
    var optionalHooks: Set<Hook> { get }
    /// Creates the per-container state. The host then runs the `init` hook on it.
    func makeInstance(containerID: String) async throws(HookFailure) -> ContainerInstance
}

extension ContainerClass {
    public var optionalHooks: Set<Hook> { [] }
}

/// One container's class-side state. Hooks run on the loop thread, one at a time.
public protocol ContainerInstance: AnyObject {
    /// Runs `hook`. `input` is hook-specific: `{"size":{width,height}}` for layout hooks,
    /// `{"data":...}` for configure and init, `{"parent":id|null}` for containment hooks,
    /// `{"animated":bool}` for appearance hooks, `{"level":...}` for memory warnings.
    /// Returns the hook's output (reported for `configure`), or nil.
    func run(_ hook: Hook, input: JSONObject) async throws(HookFailure) -> JSONValue?
    /// Bytes this instance holds (what a purge gives back); plugins report it, scripted classes declare it.
    var memoryBytes: Int { get }
    /// Frees the instance (after `deinit` ran). Called exactly once.
    func destroy() async
}
