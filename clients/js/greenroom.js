// Greenroom's JavaScript client: JSON-RPC 2.0 over a WebSocket, one message (or batch) per text frame.
// One ES module, no build step, no dependency: for browsers, and for Node where it has a global
// WebSocket (22 and later). The host serves this file at /greenroom.js on its `ws:` listener.
//
//   import { connect, UnknownObject } from "/greenroom.js";
//   const host = await connect("ws://127.0.0.1:8765/rpc");
//   await host.subscribe(["lifecycle"]);
//   host.on("lifecycle", (event) => console.log(event.container, event.event));
//   const { container } = await host.call("container.create", { class: "Container" });
//
// Same shape as the Python client: typed errors carrying `code`, `message` and `data`, events by
// `on(topic, handler)`, and every pending call rejected with a clear error when the connection drops.

/** Base class of every error this client raises or rejects with. */
export class GreenroomError extends Error {
  constructor(message) {
    super(message);
    this.name = new.target.name;
  }
}

/** The WebSocket could not be opened (refused, wrong URL, the host said 403: see the browser console). */
export class ConnectError extends GreenroomError {}

/** The connection is closed: by the host, by the network, or by `close()`. `code` and `reason` are
 * the WebSocket close code and reason when there was one. */
export class ConnectionClosed extends GreenroomError {
  constructor(message, { code = null, reason = "" } = {}) {
    super(message);
    this.code = code;
    this.reason = reason;
  }
}

/** No reply came within the call's `timeout` (milliseconds). The request stays sent. */
export class RequestTimeout extends GreenroomError {}

/** The host sent something that is not JSON-RPC 2.0. */
export class ProtocolError extends GreenroomError {}

const classesByCode = new Map();

/** The host answered with a JSON-RPC error object. `code`, `message` and `data` are the error's;
 * `kind` is `data.kind` (Greenroom sets it on its own codes). Subclasses stand for one code each. */
export class RPCError extends GreenroomError {
  constructor(code, message, data = null) {
    super(message);
    this.code = code;
    this.data = data;
  }

  get kind() {
    return this.data && typeof this.data.kind === "string" ? this.data.kind : null;
  }

  toString() {
    return `${this.name}: ${this.message} (code ${this.code})` + (this.data == null ? "" : ` data=${JSON.stringify(this.data)}`);
  }

  /** Registers `cls` as the error class for `code` (the table is open, as in the Python client). */
  static register(code, cls) {
    classesByCode.set(code, cls);
    return cls;
  }
}

function codeClass(code, doc) {
  const cls = class extends RPCError {};
  cls.code = code;
  cls.doc = doc;
  return RPCError.register(code, cls);
}

// The names, codes and meanings are the Python client's (clients/python/src/greenroom/errors.py).
export const ParseError = codeClass(-32700, "the host could not parse the JSON text");
export const InvalidRequest = codeClass(-32600, "not a valid JSON-RPC request (also: message or batch too long)");
export const MethodNotFound = codeClass(-32601, "no such method; data.method names it");
export const InvalidParams = codeClass(-32602, "bad params; data.path names the bad field");
export const InternalError = codeClass(-32603, "the host failed internally");
export const UnknownClass = codeClass(-32001, "no container class with that name");
export const UnknownObject = codeClass(-32002, "no such container, stack, session or batch context (or not yours)");
export const InvalidState = codeClass(-32003, "the object is not in a state that allows the request");
export const PluginFailed = codeClass(-32004, "a plugin hook failed; the container was torn down");
export const LimitExceeded = codeClass(-32005, "a host limit was reached");
export const Unauthorized = codeClass(-32006, "authenticate first (host.auth, or a token in connect's options)");
export const VirtualClockOnly = codeClass(-32007, "the method needs serve --clock virtual");

// Each class shows its own name (class expressions above are anonymous).
for (const [name, cls] of Object.entries({
  ParseError, InvalidRequest, MethodNotFound, InvalidParams, InternalError, UnknownClass, UnknownObject,
  InvalidState, PluginFailed, LimitExceeded, Unauthorized, VirtualClockOnly,
})) {
  Object.defineProperty(cls, "name", { value: name });
}

/** The typed error for a JSON-RPC error object `{code, message, data?}`. A malformed one still gives an
 * error (InternalError), so that a failure is never swallowed. */
export function errorFromObject(error) {
  if (error === null || typeof error !== "object") {
    return new InternalError(-32603, `malformed error object from host: ${JSON.stringify(error)}`);
  }
  const message = typeof error.message === "string" ? error.message : String(error.message ?? "");
  if (!Number.isInteger(error.code)) {
    return new InternalError(-32603, `error object without an integer code: ${message}`, error.data ?? null);
  }
  const cls = classesByCode.get(error.code) ?? RPCError;
  return new cls(error.code, message, error.data ?? null);
}

