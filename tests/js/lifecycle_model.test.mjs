// The JavaScript client's lifecycle model (clients/js/greenroom.js) against events made here and a fake
// client: the appearance table (read against docs/lifecycle.md), the checker, the short names, assertCalls
// and its failure messages (the Python client's, word for word), the filters, and the exact calls each
// gesture sends.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  APPEARANCE, APPEARANCE_TABLE, CALLS, STATES, SHORT_NAMES, AppearanceChecker, LifecycleAssertionError,
  assertCalls, assertPageAtRest, calls, dragPages, interactivePop, lifecycleEvents, longName, ofPageSession,
  onlyAppearance, onlyContainers, pageCalls, rangeDrag, releasePages, shortName, swipePage, swipePages,
  withoutOffscreen,
} from "../../clients/js/greenroom.js";
import { FakeClient } from "./fakes.mjs";

let seq = 0;
const hook = (container, event, extra = {}) => ({ seq: ++seq, t: 0, container, class: "Container", event, offscreen: false, ...extra });
const child = (container, event, index, session = "p-1") => hook(container, event, { page: { session, index } });

/** docs/lifecycle.md's animated push of c-2 onto a stack holding c-1 (c-1 already appeared). */
function pushEvents() {
  return [hook("c-1", "init"), hook("c-1", "viewWillAppear"), hook("c-1", "viewDidAppear"),
    hook("c-2", "init"), hook("c-2", "willMoveToParent"), hook("c-2", "loadView"),
    hook("c-2", "viewWillAppear"), hook("c-1", "viewWillDisappear"),
    hook("c-2", "viewDidAppear"), hook("c-2", "didMoveToParent"), hook("c-1", "viewDidDisappear")];
}

test("the table is docs/lifecycle.md's, cell for cell", () => {
  const text = readFileSync(new URL("../../docs/lifecycle.md", import.meta.url), "utf8");
  const rows = [...text.matchAll(/^\| (disappeared|appearing|appeared|disappearing) \|(.*)\|$/gm)];
  assert.deepEqual(rows.map((row) => row[1]), [...STATES]);
  const fromDoc = [];
  for (const [, state, cells] of rows) {
    cells.split("|").forEach((cell, i) => {
      const found = cell.match(/^\s*-> (\w+), `(\w+)`\s*$/);
      if (found) fromDoc.push({ state, call: CALLS[i], next: found[1], hook: found[2] });
      else assert.equal(cell.trim(), "unbalanced");
    });
  }
  const key = (c) => `${c.state} ${c.call} ${c.next} ${c.hook}`;
  assert.deepEqual(fromDoc.map(key).sort(), APPEARANCE_TABLE.map(key).sort());
  assert.deepEqual([...new Set(APPEARANCE_TABLE.map((c) => c.hook))].sort(), [...APPEARANCE].sort());
});

test("short names go both ways and leave other hooks alone", () => {
  assert.deepEqual(APPEARANCE.map(shortName), ["willAppear", "didAppear", "willDisappear", "didDisappear"]);
  assert.ok(APPEARANCE.every((h) => longName(shortName(h)) === h));
  assert.equal(shortName("viewDidLoad"), "viewDidLoad");
  assert.equal(longName("toString"), "toString", "no inherited property is taken for a name");
  assert.equal(SHORT_NAMES.viewDidDisappear, "didDisappear");
});

test("a balanced flow has no violation and ends at rest", () => {
  const checker = new AppearanceChecker();
  assert.deepEqual(checker.feedAll(pushEvents()), []);
  assert.ok(checker.ok);
  assert.deepEqual(Object.fromEntries(checker.states), { "c-1": "disappeared", "c-2": "appeared" });
  checker.check({ atRest: true });
});

