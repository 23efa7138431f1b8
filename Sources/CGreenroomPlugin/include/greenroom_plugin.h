/*
 * greenroom_plugin.h — the Greenroom native plugin ABI, version 1.
 *
 * A plugin is a shared library that the host loads with dlopen(RTLD_NOW | RTLD_LOCAL) when it starts
 * (`greenroom serve --plugin PATH.so`). It exports one function, `greenroom_plugin_init`, which
 * registers the plugin's container classes through the host API table. Each class is a table of
 * function pointers that the host calls to create instances, run lifecycle hooks and destroy them.
 *
 * The rules, all of them:
 *
 * Versions and growth
 *   - GREENROOM_PLUGIN_ABI_VERSION changes only on an incompatible change. Every table starts with
 *     `abi_version` and `struct_size`. New fields are only ever appended, so a table that grows keeps
 *     the same version: the host reads only the fields that fit in the `struct_size` a plugin wrote,
 *     and a plugin must check `api->struct_size` (GREENROOM_HAS_FIELD) before using a host API field
 *     added after version 1.
 *   - A plugin may export `uint32_t greenroom_plugin_abi_version(void)` (GREENROOM_PLUGIN_EXPORT_ABI_VERSION
 *     defines it). When present, the host calls it before anything else and refuses the library,
 *     without calling `greenroom_plugin_init`, when the answer differs from its own version. Every class
 *     a plugin registers also carries the version it was built against; a mismatch there refuses the
 *     whole library too. Either way the host stops with "ABI version mismatch: expected X, got Y".
 *   - A plugin should check `api->abi_version` in its init and return non-zero when it cannot work with it.
 *
 * Loading
 *   - `greenroom_plugin_init` runs once, on the host's loop thread, before the host accepts clients.
 *     It returns 0 on success; anything else refuses the library (say why with `log` first).
 *   - `register_class` may be called only during init. The classes of a library are added to the host
 *     all together when init returns 0, or not at all: a class name already defined (by the host, by
 *     another plugin, or twice in one plugin) refuses the library. A library must register at least
 *     one class.
 *   - Libraries are never unloaded: function pointers, `class_ctx` and the library's code stay valid
 *     for the life of the process, and so does the `greenroom_host` pointer init receives (keep it
 *     for `queue_work` and `log`). The host API table is valid for the life of the process.
 *
 * Threading
 *   - Everything — init, create, hook, memory_bytes, destroy, `done`, and every host API call — happens
 *     on the host's loop thread, one call at a time. The one exception is the `work` function given to
 *     `queue_work`, which runs on a libuv thread-pool thread and must call no host API function and
 *     touch no state the loop thread uses without its own synchronisation.
 *   - Calls never overlap for one instance, and hooks of different instances never run concurrently.
 *
 * Strings and buffers
 *   - All strings are UTF-8. Where a length is given, the bytes are not NUL-terminated as far as the
 *     contract goes (the host does put a NUL after `input_json`, as a convenience for C parsers).
 *     Where no length is given (names, messages, container ids), the string is NUL-terminated.
 *   - Pointers the host passes (container_id, hook_name, input_json, the call) are valid only during
 *     the call that receives them: copy what you keep.
 *   - Pointers the plugin passes to the host (set_output, set_error, log, register_class and every
 *     string in a class table) are copied before the host function returns: the plugin may free or
 *     reuse them at once.
 *   - JSON is a complete JSON text (any value; hooks' inputs are always objects). Output that is not
 *     valid JSON fails the hook.
 *   - A plugin that uses Jansson itself must release every Jansson value it creates on the loop thread
 *     before the call that made it returns: the host may route Jansson allocations on its loop thread
 *     through an arena that is reset after each request.
 *
 * Errors
 *   - Errors are returned, never thrown or longjmp'd across this boundary (no C++ exception, Swift
 *     error or signal may escape a plugin function). `create` returns NULL and `hook` returns non-zero
 *     to fail; either may first call `set_error` with a message. A failing hook fails that container
 *     only: the host tears it down (it still calls `destroy` for an instance that was created) and
 *     answers the client with -32004 pluginFailed carrying the message and {hook, plugin, class}.
 *   - When a hook returns 0, any error set is ignored; when it fails, any output set is ignored.
 *
 * Hooks
 *   - Names are UIKit's: init, loadView, viewDidLoad, viewWillAppear, viewIsAppearing (a host that
 *     models iOS 17, the default: after every viewWillAppear, before the layout), viewDidAppear,
 *     viewWillDisappear, viewDidDisappear, viewWillLayoutSubviews, viewDidLayoutSubviews, configure,
 *     didReceiveMemoryWarning, willMoveToParent, didMoveToParent, deinit; and, only for a class that
 *     lists them in `optional_hooks`, viewSafeAreaInsetsDidChange, viewLayoutMarginsDidChange and
 *     viewWillTransitionToSize (its window is about to be resized, before the layout at the new size). A
 *     future host may add hooks: return 0 for a name you do not know.
 *   - Inputs: {"data": ...} for init and configure, {"size": {"width", "height"}} for the layout hooks and viewWillTransitionToSize,
 *     {"animated": bool} for appearance hooks, {"parent": id | null} for the containment hooks,
 *     {"level": "warning" | "critical"} for didReceiveMemoryWarning; {} otherwise.
 *   - The host reports `configure`'s output to the client (`{"output": ...}`). Other hooks may set
 *     output too; the host may ignore it.
 *   - `destroy` is called exactly once per created instance, after its `deinit` hook ran (or after a
 *     hook failed); no call on that instance follows it.
 */
