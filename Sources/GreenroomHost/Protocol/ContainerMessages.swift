import GreenroomJSON
import GreenroomRPC

/// `classes.list`: Every container class the host knows.
enum ClassesList: HostMethod {
    static let name = "classes.list"
    static let summary = "Every container class the host knows."
    static let description = "Built-in, plugin and scripted classes, in registration order. Takes no params (any member is -32602). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["classes"]
    static let result = ResultSpec("classes", .object(nil, [
        "classes": .array(.ref(.classInfo)),
    ], required: ["classes"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unauthorized]
}

/// `classes.define`: Defines a scripted class at run time.
enum ClassesDefine: HostMethod {
    static let name = "classes.define"
    static let summary = "Defines a scripted class at run time."
    static let description = "A class whose hooks burn `costMs` of real CPU and return `output` (or fail with `fail: true`), so that tests and prototypes need no compiled plugin. Each instance holds `memoryBytes` of real, touched memory, unmapped at `deinit`, so pools and purges move real bytes. A name already taken is -32003. An unknown hook is -32602 with `data.path` `hooks.<hook>`; a bad member of a hook `hooks.<hook>.<member>`. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["classes"]
    static let result = ResultSpec("class", .ref(.classDefinition))
    static let errors: [ErrorDoc] = [.invalidParams, .invalidState, .unauthorized]

    struct Params: RPCParams {
        var name: String = ""
        var hooks: JSONObject?
        var memoryBytes: Int?

        static let fields: [ParamField<Params>] = [
            .required("name", \.name, .string().minLength(1).maxLength(128), "The class name: 1 to 128 bytes of UTF-8, not yet taken."),
            .optional("hooks", \.hooks, .object(nil, [:], additionalProperties: nil).additionalProperties(.ref(.scriptedHook)).propertyNames(.ref(.lifecycleHook)), "What each scripted hook does; hooks not listed do nothing."),
            .optional("memoryBytes", \.memoryBytes, .integer().minimum(0).maximum(1073741824).default(0), "Bytes each instance holds (default 0, at most 1 GiB)."),
        ]
    }
}

/// `plugins.restart`: Starts a plugin's worker again.
enum PluginsRestart: HostMethod {
    static let name = "plugins.restart"
    static let summary = "Starts a plugin's worker again."
    static let description = "Stops the plugin's worker if one runs (its containers are torn down as failed containers are, before the reply), starts a new one and clears its restart budget: the way back for a plugin marked failed after too many crashes. The reply is its status, as in `host.info`. An unknown plugin is -32602; a plugin loaded in process (`--plugin-isolation none`) is -32003. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["classes"]
    static let result = ResultSpec("plugin", .object(nil, [
        "plugin": .string(),
        "isolation": .string("`process`: the plugin runs in a worker process of its own (the default), so a crash, exit or hang fails only its own containers; `none`: loaded into the host (`serve --plugin-isolation none`).").oneOfValues(["process", "none"]),
        "state": .string("`restarting`: its worker crashed and waits out its backoff (its classes answer -32004 `reason: restarting` with `retryAfterMs`); `failed`: past `--plugin-restart-limit` crashes within a minute, or its library no longer loads: its classes answer -32004 `reason: pluginMarkedFailed` until `plugins.restart`.").oneOfValues(["running", "restarting", "failed"]),
        "pid": .any("The worker's process id; null in process or while no worker runs.").with("type", ["integer", "null"]),
        "crashes": .integer("Workers that ended unasked (signal, exit, closed socket, deadline).").minimum(0),
        "restarts": .integer("Workers started again after a crash or by `plugins.restart`.").minimum(0),
        "kind": .string("`library`: a native plugin (`serve --plugin`); `command`: an executable that speaks the worker protocol (`serve --plugin-command`, docs/worker-protocol.md). Absent in process.").oneOfValues(["library", "command"]),
        "command": .array(.string(), "A command plugin's command, as its words (`serve --plugin-command`)."),
        "workerProtocol": .integer("The worker protocol version its running worker speaks (docs/worker-protocol.md).").minimum(1),
        "failedReason": .string("Why it is marked failed."),
        "lastCrash": .object("How the last worker ended: `reason` (crashed, exited, closed, timeout, protocol), `signal` and `signalName` or `exitStatus`, and `detail`.", [:], additionalProperties: true),
        "failed": .array(.ref(.hookFailure), "Present when the old worker's containers were torn down: they are listed here (the restart was asked for, so it is not an error)."),
    ], required: ["plugin", "isolation", "state", "pid", "crashes", "restarts"]))
    static let errors: [ErrorDoc] = [.invalidParams, .invalidState, .unauthorized]

    struct Params: RPCParams {
        var plugin: String = ""

        static let fields: [ParamField<Params>] = [
            .required("plugin", \.plugin, .string(), "The plugin's name (as `host.info` lists it)."),
        ]
    }
}

/// `classes.undefine`: Removes a scripted class.
enum ClassesUndefine: HostMethod {
    static let name = "classes.undefine"
    static let summary = "Removes a scripted class."
    static let description = "Undoes `classes.define`, so a script sharing a host can leave it as it found it. Refused with -32003 (`data.containers` lists them, `data.pooled` counts the idle pooled ones, which `pool.purge {class}` releases) while any instance of the class lives; a built-in or plugin class is -32003 too (they last the host's life); an unknown name is -32001. The class's pools go with it. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["classes"]
    static let result = ResultSpec("undefined", .object(nil, [
        "name": .string(),
        "undefined": .any().const(true),
    ], required: ["name", "undefined"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownClass, .invalidState]

    struct Params: RPCParams {
        var name: String = ""

        static let fields: [ParamField<Params>] = [
            .required("name", \.name, .ref(.className), "A class made with `classes.define`."),
        ]
    }
}

/// `container.create`: Creates a container (fresh: its view is not loaded).
enum ContainerCreate: HostMethod {
    static let name = "container.create"
    static let summary = "Creates a container (fresh: its view is not loaded)."
    static let description = "Instantiates `class` and runs `init` with `data`. The view loads lazily, just before the container first appears. The container belongs to this connection. A failing `init` is -32004. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["containers"]
    static let result = ResultSpec("container", .ref(.containerInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownClass, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var className: String = ""
        var data: JSONValue?

        static let fields: [ParamField<Params>] = [
            .required("class", \.className, .ref(.className), "The class to instantiate."),
            .value("data", \.data, .any("Any JSON value."), "Passed to `init` as `data`."),
        ]
    }
}

/// `container.configure`: Binds business data to a container.
enum ContainerConfigure: HostMethod {
    static let name = "container.configure"
    static let summary = "Binds business data to a container."
    static let description = "Runs `configure` with `data` (the prerendering article's `setUrl`: bind data after display, keep `viewDidLoad` for structure; docs/pools.md) and returns the hook's output. A failing hook is -32004: the container is torn down. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["containers"]
    static let result = ResultSpec("configured", .object(nil, [
        "container": .ref(.containerId),
        "output": .any("The hook's output (null when it returns none)."),
    ], required: ["container", "output"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var container: String = ""
        var data: JSONValue?

        static let fields: [ParamField<Params>] = [
            .required("container", \.container, .ref(.containerId), "The container (one of this connection's)."),
            .value("data", \.data, .any("Any JSON value."), "Any JSON value (null included).", required: true),
        ]
    }
}

/// `container.info`: A container's state.
enum ContainerInfo: HostMethod {
    static let name = "container.info"
    static let summary = "A container's state."
    static let description = "State, appearance, whether the view is loaded, the last layout size, where it sits. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["containers"]
    static let result = ResultSpec("container", .ref(.containerInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .unauthorized]

    struct Params: RPCParams {
        var container: String = ""

        static let fields: [ParamField<Params>] = [
            .required("container", \.container, .ref(.containerId), "The container (one of this connection's)."),
        ]
    }
}

/// `container.release`: Releases a container.
enum ContainerRelease: HostMethod {
    static let name = "container.release"
    static let summary = "Releases a container."
    static let description = "Takes it out of its stack (it disappears if on screen, the one below appears), then `deinit`. A page session's child, or a page session's own container (made by `page.create` with `stack`), is -32003 (destroy the session instead). A container in a stack whose interactive pop is in progress is -32003 (finish or cancel the gesture first). Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["containers"]
    static let result = ResultSpec("released", .object(nil, [
        "container": .ref(.containerId),
        "released": .any().const(true),
    ], required: ["container", "released"]))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .unauthorized]

    struct Params: RPCParams {
        var container: String = ""

        static let fields: [ParamField<Params>] = [
            .required("container", \.container, .ref(.containerId), "The container (one of this connection's)."),
        ]
    }
}

/// `container.beginAppearanceTransition`: UIKit's beginAppearanceTransition, by hand.
enum ContainerBeginAppearanceTransition: HostMethod {
    static let name = "container.beginAppearanceTransition"
    static let summary = "UIKit's beginAppearanceTransition, by hand."
    static let description = "Makes the call `beginAppearance(appearing)` of the appearance table (docs/lifecycle.md) on a container with no parent, as a custom container view controller drives its child: appearing loads the view first (`loadView`, `viewDidLoad`), then `viewWillAppear` or `viewWillDisappear` runs per the table. A call the table calls unbalanced runs no hook: it emits `unbalancedAppearanceTransition` (with `call` and `state`) and is counted in `host.stats` `unbalancedTransitions`, exactly as one from the host's own flows would be — so lifecycle tests can provoke and observe one. The reply is the container's info after the call. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["containers"]
    static let result = ResultSpec("container", .ref(.containerInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var container: String = ""
        var appearing: Bool = false
        var animated: Bool?

        static let fields: [ParamField<Params>] = [
            .required("container", \.container, .ref(.containerId), "The container (one of this connection's), with no parent: not in a stack, a green room or a page session, whose appearance the host drives itself (-32003 naming the parent: `data.stack`, `data.greenRoom` or `data.session`)."),
            .required("appearing", \.appearing, .boolean(), "true: beginAppearance(true) (toward appeared); false: beginAppearance(false)."),
            .optional("animated", \.animated, .boolean().default(false), "Carried by the hook's event (`animated`)."),
        ]
    }
}

/// `container.endAppearanceTransition`: UIKit's endAppearanceTransition, by hand.
enum ContainerEndAppearanceTransition: HostMethod {
    static let name = "container.endAppearanceTransition"
    static let summary = "UIKit's endAppearanceTransition, by hand."
    static let description = "Makes the call `endAppearance` of the appearance table (docs/lifecycle.md) on a container with no parent: `viewDidAppear` from appearing, `viewDidDisappear` from disappearing; from any other state it is unbalanced (no hook, an `unbalancedAppearanceTransition` event, counted). The reply is the container's info after the call. Over TCP with a token, every method but `host.auth` answers -32006 until `host.auth` succeeds."
    static let tags = ["containers"]
    static let result = ResultSpec("container", .ref(.containerInfo))
    static let errors: [ErrorDoc] = [.invalidParams, .unknownObject, .invalidState, .pluginFailed, .unauthorized]

    struct Params: RPCParams {
        var container: String = ""
        var animated: Bool?

        static let fields: [ParamField<Params>] = [
            .required("container", \.container, .ref(.containerId), "The container (one of this connection's), with no parent: not in a stack, a green room or a page session, whose appearance the host drives itself (-32003 naming the parent: `data.stack`, `data.greenRoom` or `data.session`)."),
            .optional("animated", \.animated, .boolean().default(false), "Carried by the hook's event (`animated`)."),
        ]
    }
}