test("every cell outside the table is a violation", () => {
  for (const state of STATES) {
    for (const name of APPEARANCE) {
      const checker = new AppearanceChecker();
      checker.feed(hook("c-9", "init"));
      checker.states.set("c-9", state);
      const legal = APPEARANCE_TABLE.some((c) => c.state === state && c.hook === name);
      assert.equal(checker.feed(hook("c-9", name)) === null, legal, `${state} ${name}`);
    }
  }
});

test("a violation says who, what, when and why, in the Python client's words", () => {
  const checker = new AppearanceChecker();
  checker.feed({ jsonrpc: "2.0", method: "lifecycle", params: hook("c-3", "init") });
  const event = child("c-3", "viewDidAppear", 2);
  const found = checker.feed(event);
  assert.deepEqual(checker.illegal, [found]);
  assert.equal(found.message, `c-3 (seq ${event.seq}, page 2 of p-1) viewDidAppear while disappeared: docs/lifecycle.md's table runs viewDidAppear only from appearing`);
  assert.throws(() => checker.check(), (e) => e instanceof LifecycleAssertionError && e.message.startsWith("1 appearance problem(s):\n  c-3 "));
});

test("the host's unbalanced reports are violations; at rest, a container left halfway is one too", () => {
  const checker = new AppearanceChecker();
  const report = hook("c-4", "unbalancedAppearanceTransition", { call: "endAppearance", state: "disappeared" });
  checker.feed(report);
  assert.deepEqual(checker.unbalanced, [report]);
  assert.throws(() => checker.check(), /the host refused endAppearance in state disappeared/);

  const moving = new AppearanceChecker();
  moving.feedAll([hook("c-5", "init"), hook("c-5", "viewWillAppear")]);
  moving.check();
  assert.deepEqual(moving.inTransition(), { "c-5": "appearing" });
  assert.throws(() => moving.check({ atRest: true }), /c-5 is still appearing at rest: its viewWillAppear has no viewDidAppear/);
});

test("the checker ignores other topics and forgets a container at deinit", () => {
  const checker = new AppearanceChecker();
  checker.feed({ jsonrpc: "2.0", method: "pool", params: { kind: "warmed", container: "c-7" } });
  checker.feed({ seq: 1, kind: "warmed", container: "c-7" });
  checker.feed(null);
  assert.equal(checker.states.size, 0);
  checker.feed(hook("c-7", "viewDidDisappear"));  // first seen mid-life: taken as it comes
  assert.equal(checker.stateOf("c-7"), "disappeared");
  checker.feed(hook("c-7", "deinit"));
  assert.equal(checker.stateOf("c-7"), undefined);
  assert.ok(checker.ok);
});

test("filters pick lifecycle, appearance, containers, screens and sessions", () => {
  const events = [{ jsonrpc: "2.0", method: "pool", params: { kind: "warmed", container: "c-1" } },
    hook("c-1", "viewDidLoad", { offscreen: true }), hook("c-1", "viewWillAppear", { offscreen: true }),
    child("c-2", "viewWillAppear", 0), child("c-3", "viewWillDisappear", 1, "p-2"), child("c-2", "viewDidAppear", 0)];
  assert.equal(lifecycleEvents(events).length, 5);
  assert.equal(onlyAppearance(events).length, 4);
  assert.deepEqual(onlyContainers(events, "c-1").map((p) => p.event), ["viewDidLoad", "viewWillAppear"]);
  assert.deepEqual(calls(withoutOffscreen(events), { short: true }), ["c-2 willAppear", "c-3 willDisappear", "c-2 didAppear"]);
  assert.deepEqual(ofPageSession(events, "p-1").map((p) => p.container), ["c-2", "c-2"]);
  assert.deepEqual(calls(events, { appearanceOnly: false, containers: ["c-1"] }), ["c-1 viewDidLoad", "c-1 viewWillAppear"]);
  assert.deepEqual(pageCalls(events), ["willAppear 0", "willDisappear 1", "didAppear 0"]);
  assert.deepEqual(pageCalls(events, "p-1", { short: false }), ["viewWillAppear 0", "viewDidAppear 0"]);
});

