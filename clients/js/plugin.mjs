// Write Greenroom container classes in JavaScript: a plugin the host runs as a worker process, with
// node's standard library only.
//
//   import { Container, PluginError, serve } from "greenroom/clients/js/plugin.mjs";
//
//   class Banner extends Container {
//     configure(call) {
//       const text = call.data?.text;
//       if (typeof text !== "string") throw new PluginError("data.text is required");
//       return { length: text.length };
//     }
//   }
//   serve("banner", [Banner], { version: "1.0.0" });
//
// and the host starts it with `greenroom serve --plugin-command "node banner.mjs"`. It runs in a worker
// process of its own, as a native plugin does: a crash, an exit or a hook past --hook-timeout-ms fails only
// this plugin's containers, and the worker is restarted.
//
// - Hooks are methods named as the hook is (init, loadView, viewDidLoad, viewWillAppear, ..., configure,
//   didReceiveMemoryWarning, willMoveToParent, didMoveToParent, deinit), plain or async, given the
//   HookCall. A hook the class does not define does nothing; override `hook(call)` to see every hook.
// - The container's state is the instance: `this.id`, `this.data` (what the last init or configure
//   brought) and `this.size` (`{width, height}` of the last layout hook) are kept up to date.
// - Output: what a hook returns (JSON-encodable; configure's is what the client gets back). undefined or
//   null is no output.
// - Failure: throw. A PluginError fails the hook with its message (and `data`); any other error fails
//   it with its message, and its stack is logged. The container fails; the worker lives on.
// - Logging: `log.info(...)` and friends (or console.*) reach the host's standard error, in the host's
//   format (`greenroom: plugin NAME: LEVEL: message`).
// - Optional hooks (viewSafeAreaInsetsDidChange, viewLayoutMarginsDidChange) reach a class only when its
//   `static optionalHooks` lists them. `get memoryBytes()` says what a purge would free.
//
// The wire protocol beneath is docs/worker-protocol.md in the Greenroom repository.

import net from "node:net";
import process from "node:process";
import { basename } from "node:path";

/** The worker protocol version this kit speaks. */
export const PROTOCOL_VERSION = 1;

export const HOOKS = new Set([
  "init", "loadView", "viewDidLoad", "viewWillAppear", "viewIsAppearing", "viewDidAppear", "viewWillDisappear", "viewDidDisappear",
  "viewWillLayoutSubviews", "viewDidLayoutSubviews", "viewSafeAreaInsetsDidChange", "viewLayoutMarginsDidChange",
  "configure", "didReceiveMemoryWarning", "willMoveToParent", "didMoveToParent", "deinit",
]);
export const OPTIONAL_HOOKS = new Set(["viewSafeAreaInsetsDidChange", "viewLayoutMarginsDidChange"]);

const HELLO = 0x56, READY = 0x52, REFUSED = 0x45;
const CREATE = 0x43, HOOK = 0x48, BATCH = 0x42, DESTROY = 0x44, WAKE = 0x57;
const OK = 0x4f, FAILED = 0x46;

/** Fails the hook that throws it, with `message` and `data` (an object) in the host's -32004. */
export class PluginError extends Error {
  constructor(message, data = {}) {
    super(message);
    this.name = "PluginError";
    this.data = data;
  }
}

/** One hook's call: its name and the host's input (an object). */
export class HookCall {
  constructor(hook, input) {
    this.hook = hook;
    this.input = input;
  }
  /** init and configure: the container's data (null when none was given). */
  get data() { return this.input.data ?? null; }
  /** The layout hooks: `{width, height}`, or null. */
  get size() { return sizeOf(this.input.size); }
  /** The appearance hooks: whether the transition is animated. */
  get animated() { return this.input.animated === true; }
  /** willMoveToParent, didMoveToParent: the parent's id, or null when leaving it. */
  get parent() { return typeof this.input.parent === "string" ? this.input.parent : null; }
  /** didReceiveMemoryWarning: the warning's level. */
  get level() { return this.input.level; }
}

function sizeOf(v) {
  return v && typeof v.width === "number" && typeof v.height === "number" ? { width: v.width, height: v.height } : null;
}

/** One container's state in the plugin: extend it and define the hooks as methods. */
export class Container {
  /** The class's name in the host (default: the JavaScript class's name). */
  static className = null;
  /** Optional hooks this class asks for. */
  static optionalHooks = [];

  constructor(containerId) {
    this.id = containerId;
    this.data = null;
    this.size = null;
  }

  /** What a purge would free (the host's memory accounting); 0 unless overridden. */
  get memoryBytes() { return 0; }

  /** Runs `call`'s hook: the method of that name. */
  hook(call) {
    const method = HOOKS.has(call.hook) ? this[call.hook] : undefined;
    return typeof method === "function" ? method.call(this, call) : undefined;
  }
}

const classNameOf = (cls) => cls.className ?? cls.name;

let pluginName = "plugin";

function write(level, args) {
  const text = args.map((a) => (a instanceof Error ? a.stack : typeof a === "string" ? a : JSON.stringify(a))).join(" ");
  process.stderr.write(`greenroom: plugin ${pluginName}: ${level}: ${text}\n`);
}