/** The Sec-WebSocket-Protocol entries: "greenroom", and the token when there is one (browsers cannot
 * set other headers on a WebSocket). */
const PROTOCOL = "greenroom";
const TOKEN_PROTOCOL_PREFIX = "greenroom.token.";

/**
 * Opens a connection. `url` is the host's `ws://HOST:PORT/rpc`.
 * Options: `token` (for a host started with --token-file), `timeout` (default call timeout in
 * milliseconds; none by default), `WebSocket` (a constructor, where there is no global one).
 * Resolves with a `Client` once the WebSocket is open; rejects with ConnectError otherwise.
 */
export function connect(url, options = {}) {
  const Socket = options.WebSocket ?? globalThis.WebSocket;
  if (typeof Socket !== "function") {
    return Promise.reject(new ConnectError("no WebSocket here: pass options.WebSocket"));
  }
  const protocols = [PROTOCOL];
  if (options.token) protocols.push(TOKEN_PROTOCOL_PREFIX + options.token);
  return new Promise((resolve, reject) => {
    let socket;
    try {
      socket = new Socket(url, protocols);
    } catch (error) {
      reject(new ConnectError(`cannot connect to ${url}: ${error.message}`));
      return;
    }
    const failed = () => {
      socket.removeEventListener("open", opened);
      reject(new ConnectError(`cannot connect to ${url} (refused, or the host answered the upgrade with an HTTP error: ` +
        "a page from another origin needs the host started with --allow-origin ORIGIN)"));
    };
    const opened = () => {
      socket.removeEventListener("error", failed);
      socket.removeEventListener("close", failed);
      resolve(new Client(socket, options));
    };
    socket.addEventListener("open", opened, { once: true });
    socket.addEventListener("error", failed, { once: true });
    socket.addEventListener("close", failed, { once: true });
  });
}

/** One open connection to the host. Made by `connect`. */
export class Client {
  #socket;
  #nextId = 1;
  #pending = new Map();
  #handlers = new Map();
  #closedError = null;
  #parting = null;
  #timeout;
  #resolveClosed;