test("assertCalls passes on the exact calls, in either naming, as lines or per container", () => {
  const events = pushEvents();
  assert.deepEqual(assertCalls(events, ["c-1 willAppear", "c-1 didAppear", "c-2 willAppear", "c-1 willDisappear", "c-2 didAppear", "c-1 didDisappear"]).slice(0, 1), ["c-1 willAppear"]);
  assertCalls(events, ["c-2 viewWillAppear", "c-2 viewDidAppear"], { containers: ["c-2"] });
  assertCalls(events, { "c-2": ["willAppear", "didAppear"], "c-1": ["willAppear", "didAppear", "willDisappear", "didDisappear"] });
  assertCalls(events, { "c-2": ["init", "willMoveToParent", "loadView", "willAppear", "didAppear", "didMoveToParent"] }, { appearanceOnly: false });
  assertCalls([], []);
});

test("a difference shows the first one and both lists side by side", () => {
  const events = pushEvents().slice(6);
  const seqs = events.filter((e) => e.event in SHORT_NAMES).map((e) => e.seq);
  assert.throws(() => assertCalls(events, ["c-2 willAppear", "c-1 willDisappear", "c-1 didDisappear", "c-2 didAppear"]), (e) => {
    assert.equal(e.message, [
      "lifecycle calls differ at call 3 (expected 4, got 4):",
      "  expected: c-1 didDisappear",
      "  got:      c-2 didAppear",
      "     expected            got",
      `   1 c-2 willAppear      c-2 willAppear  (seq ${seqs[0]})`,
      `   2 c-1 willDisappear   c-1 willDisappear  (seq ${seqs[1]})`,
      `>  3 c-1 didDisappear    c-2 didAppear  (seq ${seqs[2]})`,
      `   4 c-2 didAppear       c-1 didDisappear  (seq ${seqs[3]})`,
    ].join("\n"));
    assert.equal(e.index, 2);
    assert.deepEqual(e.got, ["c-2 willAppear", "c-1 willDisappear", "c-2 didAppear", "c-1 didDisappear"]);
    return true;
  });
  assert.throws(() => assertCalls(events, ["c-2 viewWillAppear", "c-1 viewWillDisappear", "c-2 viewDidAppear", "c-1 viewDidDisappear", "c-2 viewWillDisappear"]),
    /expected 5, got only 4; the first missing is call 5:\n {2}expected: c-2 viewWillDisappear/);
  assert.throws(() => assertCalls(events, { "c-2": ["willAppear"] }), /expected 1, got 2; the first extra is call 2:\n {2}got: {6}c-2 didAppear/);
  assert.throws(() => assertCalls(pushEvents(), { "c-1": ["willAppear"], "c-2": ["didAppear"] }),
    (e) => e.message.startsWith("calls of c-1: expected 1, got 4") && e.message.includes("\n\ncalls of c-2 differ at call 1"));
});

test("page lines compare children by index in the article's words; bad expectations are refused", () => {
  const events = [child("c-2", "viewWillAppear", 0), child("c-1", "viewWillDisappear", 1), child("c-9", "viewWillAppear", 4, "p-2"),
    child("c-2", "viewDidAppear", 0), child("c-1", "viewDidDisappear", 1)];
  assertCalls(events, ["willAppear 0", "willDisappear 1", "didAppear 0", "didDisappear 1"], { session: "p-1" });
  assert.throws(() => assertCalls(events, ["viewWillAppear 1"], { session: "p-1" }),
    /page calls of p-1 differ at call 1 .*\n {2}expected: viewWillAppear 1\n {2}got: {6}viewWillAppear 0/);
  assert.throws(() => assertCalls(events, [], { session: "p-1" }), /the first extra is call 1:\n {2}got: {6}willAppear 0/);
  assertCalls(events, ["c-9 willAppear"], { session: "p-2" });  // container lines, one session's children
  assert.throws(() => assertCalls(pushEvents(), ["c-2 viewDidLoad"]), /viewDidLoad.*not an appearance hook/);
  assert.throws(() => assertCalls(pushEvents(), ["c-2 willAppear", "willAppear 0"]), /mixes/);
  assert.throws(() => assertCalls(pushEvents(), "c-2 willAppear"), TypeError);
  assertCalls([hook("c-1", "viewWillAppear", { offscreen: true }), hook("c-2", "viewWillAppear")], ["c-2 willAppear"], { offscreen: false });
});