#ifndef GREENROOM_PLUGIN_H
#define GREENROOM_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GREENROOM_PLUGIN_ABI_VERSION 1

/* True when `table` (a pointer to a host API or class table) is large enough to hold `field`. */
#define GREENROOM_HAS_FIELD(table, field) \
    ((table)->struct_size >= offsetof(__typeof__(*(table)), field) + sizeof((table)->field))

/* Symbol visibility for the exported entry points. */
#if defined(__GNUC__) || defined(__clang__)
#define GREENROOM_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define GREENROOM_PLUGIN_EXPORT
#endif

/* The host, as one plugin sees it. Opaque; valid for the life of the process. */
typedef struct greenroom_host greenroom_host;

/* One create or hook call in progress: where its output or error goes. Opaque; valid only during
   that call. */
typedef struct greenroom_call greenroom_call;

/* Log levels for `log`. */
typedef enum greenroom_log_level {
    GREENROOM_LOG_DEBUG = 0,
    GREENROOM_LOG_INFO = 1,
    GREENROOM_LOG_WARNING = 2,
    GREENROOM_LOG_ERROR = 3
} greenroom_log_level;

/* A container class, registered by a plugin during init. Zero the whole struct, then fill it in:
   fields a future version appends then read as zero. The host copies the table and its strings. */
