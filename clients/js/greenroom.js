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
