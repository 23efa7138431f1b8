// The node plugin kit (clients/js/plugin.mjs), spoken to over the worker protocol directly: the example
// Counter runs with its socket on descriptor 3 (a pipe that node makes a Unix socketpair), no host. The same
// kit under a real host is tests/integration/test_plugin_languages.py.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const COUNTER = fileURLToPath(new URL("../../examples/plugins/node/counter.mjs", import.meta.url));
const HELLO = 0x56, READY = 0x52, REFUSED = 0x45, CREATE = 0x43, HOOK = 0x48, BATCH = 0x42, DESTROY = 0x44;
const WAKE = 0x57, OK = 0x4f, FAILED = 0x46;

function frame(kind, body = Buffer.alloc(0)) {
  const head = Buffer.alloc(5);
  head.writeUInt32LE(body.length + 1, 0);
  head[4] = kind;
  return Buffer.concat([head, body]);
}

function hookFrame(handle, name, input) {
  const head = Buffer.alloc(10);
  head.writeBigUInt64LE(BigInt(handle), 0);
  head.writeUInt16LE(Buffer.byteLength(name), 8);
  return frame(HOOK, Buffer.concat([head, Buffer.from(name), Buffer.from(JSON.stringify(input))]));
}

const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
const u64 = (n) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); return b; };