// Gestures: the calls they send.

const offsets = (client) => client.calls.map(([method, params]) => [method.split(".")[1], params.offset]);

test("dragPages and releasePages send the scroll stream", async () => {
  const client = new FakeClient();
  await dragPages(client, "p-1", [100, 80, 30]);
  await releasePages(client, "p-1", 0);
  await releasePages(client, "p-1", 200, { decelerate: false });
  const S = { session: "p-1" };
  assert.deepEqual(client.calls, [
    ["page.willBeginDragging", { ...S, offset: 100 }], ["page.didScroll", { ...S, offset: 80 }],
    ["page.didScroll", { ...S, offset: 30 }],
    ["page.willEndDragging", { ...S, offset: 0, velocity: 0.5 }],
    ["page.didEndDragging", { ...S, offset: 0, willDecelerate: true }],
    ["page.didEndDecelerating", { ...S, offset: 0 }],
    ["page.didEndDragging", { ...S, offset: 200, willDecelerate: false }],
  ]);
});

test("swipePages lifts where the finger is and rests at rest", async () => {
  const client = new FakeClient((method) => (method === "page.didEndDecelerating" ? { phase: "idle", index: 0 } : {}));
  assert.deepEqual(await swipePages(client, "p-1", [375, 340, 150], 0, { velocity: -1.2, target: 0 }), { phase: "idle", index: 0 });
  assert.deepEqual(client.calls.slice(3), [
    ["page.willEndDragging", { session: "p-1", offset: 150, velocity: -1.2, targetOffset: 0 }],
    ["page.didEndDragging", { session: "p-1", offset: 150, willDecelerate: true }],
    ["page.didEndDecelerating", { session: "p-1", offset: 0 }],
  ]);
});

test("swipePage goes from page to page at the page width, or springs back", async () => {
  let client = new FakeClient();
  await swipePage(client, "p-1", 1, 0, { width: 100 });
  assert.deepEqual(offsets(client), [["willBeginDragging", 100], ["didScroll", 80], ["didScroll", 60], ["didScroll", 40],
    ["willEndDragging", 40], ["didEndDragging", 40], ["didEndDecelerating", 0]]);
  assert.equal(client.calls[4][1].velocity, -1);
  client = new FakeClient();
  await swipePage(client, "p-1", 1, 3, { width: 100, steps: 2 });
  assert.deepEqual(offsets(client), [["willBeginDragging", 100], ["didScroll", 180], ["didScroll", 260],
    ["willEndDragging", 260], ["didEndDragging", 260], ["didEndDecelerating", 300]]);
  client = new FakeClient();
  await swipePage(client, "p-1", 1, 2, { width: 100, cancelled: true, steps: 1, decelerate: false });
  assert.deepEqual(offsets(client), [["willBeginDragging", 100], ["didScroll", 140], ["willEndDragging", 140], ["didEndDragging", 100]]);
  assert.deepEqual(client.calls[2][1], { session: "p-1", offset: 140, velocity: -1, targetOffset: 100 });
  for (const [from, to, options] of [[1, 1, { width: 100 }], [0, 1, { width: 0 }], [0, 1, { width: 100, steps: 0 }]]) {
    client = new FakeClient();
    await assert.rejects(swipePage(client, "p-1", from, to, options), RangeError);
    assert.deepEqual(client.calls, []);
  }
});