  constructor(socket, options = {}) {
    this.#socket = socket;
    this.#timeout = options.timeout ?? null;
    /** Resolves with the ConnectionClosed error once the connection is closed, whoever closed it. */
    this.closed = new Promise((resolve) => { this.#resolveClosed = resolve; });
    socket.addEventListener("message", (event) => this.#received(event.data));
    socket.addEventListener("close", (event) => this.#dropped(event.code, event.reason));
  }

  /** True once the connection is closed. */
  get isClosed() {
    return this.#closedError !== null;
  }

  /** Calls `method` with `params` (an object or array; omitted when undefined). Resolves with the
   * result; rejects with the typed RPCError, RequestTimeout or ConnectionClosed. */
  call(method, params, { timeout = this.#timeout } = {}) {
    if (this.#closedError) return Promise.reject(this.#closedError);
    const id = this.#nextId++;
    const message = { jsonrpc: "2.0", id, method };
    if (params !== undefined) message.params = params;
    return new Promise((resolve, reject) => {
      const entry = { resolve, reject, timer: null };
      if (timeout != null) {
        entry.timer = setTimeout(() => {
          this.#pending.delete(id);
          reject(new RequestTimeout(`no reply to ${method} within ${timeout} ms`));
        }, timeout);
      }
      this.#pending.set(id, entry);
      this.#socket.send(JSON.stringify(message));
    });
  }

  /** Sends a notification: no reply, no error comes back. */
  notify(method, params) {
    if (this.#closedError) throw this.#closedError;
    const message = { jsonrpc: "2.0", method };
    if (params !== undefined) message.params = params;
    this.#socket.send(JSON.stringify(message));
  }

  /** `events.subscribe`: receive events of `topics` (a string or an array). `{scope: "all"}` observes
   * every connection's objects. Subscribing registers no handler: see `on`. */
  subscribe(topics, { scope } = {}) {
    const params = { topics: typeof topics === "string" ? [topics] : [...topics] };
    if (scope !== undefined) params.scope = scope;
    return this.call("events.subscribe", params);
  }

  /** `events.unsubscribe`. */
  unsubscribe(topics) {
    return this.call("events.unsubscribe", { topics: typeof topics === "string" ? [topics] : [...topics] });
  }

  /** Calls `handler(params)` for each event of `topic`, in arrival order; returns a function that
   * removes the handler. An exception in a handler is reported on the console, not thrown. */
  on(topic, handler) {
    if (!this.#handlers.has(topic)) this.#handlers.set(topic, new Set());
    this.#handlers.get(topic).add(handler);
    return () => this.off(topic, handler);
  }

  /** Removes `handler` from `topic` (every handler of it when `handler` is omitted). */
  off(topic, handler) {
    if (handler === undefined) this.#handlers.delete(topic);
    else this.#handlers.get(topic)?.delete(handler);
  }

  /** Closes the connection (close code 1000); pending calls are rejected with ConnectionClosed. */
  close() {
    if (!this.#closedError) {
      this.#fail(new ConnectionClosed("the connection was closed by close()", { code: 1000 }));
      this.#socket.close(1000);
    }
    return this.closed;
  }

  #received(data) {
    let message;
    try {
      if (typeof data !== "string") throw new Error("a binary frame");
      message = JSON.parse(data);
    } catch (error) {
      console.error(new ProtocolError(`the host sent something that is not JSON: ${error.message}`));
      return;
    }
    for (const entry of Array.isArray(message) ? message : [message]) this.#dispatch(entry);
  }

  #dispatch(message) {
    if (message === null || typeof message !== "object" || message.jsonrpc !== "2.0") {
      console.error(new ProtocolError(`not a JSON-RPC 2.0 message: ${JSON.stringify(message)}`));
      return;
    }
    if (typeof message.method === "string") {
      for (const handler of this.#handlers.get(message.method) ?? []) {
        try {
          handler(message.params);
        } catch (error) {
          console.error(`a ${message.method} handler failed:`, error);
        }
      }
      return;
    }
    if (message.id === null && message.error) {
      // The host's parting word before it closes (a refusal, a limit): pending calls get it.
      this.#parting = errorFromObject(message.error);
      return;
    }
    const entry = this.#pending.get(message.id);
    if (!entry) return;  // timed out already
    this.#pending.delete(message.id);
    if (entry.timer) clearTimeout(entry.timer);
    if ("error" in message) entry.reject(errorFromObject(message.error));
    else entry.resolve(message.result);
  }

  #dropped(code, reason) {
    if (this.#closedError) return;
    const why = reason ? `: ${reason}` : "";
    this.#fail(this.#parting ?? new ConnectionClosed(`the connection to the host was closed (code ${code}${why})`, { code, reason }));
  }

  #fail(error) {
    this.#closedError = error;
    for (const entry of this.#pending.values()) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.reject(error);
    }
    this.#pending.clear();
    this.#resolveClosed(error);
  }
}

// ---------------------------------------------------------------------------------------------------
// The lifecycle model: docs/lifecycle.md's appearance table on the client's side, the words a test uses
// about it, and gestures. The same model as the Python client's `greenroom.lifecycle`, with the same
// messages.
//
//   import { AppearanceChecker, assertCalls, swipePage } from "/greenroom.js";
//   const checker = new AppearanceChecker();
//   const seen = [];
//   host.on("lifecycle", (event) => { checker.feed(event); seen.push(event); });
//   await swipePage(host, session, 0, 1, { width: 375 });
//   assertCalls(seen, ["willAppear 1", "willDisappear 0", "didAppear 1", "didDisappear 0"]);
//   checker.check({ atRest: true });
//
// Events may be given as a handler receives them (the params object) or as whole notifications
// (`{method: "lifecycle", params: {...}}`).

/** The four appearance hooks, in UIKit's names. */
export const APPEARANCE = Object.freeze(["viewWillAppear", "viewDidAppear", "viewWillDisappear", "viewDidDisappear"]);

/** A container's appearance states; every container starts `disappeared`. */
export const STATES = Object.freeze(["disappeared", "appearing", "appeared", "disappearing"]);

/** The calls a parent makes on a child, as the host names them in `unbalancedAppearanceTransition`. */
export const CALLS = Object.freeze(["beginAppearance(true)", "beginAppearance(false)", "endAppearance"]);

/** docs/lifecycle.md's table, one cell a row: from `state`, `call` leads to `next` and runs `hook`. Every
 * other (state, call) is unbalanced: the host refuses it and reports an `unbalancedAppearanceTransition`. */
export const APPEARANCE_TABLE = Object.freeze([
  { state: "disappeared", call: "beginAppearance(true)", next: "appearing", hook: "viewWillAppear" },
  { state: "disappearing", call: "beginAppearance(true)", next: "appearing", hook: "viewWillAppear" },
  { state: "appearing", call: "beginAppearance(false)", next: "disappearing", hook: "viewWillDisappear" },
  { state: "appeared", call: "beginAppearance(false)", next: "disappearing", hook: "viewWillDisappear" },
  { state: "appearing", call: "endAppearance", next: "appeared", hook: "viewDidAppear" },
  { state: "disappearing", call: "endAppearance", next: "disappeared", hook: "viewDidDisappear" },
].map((cell) => Object.freeze(cell)));

/** The short names the article on UIPageViewController uses ("Will Appear 0"): hook -> short name. */
export const SHORT_NAMES = Object.freeze({
  viewWillAppear: "willAppear", viewDidAppear: "didAppear",
  viewWillDisappear: "willDisappear", viewDidDisappear: "didDisappear",
});

const LONG_NAMES = Object.fromEntries(Object.entries(SHORT_NAMES).map(([hook, short]) => [short, hook]));
const HOOK_FROM = new Map(APPEARANCE.map((hook) => [hook, new Set(APPEARANCE_TABLE.filter((c) => c.hook === hook).map((c) => c.state))]));
const HOOK_TO = new Map(APPEARANCE_TABLE.map((c) => [c.hook, c.next]));
const UNBALANCED = "unbalancedAppearanceTransition";
const own = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

/** `viewWillAppear` -> `willAppear` (the four appearance hooks); any other name is returned as is. */
export function shortName(hook) {
  return own(SHORT_NAMES, hook) ? SHORT_NAMES[hook] : hook;
}

/** `willAppear` -> `viewWillAppear`; any other name is returned as is. */
export function longName(name) {
  return own(LONG_NAMES, name) ? LONG_NAMES[name] : name;
}

function lifecycleParams(event) {
  if (event === null || typeof event !== "object") return null;
  const params = "method" in event ? (event.method === "lifecycle" ? event.params : null) : event;
  return params && typeof params === "object" && "container" in params && "event" in params ? params : null;
}

const pageOf = (params) => (params.page && typeof params.page === "object" ? params.page : {});

/** The params of the `lifecycle` events among `events`, in order (other topics are left out). */
export function lifecycleEvents(events) {
  return [...events].map(lifecycleParams).filter((params) => params !== null);
}

/** The lifecycle events among `events` whose hook is an appearance hook. */
export function onlyAppearance(events) {
  return lifecycleEvents(events).filter((p) => own(SHORT_NAMES, p.event));
}

/** The lifecycle events among `events` of the given containers (`"c-2"`, ...). */
export function onlyContainers(events, ...containers) {
  const wanted = new Set(containers);
  return lifecycleEvents(events).filter((p) => wanted.has(p.container));
}

/** The lifecycle events among `events` that ran on screen: green-room containers' (`offscreen: true`)
 * are left out, as exposure statistics leave them out. */
export function withoutOffscreen(events) {
  return lifecycleEvents(events).filter((p) => !p.offscreen);
}

/** The lifecycle events among `events` of `session`'s children (`page: {session, index}`). */
export function ofPageSession(events, session) {
  return lifecycleEvents(events).filter((p) => pageOf(p).session === session && "index" in pageOf(p));
}

/** A lifecycle expectation failed. `assertCalls` also sets `expected`, `got` (the lines compared) and
 * `index` (the first difference, from 0). */
export class LifecycleAssertionError extends Error {
  constructor(message, { expected = [], got = [], index = null } = {}) {
    super(message);
    this.name = "LifecycleAssertionError";
    this.expected = [...expected];
    this.got = [...got];
    this.index = index;
  }
}

function where(p) {
  const extra = [];
  if (Number.isInteger(p.seq)) extra.push(`seq ${p.seq}`);
  if ("index" in pageOf(p)) extra.push(`page ${pageOf(p).index} of ${pageOf(p).session}`);
  return `${p.container}` + (extra.length ? ` (${extra.join(", ")})` : "");
}

/**
 * docs/lifecycle.md's appearance table, fed with lifecycle events as they arrive. Every container starts
 * `disappeared` at its `init` and is forgotten at its `deinit`; one first seen mid-life is taken in the
 * state its first appearance hook leaves it. `feed` it every event (`host.on("lifecycle", (e) =>
 * checker.feed(e))`), then `check()`. `violations` lists what was wrong ({container, event, state, seq,
 * message, params}); `states` maps each live container to its state.
 */
export class AppearanceChecker {
  constructor() {
    this.states = new Map();
    this.violations = [];
    this.last = new Map();  // container -> its last appearance hook, for messages
  }

  /** The appearance hooks that ran from a state the table does not allow. */
  get illegal() {
    return this.violations.filter((v) => v.event !== UNBALANCED);
  }

  /** The params of the host's `unbalancedAppearanceTransition` events (`call`, `state`). */
  get unbalanced() {
    return this.violations.filter((v) => v.event === UNBALANCED).map((v) => v.params);
  }

  /** True while nothing was wrong. */
  get ok() {
    return this.violations.length === 0;
  }

  /** `container`'s state; undefined for a container not seen (or deinit'd). */
  stateOf(container) {
    return this.states.get(container);
  }

  /** The containers left `appearing` or `disappearing`, as {container: state}. */
  inTransition() {
    return Object.fromEntries([...this.states].filter(([, s]) => s === "appearing" || s === "disappearing"));
  }

  /** Takes one event; returns the violation it is, or null. */
  feed(event) {
    const p = lifecycleParams(event);
    if (p === null) return null;
    const { container, event: hook } = p;
    if (hook === "init") {
      this.states.set(container, "disappeared");
    } else if (hook === "deinit") {
      this.states.delete(container);
      this.last.delete(container);
    } else if (HOOK_FROM.has(hook)) {
      const before = this.states.get(container);
      this.states.set(container, HOOK_TO.get(hook));
      this.last.set(container, hook);
      if (before !== undefined && !HOOK_FROM.get(hook).has(before)) {
        const allowed = STATES.filter((s) => HOOK_FROM.get(hook).has(s)).join(" or ");
        return this.#add(p, before, `${where(p)} ${hook} while ${before}: docs/lifecycle.md's table runs ${hook} only from ${allowed}`);
      }
    } else if (hook === UNBALANCED) {
      return this.#add(p, p.state ?? null, `${where(p)} unbalancedAppearanceTransition: the host refused ${p.call} in state ${p.state}`);
    }
    return null;
  }

  /** Takes every event of `events`, in order; returns the violations they are. */
  feedAll(events) {
    return [...events].map((e) => this.feed(e)).filter((v) => v !== null);
  }

  /** Every violation as a sentence; with `atRest`, also every container left halfway. */
  problems({ atRest = false } = {}) {
    const lines = this.violations.map((v) => v.message);
    if (atRest) {
      for (const [container, state] of Object.entries(this.inTransition())) {
        const did = state === "appearing" ? "viewDidAppear" : "viewDidDisappear";
        lines.push(`${container} is still ${state} at rest: its ${this.last.get(container) ?? "?"} has no ${did}`);
      }
    }
    return lines;
  }

  /** Throws LifecycleAssertionError listing every problem; `{atRest: true}` once nothing moves. */
  check({ atRest = false } = {}) {
    const lines = this.problems({ atRest });
    if (lines.length) {
      const shown = lines.slice(0, 20).concat(lines.length > 20 ? [`... and ${lines.length - 20} more`] : []);
      throw new LifecycleAssertionError(`${lines.length} appearance problem(s):\n  ` + shown.join("\n  "));
    }
  }

  #add(p, state, message) {
    const v = Object.freeze({ container: p.container, event: p.event, state, seq: Number.isInteger(p.seq) ? p.seq : null, message, params: p });
    this.violations.push(v);
    return v;
  }
}

function selectCalls(events, { appearanceOnly = true, offscreen = true, containers = null } = {}) {
  let chosen = lifecycleEvents(events);
  if (appearanceOnly) chosen = chosen.filter((p) => own(SHORT_NAMES, p.event));
  if (!offscreen) chosen = chosen.filter((p) => !p.offscreen);
  if (containers != null) {
    const wanted = new Set(containers);
    chosen = chosen.filter((p) => wanted.has(p.container));
  }
  return chosen;
}

/** The lifecycle events as lines `"c-3 viewWillAppear"` (`"c-3 willAppear"` with `short`). Options:
 * `appearanceOnly` (default true), `offscreen` (false leaves green-room containers out), `containers`. */
export function calls(events, { short = false, ...options } = {}) {
  return selectCalls(events, options).map((p) => `${p.container} ${short ? shortName(p.event) : p.event}`);
}

/** The appearance hooks of page-session children as the article writes them: `"willAppear 0"`
 * (`"viewWillAppear 0"` with `short: false`). `session` keeps one session's children. */
export function pageCalls(events, session = null, { short = true } = {}) {
  return onlyAppearance(events)
    .filter((p) => "index" in pageOf(p) && (session == null || pageOf(p).session === session))
    .map((p) => `${short ? shortName(p.event) : p.event} ${pageOf(p).index}`);
}

function parseLine(line) {
  const parts = String(line).trim().split(/\s+/);
  if (parts.length !== 2) throw new TypeError(`expected line ${JSON.stringify(line)} is not 'CONTAINER HOOK' or 'HOOK INDEX'`);
  const [a, b] = parts;
  if ((own(SHORT_NAMES, a) || own(LONG_NAMES, a)) && /^-?\d+$/.test(b)) return { form: "page", who: String(Number(b)), hook: a };
  return { form: "container", who: a, hook: b };
}

function checkHooks(wanted, appearanceOnly) {
  if (!appearanceOnly) return;
  for (const { who, hook } of wanted) {
    if (!own(SHORT_NAMES, hook)) {
      throw new TypeError(`expected names ${hook} (${who}), which is not an appearance hook: pass appearanceOnly: false to compare every hook`);
    }
  }
}

const sameLines = (a, b) => a.length === b.length && a.every((line, i) => line === b[i]);

function difference(what, expected, got, seqs) {
  let index = expected.findIndex((line, i) => i < got.length && line !== got[i]);
  if (index < 0) index = Math.min(expected.length, got.length);
  let head;
  if (index < expected.length && index < got.length) {
    head = `${what} differ at call ${index + 1} (expected ${expected.length}, got ${got.length}):\n  expected: ${expected[index]}\n  got:      ${got[index]}`;
  } else if (index < expected.length) {
    head = `${what}: expected ${expected.length}, got only ${got.length}; the first missing is call ${index + 1}:\n  expected: ${expected[index]}`;
  } else {
    head = `${what}: expected ${expected.length}, got ${got.length}; the first extra is call ${index + 1}:\n  got:      ${got[index]}`;
  }
  const width = Math.max("expected".length, ...expected.map((line) => line.length));
  const rows = [`     ${"expected".padEnd(width)}   got`];
  for (let i = 0; i < Math.max(expected.length, got.length); i += 1) {
    const seq = i < got.length && seqs[i] != null ? `  (seq ${seqs[i]})` : "";
    rows.push(`${i === index ? ">" : " "}${String(i + 1).padStart(3)} ${(expected[i] ?? "").padEnd(width)}   ${got[i] ?? ""}${seq}`);
  }
  return new LifecycleAssertionError(`${head}\n${rows.join("\n")}`, { expected, got, index });
}

/**
 * Asserts that the lifecycle calls among `events` are exactly `expected`, in order. `expected` is lines
 * `"CONTAINER HOOK"` (every container's calls, interleaved; `containers` narrows them, `session` to one
 * page session's children), lines
 * `"HOOK INDEX"` (page-session children by index, the article's notation; `session` narrows them), or an
 * object `{"c-1": ["willDisappear", "didDisappear"], ...}` (each container's own calls). Hooks may be
 * short or UIKit's names. Only appearance hooks are compared unless `appearanceOnly: false`;
 * `offscreen: false` leaves green-room containers out. Throws LifecycleAssertionError with the first
 * difference and both lists; returns the lines compared.
 */
export function assertCalls(events, expected, { session = null, appearanceOnly = true, offscreen = true, containers = null } = {}) {
  events = [...events];
  if (typeof expected === "string") throw new TypeError("expected is a list of lines, not one string");
  if (!Array.isArray(expected)) {
    const selected = selectCalls(events, { appearanceOnly, offscreen, containers: Object.keys(expected) });
    const failures = [];
    const everything = [];
    let first = null;
    for (const [container, hooks] of Object.entries(expected)) {
      if (typeof hooks === "string") throw new TypeError(`expected[${JSON.stringify(container)}] is a list of hooks, not one string`);
      const wanted = hooks.map((hook) => ({ who: container, hook: longName(hook.trim()) }));
      checkHooks(wanted, appearanceOnly);
      const short = hooks.length > 0 && hooks.every((hook) => own(LONG_NAMES, hook.trim()));
      const mine = selected.filter((p) => p.container === container);
      const wantLines = wanted.map(({ hook }) => `${container} ${short ? shortName(hook) : hook}`);
      const gotLines = mine.map((p) => `${container} ${short ? shortName(p.event) : p.event}`);
      everything.push(...gotLines);
      if (!sameLines(wantLines, gotLines)) {
        const error = difference(`calls of ${container}`, wantLines, gotLines, mine.map((p) => p.seq));
        first ??= error;
        failures.push(error.message);
      }
    }
    if (failures.length) throw new LifecycleAssertionError(failures.join("\n\n"), first);
    return everything;
  }
  const parsed = expected.map(parseLine);
  const forms = new Set(parsed.map((line) => line.form));
  if (forms.size > 1) throw new TypeError("expected mixes 'CONTAINER HOOK' and 'HOOK INDEX' lines");
  let short = parsed.length > 0 && parsed.every((line) => own(LONG_NAMES, line.hook));
  const wanted = parsed.map(({ who, hook }) => ({ who, hook: longName(hook) }));
  checkHooks(wanted, appearanceOnly);
  const selected = selectCalls(events, { appearanceOnly, offscreen, containers })
    .filter((p) => session == null || pageOf(p).session === session);
  const pageForm = forms.has("page") || (parsed.length === 0 && session != null);
  let chosen;
  let what;
  if (pageForm) {
    short = short || parsed.length === 0;
    chosen = selected.filter((p) => "index" in pageOf(p));
    what = "page calls" + (session != null ? ` of ${session}` : "");
  } else {
    chosen = selected;
    what = "lifecycle calls";
  }
  const render = (who, hook) => {
    const name = short ? shortName(hook) : hook;
    return pageForm ? `${name} ${who}` : `${who} ${name}`;
  };
  const wantLines = wanted.map(({ who, hook }) => render(who, hook));
  const gotLines = chosen.map((p) => render(pageForm ? String(pageOf(p).index) : p.container, p.event));
  if (!sameLines(wantLines, gotLines)) {
    throw difference(what, wantLines, gotLines, chosen.map((p) => p.seq));
  }
  return gotLines;
}

// Gestures. Each takes a client (anything with `call(method, params)` returning a promise, or a plain
// function of the same shape) and resolves with the last reply.

function caller(client) {
  if (typeof client === "function") return client;
  if (client && typeof client.call === "function") return (method, params) => client.call(method, params);
  throw new TypeError("a gesture needs a client with call(method, params)");
}

/** The finger goes down at `offsets[0]` (`page.willBeginDragging`) and moves through the other offsets
 * (`page.didScroll` each); it stays down. */
export async function dragPages(client, session, offsets) {
  if (!offsets.length) throw new TypeError("a drag needs at least its first offset");
  const call = caller(client);
  let reply = await call("page.willBeginDragging", { session, offset: offsets[0] });
  for (const offset of offsets.slice(1)) reply = await call("page.didScroll", { session, offset });
  return reply;
}

/** The finger lifts and the view comes to rest at `rest`: with deceleration (the default),
 * `page.willEndDragging` (at `rest`, `velocity` points per ms, default 0.5), `page.didEndDragging`
 * (`willDecelerate: true`), `page.didEndDecelerating`; without, `page.didEndDragging` at `rest` with
 * `willDecelerate: false` (docs/pages.md's rules read no willEndDragging then). */
export async function releasePages(client, session, rest, { velocity = 0.5, decelerate = true } = {}) {
  const call = caller(client);
  if (!decelerate) return call("page.didEndDragging", { session, offset: rest, willDecelerate: false });
  await call("page.willEndDragging", { session, offset: rest, velocity });
  await call("page.didEndDragging", { session, offset: rest, willDecelerate: true });
  return call("page.didEndDecelerating", { session, offset: rest });
}

/** A whole swipe by offsets: down at `offsets[0]`, through the others, lifting there
 * (`page.willEndDragging` with `velocity`, default 1, and `targetOffset: target` when given); the view
 * then decelerates to `rest`, or, with `decelerate: false`, stops at `rest`. */
export async function swipePages(client, session, offsets, rest, { velocity = 1.0, decelerate = true, target = null } = {}) {
  const call = caller(client);
  await dragPages(call, session, offsets);
  const last = offsets[offsets.length - 1];
  const lift = { session, offset: last, velocity };
  if (target != null) lift.targetOffset = target;
  await call("page.willEndDragging", lift);
  if (!decelerate) return call("page.didEndDragging", { session, offset: rest, willDecelerate: false });
  await call("page.didEndDragging", { session, offset: last, willDecelerate: true });
  return call("page.didEndDecelerating", { session, offset: rest });
}

/** A swipe from page `fromPage` toward page `toPage` of a session whose pages are `width` wide (page i
 * at offset i * width): the finger moves toward `toPage` in `steps` didScroll calls (default 3), past
 * the pages between, and lifts before it gets there; the view rests on `toPage`, or, `cancelled`, springs
 * back to `fromPage`. Options: `width` (required), `cancelled`, `steps`, `decelerate`, `velocity`. */
export async function swipePage(client, session, fromPage, toPage, { width, cancelled = false, steps = 3, decelerate = true, velocity = null } = {}) {
  if (fromPage === toPage) throw new RangeError("a swipe goes to another page: fromPage === toPage");
  if (!(width > 0)) throw new RangeError("width must be positive");
  if (!(steps >= 1)) throw new RangeError("steps must be at least 1");
  const way = toPage > fromPage ? 1 : -1;
  const origin = fromPage * width;
  // Short of the target page: 60% of a page for a swipe that goes through, 40% for one that is
  // cancelled, so that even without deceleration the nearest page is the one it rests on.
  const end = (toPage - way * (cancelled ? 0.6 : 0.4)) * width;
  const path = [origin];
  for (let k = 1; k <= steps; k += 1) path.push(origin + ((end - origin) * k) / steps);
  const rest = cancelled ? origin : toPage * width;
  return swipePages(client, session, path, rest, { velocity: velocity ?? (rest > end ? 1.0 : -1.0), decelerate, target: rest });
}

/** Asserts docs/pages.md's rule at rest (`page.info`): phase idle, no guess, the current page (`index`
 * when given) appeared, every other attached child disappeared. Resolves with the info. */
export async function assertPageAtRest(client, session, index = null) {
  const info = await caller(client)("page.info", { session });
  const problems = [];
  if (info.phase !== "idle") problems.push(`phase is ${info.phase}, not idle`);
  if (index != null && info.index !== index) problems.push(`the current page is ${info.index}, not ${index}`);
  if (info.guess != null) problems.push(`a guess is left: page ${info.guess}`);
  const children = info.children ?? [];
  if (!children.some((c) => c.index === info.index)) problems.push(`no child is attached for the current page ${info.index}`);
  for (const c of children) {
    const want = c.index === info.index ? "appeared" : "disappeared";
    if (c.state !== want) problems.push(`page ${c.index} (${c.container}) is ${c.state}, not ${want}`);
  }
  if (problems.length) {
    throw new LifecycleAssertionError(`page session ${session} is not at rest as docs/pages.md says (the current page appeared, every other child disappeared): ${problems.join("; ")}\n  page.info: ${JSON.stringify(info)}`);
  }
  return info;
}

/** A drag of a range session along `path`, with an optional fling: `range.willBeginDragging` at
 * `path[0]`, `range.didScroll` at each further offset. Without `fling` the finger lifts at rest
 * (`range.willEndDragging` with velocity 0, `range.didEndDecelerating`); with `fling` (points per ms,
 * positive toward the tail) `range.willEndDragging` (`targetOffset: target` when given), `flingFrames`
 * didScroll calls (default 3) on the way to the host's target, then `range.didEndDecelerating`.
 * `frameMs` advances the virtual clock before every didScroll. Resolves with `{target, reply}`. */
export async function rangeDrag(client, session, path, { fling = null, target = null, flingFrames = 3, frameMs = null } = {}) {
  if (!path.length) throw new TypeError("a drag needs at least its first offset");
  if (!(flingFrames >= 0)) throw new RangeError("flingFrames must be 0 or more");
  const call = caller(client);
  const frame = () => (frameMs != null ? call("clock.advance", { ms: frameMs }) : null);
  await call("range.willBeginDragging", { session, offset: path[0] });
  for (const offset of path.slice(1)) {
    await frame();
    await call("range.didScroll", { session, offset });
  }
  if (fling == null) {
    await call("range.willEndDragging", { session, velocity: 0 });
    return { target: null, reply: await call("range.didEndDecelerating", { session }) };
  }
  const lift = { session, velocity: fling };
  if (target != null) lift.targetOffset = target;
  const stop = Number((await call("range.willEndDragging", lift)).targetOffset);
  const start = path[path.length - 1];
  for (let k = 1; k <= flingFrames; k += 1) {
    await frame();
    await call("range.didScroll", { session, offset: start + ((stop - start) * k) / flingFrames });
  }
  const end = flingFrames === 0 ? { session, offset: stop } : { session };
  return { target: stop, reply: await call("range.didEndDecelerating", end) };
}

/** An interactive pop: `stack.beginInteractivePop`, `stack.updateInteractivePop` with each of
 * `progresses` (0 to 1), then `stack.finishInteractivePop` (`finish: true`) or
 * `stack.cancelInteractivePop`, with `duration` (ms) when given. */
export async function interactivePop(client, stack, progresses, { finish, duration = null } = {}) {
  if (typeof finish !== "boolean") throw new TypeError("say how it ends: { finish: true } or { finish: false }");
  const call = caller(client);
  await call("stack.beginInteractivePop", { stack });
  for (const progress of progresses) await call("stack.updateInteractivePop", { stack, progress });
  const end = { stack };
  if (duration != null) end.duration = duration;
  return call(finish ? "stack.finishInteractivePop" : "stack.cancelInteractivePop", end);
}