typedef struct greenroom_class {
    /* GREENROOM_PLUGIN_ABI_VERSION as the plugin was built. */
    uint32_t abi_version;
    /* sizeof(greenroom_class) as the plugin was built. */
    uint32_t struct_size;

    /* The class name clients use in `container.create {class}`; non-empty, unique in the host. */
    const char *name;
    /* The plugin's name and version, reported by `host.info` and `classes.list`. Every class of one
       library must give the same plugin name. NULL name: the library's file name; NULL version: "". */
    const char *plugin_name;
    const char *plugin_version;

    /* Passed back to `create`; the plugin owns it. */
    void *class_ctx;

    /* Creates the state of one container (before its `init` hook runs). Returns the instance, or
       NULL on failure (with `set_error`). A class without per-instance state may return class_ctx. */
    void *(*create)(void *class_ctx, const char *container_id, greenroom_call *call);

    /* Runs one lifecycle hook. `input_json` is `input_len` bytes of JSON (an object). Returns 0 on
       success, with the output (if any) given to `set_output`; non-zero on failure, with `set_error`. */
    int (*hook)(void *instance, const char *hook_name, const char *input_json, size_t input_len,
                greenroom_call *call);

    /* The bytes this instance holds now (what a memory purge gives back). May be NULL: the host then
       uses `instance_memory_bytes`. */
    size_t (*memory_bytes)(void *instance);

    /* Frees the instance. Called exactly once per instance that `create` returned. */
    void (*destroy)(void *instance);

    /* The bytes every instance holds, when `memory_bytes` is NULL. */
    size_t instance_memory_bytes;

    /* Added after version 1 (a table without it reads as NULL). NULL, or a NULL-terminated list of the
       optional hooks this class wants: "viewSafeAreaInsetsDidChange", "viewLayoutMarginsDidChange".
       UIKit sends them to every view controller; the host sends them only to classes that list them,
       so that event streams stay comparable. A name that is not an optional hook refuses the class. */
    const char *const *optional_hooks;
} greenroom_class;

/* The functions the host gives a plugin. */
typedef struct greenroom_host_api {
    /* The host's GREENROOM_PLUGIN_ABI_VERSION. */
    uint32_t abi_version;
    /* sizeof(greenroom_host_api) as the host was built: check it (GREENROOM_HAS_FIELD) before using a
       field added after version 1. */
    uint32_t struct_size;

    /* Registers a class; only during init. The host copies the table and its strings. Returns 0, or
       non-zero when the table is invalid (wrong ABI version, too small, missing name or function) or
       when called outside init; the host then refuses the library whatever init returns. */
    int (*register_class)(greenroom_host *host, const greenroom_class *cls);

    /* Writes a NUL-terminated message to the host's log, attributed to the plugin. */
    void (*log)(greenroom_host *host, greenroom_log_level level, const char *message);

    /* Runs `work(ctx)` on libuv's thread pool, then `done(ctx, status)` on the loop thread; status is 0
       when work ran and negative (a libuv error, such as UV_ECANCELED) when it did not. `done` is
       always called exactly once, and owns `ctx` then (free it there). A host without a thread pool
       (unit tests) may run both before queue_work returns. Returns 0 when queued; non-zero (and
       calls neither function) otherwise. */
    int (*queue_work)(greenroom_host *host, void (*work)(void *ctx), void (*done)(void *ctx, int status),
                      void *ctx);

    /* Sets the call's output: `len` bytes of JSON, copied before this returns. A second call replaces
       the first. */
    void (*set_output)(greenroom_call *call, const char *json, size_t len);

    /* Sets the call's error message (NUL-terminated), copied before this returns. A second call
       replaces the first. */
    void (*set_error)(greenroom_call *call, const char *message);
} greenroom_host_api;

/* The entry point every plugin exports. Registers the plugin's classes; returns 0 on success. */
typedef int (*greenroom_plugin_init_fn)(const greenroom_host_api *api, greenroom_host *host);
#define GREENROOM_PLUGIN_INIT_SYMBOL "greenroom_plugin_init"

/* The optional version probe (see "Versions and growth"). */
typedef uint32_t (*greenroom_plugin_abi_version_fn)(void);
#define GREENROOM_PLUGIN_ABI_VERSION_SYMBOL "greenroom_plugin_abi_version"

/* Defines the version probe in a C plugin: put it at file scope in one source file. */
#define GREENROOM_PLUGIN_EXPORT_ABI_VERSION() \
    GREENROOM_PLUGIN_EXPORT uint32_t greenroom_plugin_abi_version(void) { return GREENROOM_PLUGIN_ABI_VERSION; }

#ifdef __cplusplus
}
#endif

#endif /* GREENROOM_PLUGIN_H */