/** Logging in the host's format, on its standard error. */
export const log = {
  debug: (...args) => write("debug", args),
  info: (...args) => write("info", args),
  warning: (...args) => write("warning", args),
  error: (...args) => write("error", args),
};

function frame(kind, body = Buffer.alloc(0)) {
  const header = Buffer.allocUnsafe(5);
  header.writeUInt32LE(body.length + 1, 0);
  header[4] = kind;
  return Buffer.concat([header, body]);
}

function okFrame(value, memory, output) {
  const head = Buffer.allocUnsafe(16);
  head.writeBigUInt64LE(BigInt(value), 0);
  head.writeBigUInt64LE(BigInt(Math.max(0, Math.floor(Number(memory) || 0))), 8);
  return frame(OK, output ? Buffer.concat([head, output]) : head);
}

function failedFrame(message, data = {}) {
  let body;
  try {
    body = JSON.stringify({ message: String(message), data });
  } catch {
    body = JSON.stringify({ message: String(message), data: {} });
  }
  return frame(FAILED, Buffer.from(body));
}

class ProtocolError extends Error {}

class Worker {
  constructor(plugin, version, classes) {
    this.plugin = plugin;
    this.version = version;
    this.classes = classes;
    this.instances = new Map();
    this.nextInstance = 1;
    this.maxOutputBytes = 1 << 20;
  }

  ready(hello) {
    const offered = hello.protocols;
    if (!Array.isArray(offered) || !offered.includes(PROTOCOL_VERSION)) {
      return frame(REFUSED, Buffer.from(`plugin ${this.plugin} speaks worker protocol version ${PROTOCOL_VERSION}; the host offers ${JSON.stringify(offered)}: update the plugin kit or the host`));
    }
    if (Number.isInteger(hello.maxOutputBytes) && hello.maxOutputBytes > 0) this.maxOutputBytes = hello.maxOutputBytes;
    const optionalHooks = {};
    for (const cls of this.classes) {
      const hooks = [...(cls.optionalHooks ?? [])].sort();
      if (hooks.length) optionalHooks[classNameOf(cls)] = hooks;
    }
    return frame(READY, Buffer.from(JSON.stringify({
      protocol: PROTOCOL_VERSION, plugin: this.plugin, version: this.version,
      classes: this.classes.map(classNameOf), optionalHooks, batches: true,
    })));
  }

  /** The reply to one create, hook or destroy request, and whether it is a failure; a promise when a hook is async. */
  answer(kind, body) {
    if (kind === HOOK) {
      if (body.length < 10) throw new ProtocolError("a hook request shorter than its header");
      const handle = Number(body.readBigUInt64LE(0));
      const n = body.readUInt16LE(8);
      const name = body.toString("utf8", 10, 10 + n);
      const instance = this.instances.get(handle);
      if (!instance) throw new ProtocolError(`a hook for instance ${handle}, which this worker does not have`);
      return this.hook(instance, name, body.subarray(10 + n));
    }
    if (kind === CREATE) {
      const index = body.readUInt32LE(0);
      const cls = this.classes[index];
      if (!cls) throw new ProtocolError(`create for class index ${index}; there are ${this.classes.length}`);
      let instance;
      try {
        instance = new cls(body.toString("utf8", 4));
      } catch (error) {
        return [failure(classNameOf(cls), "create", error), true];
      }
      const handle = this.nextInstance++;
      this.instances.set(handle, instance);
      return [okFrame(handle, memoryOf(instance)), false];
    }
    if (kind === DESTROY) {
      this.instances.delete(Number(body.readBigUInt64LE(0)));
      return [okFrame(0, 0), false];
    }
    throw new ProtocolError(`a request of kind 0x${kind.toString(16)}`);
  }

  hook(instance, name, raw) {
    const clsName = classNameOf(instance.constructor);
    let result;
    try {
      const input = JSON.parse(raw.toString("utf8"));
      const call = new HookCall(name, input && typeof input === "object" ? input : {});
      if ((name === "init" || name === "configure") && call.data !== null) instance.data = call.data;
      const size = call.size;
      if (size) instance.size = size;
      result = instance.hook(call);
    } catch (error) {
      return [failure(clsName, name, error), true];
    }
    if (result && typeof result.then === "function") {
      return result.then((value) => this.output(instance, clsName, name, value),
        (error) => [failure(clsName, name, error), true]);
    }
    return this.output(instance, clsName, name, result);
  }

  output(instance, clsName, name, value) {
    if (value === undefined || value === null) return [okFrame(0, memoryOf(instance)), false];
    let text;
    try {
      text = JSON.stringify(value);
    } catch (error) {
      return [failedFrame(`${clsName}.${name} returned output that is not JSON: ${error.message}`, { reason: "invalidOutput" }), true];
    }
    if (text === undefined) {
      return [failedFrame(`${clsName}.${name} returned output that is not JSON: a ${typeof value}`, { reason: "invalidOutput" }), true];
    }
    const bytes = Buffer.from(text);
    if (bytes.length > this.maxOutputBytes) {
      return [failedFrame(`${clsName}.${name} set ${bytes.length} bytes of output, over the limit of ${this.maxOutputBytes} (--plugin-output-limit)`,
        { reason: "outputTooLarge", outputBytes: bytes.length, limitBytes: this.maxOutputBytes }), true];
    }
    return [okFrame(0, memoryOf(instance), bytes), false];
  }
}