test("assertPageAtRest reads page.info and names what is off", async () => {
  const info = { phase: "idle", index: 0, guess: null, children: [{ index: 0, container: "c-2", state: "appeared" }, { index: 1, container: "c-1", state: "disappeared" }] };
  assert.deepEqual(await assertPageAtRest(new FakeClient(() => info), "p-1", 0), info);
  const moving = { ...info, phase: "decelerating", guess: 1, children: [{ index: 0, container: "c-2", state: "appeared" }, { index: 1, container: "c-1", state: "appearing" }] };
  await assert.rejects(assertPageAtRest(new FakeClient(() => moving), "p-1", 1),
    /phase is decelerating, not idle; the current page is 0, not 1; a guess is left: page 1; page 1 \(c-1\) is appearing, not disappeared/);
});

test("rangeDrag releases at rest, or flings to the host's target frame by frame", async () => {
  let client = new FakeClient((method) => (method === "range.didEndDecelerating" ? { phase: "idle" } : {}));
  const rest = await rangeDrag(client, "r-1", [0, 800], { frameMs: 16 });
  assert.deepEqual(client.calls, [
    ["range.willBeginDragging", { session: "r-1", offset: 0 }], ["clock.advance", { ms: 16 }],
    ["range.didScroll", { session: "r-1", offset: 800 }], ["range.willEndDragging", { session: "r-1", velocity: 0 }],
    ["range.didEndDecelerating", { session: "r-1" }],
  ]);
  assert.deepEqual(rest, { target: null, reply: { phase: "idle" } });
  // The host clamps the target: the frames go to its answer, not to the one asked.
  client = new FakeClient((method) => (method === "range.willEndDragging" ? { session: "r-1", targetOffset: 900 } : {}));
  const flung = await rangeDrag(client, "r-1", [0, 300], { fling: 2, target: 5000 });
  assert.deepEqual(client.calls.slice(2).map(([m, p]) => [m, p.offset ?? p.targetOffset]), [
    ["range.willEndDragging", 5000], ["range.didScroll", 500], ["range.didScroll", 700], ["range.didScroll", 900],
    ["range.didEndDecelerating", undefined],
  ]);
  assert.equal(flung.target, 900);
  client = new FakeClient((method) => (method === "range.willEndDragging" ? { targetOffset: 0 } : {}));
  await rangeDrag(client, "r-1", [300], { fling: -1, flingFrames: 0 });
  assert.deepEqual(client.calls.at(-1), ["range.didEndDecelerating", { session: "r-1", offset: 0 }]);
});

test("interactivePop begins, follows the finger and finishes or cancels", async () => {
  const client = new FakeClient((method) => ({ method }));
  const last = await interactivePop(client, "s-1", [0.1, 0.45, 0.8], { finish: true, duration: 120 });
  await interactivePop(client, "s-1", [0.3], { finish: false });
  assert.deepEqual(client.calls, [
    ["stack.beginInteractivePop", { stack: "s-1" }],
    ["stack.updateInteractivePop", { stack: "s-1", progress: 0.1 }],
    ["stack.updateInteractivePop", { stack: "s-1", progress: 0.45 }],
    ["stack.updateInteractivePop", { stack: "s-1", progress: 0.8 }],
    ["stack.finishInteractivePop", { stack: "s-1", duration: 120 }],
    ["stack.beginInteractivePop", { stack: "s-1" }],
    ["stack.updateInteractivePop", { stack: "s-1", progress: 0.3 }],
    ["stack.cancelInteractivePop", { stack: "s-1" }],
  ]);
  assert.deepEqual(last, { method: "stack.finishInteractivePop" });
  await assert.rejects(interactivePop(client, "s-1", [], {}), /finish: true/);
});

test("a plain function is a client too", async () => {
  const sent = [];
  await dragPages(async (method) => { sent.push(method); }, "p-1", [0, 10]);
  assert.deepEqual(sent, ["page.willBeginDragging", "page.didScroll"]);
});