/** The Counter example in a process of its own; `next()` is its next frame. */
function start(script = COUNTER) {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, GREENROOM_WORKER_FD: "3" }, stdio: ["ignore", "pipe", "pipe", "pipe"],
  });
  const sock = child.stdio[3];
  let buffer = Buffer.alloc(0);
  const waiting = [];
  let stderr = "";
  child.stderr.on("data", (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  sock.on("data", (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    while (buffer.length >= 5 && buffer.length >= 4 + buffer.readUInt32LE(0) && waiting.length) {
      const n = buffer.readUInt32LE(0);
      waiting.shift()([buffer[4], buffer.subarray(5, 4 + n)]);
      buffer = buffer.subarray(4 + n);
    }
  });
  const next = () => new Promise((resolve) => {
    waiting.push(resolve);
    sock.emit("data", Buffer.alloc(0));
  });
  const ask = (bytes) => { sock.write(bytes); return next(); };
  const hello = (protocols = [1]) => ask(frame(HELLO, Buffer.from(JSON.stringify({ protocols, maxOutputBytes: 100, maxDepth: 64, hookTimeoutMs: 2000 }))));
  return { child, sock, next, ask, hello, exited, stderr: () => stderr };
}

const okOf = ([kind, body]) => {
  assert.equal(kind, OK, body.toString());
  return { value: Number(body.readBigUInt64LE(0)), memory: Number(body.readBigUInt64LE(8)), output: body.length > 16 ? JSON.parse(body.subarray(16)) : null };
};

test("the handshake declares the plugin, its classes and the protocol version", async () => {
  const w = start();
  const [kind, body] = await w.hello();
  assert.equal(kind, READY);
  assert.deepEqual(JSON.parse(body), { protocol: 1, plugin: "counter-node", version: "1.0.0", classes: ["CounterNode"], optionalHooks: {}, batches: true });
  w.sock.end();
  assert.equal(await w.exited, 0);
});

test("a version the kit does not speak is refused in a sentence", async () => {
  const w = start();
  const [kind, body] = await w.hello([7]);
  assert.equal(kind, REFUSED);
  assert.match(body.toString(), /speaks worker protocol version 1; the host offers \[7\]/);
  await w.exited;
});

test("requests, a failure, a streamed batch and destroy", async () => {
  const w = start();
  await w.hello();
  const made = okOf(await w.ask(frame(CREATE, Buffer.concat([u32(0), Buffer.from("c-1")]))));
  assert.deepEqual([made.value, made.memory], [1, 64]);
  okOf(await w.ask(hookFrame(1, "init", { data: { failOn: "viewWillAppear" } })));
  assert.deepEqual(okOf(await w.ask(hookFrame(1, "configure", { data: {} }))).output,
    { calls: 2, lastHook: "init", workPending: 0, workDone: 0, sum: null });
  const hooks = [hookFrame(1, "viewDidLoad", {}), hookFrame(1, "viewWillAppear", { animated: false }), hookFrame(1, "viewDidAppear", { animated: false })];
  w.sock.write(Buffer.concat([frame(WAKE), frame(BATCH, Buffer.concat([u32(hooks.length), ...hooks]))]));
  okOf(await w.next());
  const [kind, body] = await w.next();
  assert.equal(kind, FAILED);
  assert.deepEqual(JSON.parse(body), { message: "Counter: viewWillAppear failed because data.failOn names it (call 4)", data: {} });
  // viewDidAppear did not run: the next configure counts five hooks.
  assert.equal(okOf(await w.ask(hookFrame(1, "configure", { data: { failOn: null } }))).output.calls, 5);
  assert.equal(okOf(await w.ask(frame(DESTROY, u64(1)))).value, 0);
  w.sock.end();
  assert.equal(await w.exited, 0);
});

test("a request for an instance it does not have ends the worker", async () => {
  const w = start();
  await w.hello();
  w.sock.write(hookFrame(9, "configure", {}));
  assert.equal(await w.exited, 3);
  assert.match(w.stderr(), /greenroom: plugin counter-node: error: the host broke the worker protocol: a hook for instance 9/);
});

test("outside a host it says how to run it", async () => {
  const child = spawn(process.execPath, [COUNTER], { env: { ...process.env, GREENROOM_WORKER_FD: "" }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => { stderr += d; });
  const code = await new Promise((resolve) => child.on("exit", resolve));
  assert.equal(code, 2);
  assert.match(stderr, /is a Greenroom plugin: the host runs it/);
});

test("async hooks, thrown errors and the output limit", async () => {
  const { mkdtempSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const kit = new URL("../../clients/js/plugin.mjs", import.meta.url).href;
  const dir = mkdtempSync(join(tmpdir(), "grkit-"));
  const script = join(dir, "probe.mjs");
  writeFileSync(script, `
    import { Container, serve } from ${JSON.stringify(kit)};
    class Probe extends Container {
      static optionalHooks = ["viewSafeAreaInsetsDidChange"];
      async viewDidLoad() { await new Promise((r) => setTimeout(r, 10)); return { loaded: this.id }; }
      configure(call) {
        if (call.data?.big) return "x".repeat(200);
        if (call.data?.boom) throw new TypeError("boom");
        return { data: this.data, size: this.size };
      }
    }
    serve("probe", [Probe]);
  `);
  const w = start(script);
  const [, ready] = await w.hello();
  assert.deepEqual(JSON.parse(ready).optionalHooks, { Probe: ["viewSafeAreaInsetsDidChange"] });
  okOf(await w.ask(frame(CREATE, Buffer.concat([u32(0), Buffer.from("c-5")]))));
  // An async hook inside a batch: the hook after it runs after it settles, its reply after the first.
  const hooks = [hookFrame(1, "viewDidLoad", {}), hookFrame(1, "viewWillLayoutSubviews", { size: { width: 10, height: 20 } })];
  w.sock.write(frame(BATCH, Buffer.concat([u32(2), ...hooks])));
  assert.deepEqual(okOf(await w.next()).output, { loaded: "c-5" });
  assert.equal(okOf(await w.next()).output, null);
  assert.deepEqual(okOf(await w.ask(hookFrame(1, "configure", { data: { a: 1 } }))).output, { data: { a: 1 }, size: { width: 10, height: 20 } });
  let [kind, body] = await w.ask(hookFrame(1, "configure", { data: { big: true } }));
  assert.equal(kind, FAILED);
  assert.deepEqual(JSON.parse(body).data, { reason: "outputTooLarge", outputBytes: 202, limitBytes: 100 });
  [kind, body] = await w.ask(hookFrame(1, "configure", { data: { boom: true } }));
  assert.equal(kind, FAILED);
  assert.equal(JSON.parse(body).message, "Probe.configure threw TypeError: boom");
  w.sock.end();
  assert.equal(await w.exited, 0);
  assert.match(w.stderr(), /greenroom: plugin probe: error: Probe.configure threw TypeError: boom/);
});