function memoryOf(instance) {
  try {
    return instance.memoryBytes;
  } catch {
    return 0;
  }
}

function failure(clsName, hook, error) {
  if (error instanceof PluginError) return failedFrame(error.message, error.data ?? {});
  log.error(`${clsName}.${hook} threw`, error);
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return failedFrame(`${clsName}.${hook} threw ${what}`);
}

/**
 * Runs the plugin's worker until the host stops it (then the process exits). `plugin` names the plugin
 * (host.info, pluginCrashed events, plugins.restart); `classes` are its container classes. Started by
 * hand, outside a host, it says how to run it and exits with status 2.
 */
export function serve(plugin, classes, { version = "" } = {}) {
  pluginName = plugin;
  const names = classes.map(classNameOf);
  if (!classes.length || new Set(names).size !== names.length) {
    throw new Error(`a plugin declares one or more classes with distinct names, got ${JSON.stringify(names)}`);
  }
  for (const cls of classes) {
    for (const h of cls.optionalHooks ?? []) {
      if (!OPTIONAL_HOOKS.has(h)) throw new Error(`${classNameOf(cls)}.optionalHooks names ${h}, not an optional hook`);
    }
  }
  const fd = Number(process.env.GREENROOM_WORKER_FD);
  if (!process.env.GREENROOM_WORKER_FD || !Number.isInteger(fd)) {
    const script = basename(process.argv[1] ?? "plugin.mjs");
    process.stderr.write(`${script} is a Greenroom plugin: the host runs it, as in\n  greenroom serve --plugin-command "node ${process.argv[1] ?? script}"\n`);
    process.exit(2);
  }
  const worker = new Worker(plugin, version, classes);
  const socket = new net.Socket({ fd, readable: true, writable: true });
  let buffer = Buffer.alloc(0);
  let greeted = false;
  let busy = false;  // an async hook is running: frames wait in `buffer`

  const fail = (error) => {
    log.error(`the host broke the worker protocol: ${error.message}`);
    process.exit(3);
  };
  socket.on("error", () => process.exit(0));
  socket.on("end", () => process.exit(0));  // the host closed its end: it stopped us, or it is gone
  socket.on("data", (chunk) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    if (!busy) pump();
  });

  function nextFrame() {
    if (buffer.length < 5) return null;
    const length = buffer.readUInt32LE(0);
    if (length < 1) throw new ProtocolError("a frame of length 0");
    if (buffer.length < 4 + length) return null;
    const kind = buffer[4];
    const body = buffer.subarray(5, 4 + length);
    buffer = buffer.subarray(4 + length);
    return [kind, body];
  }

  // Runs whole frames while they are there; an async hook pauses it until it settles.
  function pump() {
    try {
      for (let f = nextFrame(); f; f = nextFrame()) {
        const [kind, body] = f;
        if (!greeted) {
          greeted = true;
          if (kind !== HELLO) {
            socket.end(frame(REFUSED, Buffer.from("the host's first frame is not hello")));
            return;
          }
          const reply = worker.ready(JSON.parse(body.toString("utf8")));
          socket.write(reply);
          if (reply[4] === REFUSED) { socket.end(); return; }
          continue;
        }
        if (kind === WAKE) continue;
        if (kind === BATCH) {
          const pending = runBatch(body, body.readUInt32LE(0), 4);
          if (pending) { wait(pending); return; }
          continue;
        }
        const answer = worker.answer(kind, body);
        if (answer instanceof Promise) { wait(answer.then(([reply]) => { socket.write(reply); })); return; }
        socket.write(answer[0]);
      }
    } catch (error) {
      fail(error);
    }
  }

  function wait(promise) {
    busy = true;
    promise.then(() => { busy = false; pump(); }, fail);
  }

  // Each hook's reply goes as the hook ends: the host tells which hook a crash or a hang was in. Returns a
  // promise when a hook of the batch is async (the rest of the batch runs after it).
  function runBatch(body, left, at) {
    for (; left > 0; left--) {
      const n = body.readUInt32LE(at);
      if (n < 1 || body[at + 4] !== HOOK) throw new ProtocolError("a batch entry that is not a hook request");
      const answer = worker.answer(HOOK, body.subarray(at + 5, at + 4 + n));
      at += 4 + n;
      if (answer instanceof Promise) {
        const rest = left - 1, from = at;
        return answer.then(([reply, failed]) => {
          socket.write(reply);
          return failed ? undefined : runBatch(body, rest, from);
        });
      }
      socket.write(answer[0]);
      if (answer[1]) break;
    }
    return null;
  }
}
