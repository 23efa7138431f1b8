// The inspector's model (examples/web/inspect/model.js) fed scripted events.
import test from "node:test";
import assert from "node:assert/strict";
import { InspectorModel, intervals } from "../../examples/web/inspect/model.js";
import { rangeEvent, range } from "./fakes.mjs";

let seq = 0;
const hook = (container, event, t, extra = {}) => ({ seq: ++seq, t, container, class: "Container", event, offscreen: false, ...extra });

test("marks keep arrival order, never overlap at one time, and fold long gaps", () => {
  const m = new InspectorModel({ pxPerMs: 1, minGap: 10, maxGapMs: 500 });
  m.apply("lifecycle", hook("c-1", "init", 0));
  m.apply("lifecycle", hook("c-1", "loadView", 0));
  m.apply("lifecycle", hook("c-1", "viewDidLoad", 0));
  m.apply("lifecycle", hook("c-1", "viewWillAppear", 100));
  m.apply("lifecycle", hook("c-1", "viewDidAppear", 5100));
  const xs = m.marks.map((mark) => mark.x);
  assert.deepEqual(xs.slice(0, 4), [0, 10, 20, 120]);
  assert.ok(xs[4] > xs[3] && xs[4] - xs[3] < 500, "a 5 s gap is folded");
  assert.equal(m.breaks.length, 1);
  assert.equal(m.breaks[0].ms, 5000);
  assert.deepEqual(m.marks.map((mark) => mark.event), ["init", "loadView", "viewDidLoad", "viewWillAppear", "viewDidAppear"]);
});

test("appearance hooks become state bars; deinit closes the last one", () => {
  const m = new InspectorModel({ pxPerMs: 1, minGap: 10 });
  for (const [event, t] of [["viewWillAppear", 0], ["viewDidAppear", 300], ["viewWillDisappear", 400], ["viewDidDisappear", 700]]) {
    m.apply("lifecycle", hook("c-2", event, t));
  }
  const lane = m.lanes.get("c-2");
  assert.deepEqual(lane.bars.map((b) => [b.state, b.from.x, b.to.x]), [["appearing", 0, 300], ["appeared", 300, 400], ["disappearing", 400, 700]]);
  assert.equal(lane.state, "disappeared");
  m.apply("lifecycle", hook("c-3", "viewWillAppear", 800));
  assert.equal(m.lanes.get("c-3").bars[0].to, null, "an open bar runs to the end");
});

test("an interactive pop is drawn as any transition: bars for both containers, cancelled or finished", () => {
  // The events of stack.beginInteractivePop, then stack.cancelInteractivePop after 120 ms, then a second
  // gesture finished after 200 ms: each container's lane shows the states the gesture took it through.
  const m = new InspectorModel({ pxPerMs: 1, minGap: 10, maxGapMs: 5000 });
  const events = [
    ["c-2", "willMoveToParent", 1000, { parent: null }], ["c-2", "viewWillDisappear", 1000], ["c-1", "viewWillAppear", 1000],
    ["c-1", "viewWillDisappear", 1120], ["c-1", "viewDidDisappear", 1120], ["c-2", "viewWillAppear", 1120],
    ["c-2", "viewDidAppear", 1120], ["c-2", "didMoveToParent", 1120, { parent: "s-1" }],
    ["c-2", "willMoveToParent", 2000, { parent: null }], ["c-2", "viewWillDisappear", 2000], ["c-1", "viewWillAppear", 2000],
    ["c-2", "viewDidDisappear", 2200], ["c-1", "viewDidAppear", 2200], ["c-2", "didMoveToParent", 2200, { parent: null }],
  ];
  for (const [c, event, t, extra] of events) m.apply("lifecycle", hook(c, event, t, { animated: true, ...extra }));
  assert.deepEqual(m.lanes.get("c-2").bars.map((b) => b.state), ["disappearing", "appearing", "appeared", "disappearing"]);
  assert.deepEqual(m.lanes.get("c-1").bars.map((b) => b.state), ["appearing", "disappearing", "appearing", "appeared"]);
  assert.equal(m.lanes.get("c-2").state, "disappeared");
  assert.equal(m.lanes.get("c-1").state, "appeared");
  assert.equal(m.unbalancedSeen, 0);
});

test("offscreen and unbalanced events are marked; the unbalanced count follows", () => {
  const m = new InspectorModel();
  m.apply("lifecycle", hook("c-1", "viewWillAppear", 0, { offscreen: true, animated: false }));
  m.apply("lifecycle", hook("c-1", "unbalancedAppearanceTransition", 1, { call: "endAppearance", state: "disappeared" }));
  assert.deepEqual(m.marks.map((mark) => [mark.offscreen, mark.unbalanced]), [[true, false], [false, true]]);
  assert.equal(m.unbalancedSeen, 1);
});

test("the history is bounded: old marks go, ended empty lanes go, the rest stays in order", () => {
  const m = new InspectorModel({ maxMarks: 100 });
  for (let i = 0; i < 50; i += 1) {
    m.apply("lifecycle", hook(`c-${i}`, "init", i));
    m.apply("lifecycle", hook(`c-${i}`, "deinit", i));
  }
  for (let i = 0; i < 1000; i += 1) m.apply("lifecycle", hook("c-live", "configure", 100 + i));
  assert.equal(m.marks.length, 100);
  assert.deepEqual([...m.lanes.keys()], ["c-live"]);
  assert.equal(m.takeRemovedMarks().length, 1100 - 100);
  const seqs = m.marks.map((mark) => mark.seq);
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
  for (let i = 0; i < 5000; i += 1) m.apply("range", rangeEvent("r-1", { visible: [i] }, { visible: [i - 1] }));
  assert.equal(m.log.length, m.maxLog);
});

test("page sessions: transitions set current and guess, children carry their states", () => {
  const m = new InspectorModel();
  const child = (index, container, event) => hook(container, event, 0, { page: { session: "p-1", index } });
  m.apply("lifecycle", child(1, "c-1", "viewWillAppear"));
  m.apply("lifecycle", child(1, "c-1", "viewDidAppear"));
  let s = m.pages.get("p-1");
  assert.equal(s.current, 1);
  m.apply("page", { seq: 9, t: 0, session: "p-1", kind: "willTransition", from: 1, to: 0 });
  m.apply("lifecycle", child(0, "c-2", "viewWillAppear"));
  assert.equal(s.guess, 0);
  assert.equal(s.children.get(0).state, "appearing");
  m.apply("page", { seq: 10, t: 0, session: "p-1", kind: "didTransition", from: 1, to: 0, completed: true });
  assert.deepEqual([s.current, s.guess], [0, null]);
  m.apply("lifecycle", child(1, "c-1", "deinit"));
  assert.deepEqual([...s.children.keys()], [0]);
});

test("range sessions of a million items keep only their ranges, drawn as intervals", () => {
  const m = new InspectorModel();
  let top = 0;
  m.apply("range", rangeEvent("r-1", { preload: range(0, 30), display: range(0, 20), visible: range(0, 10) }));
  for (let next = 99_999; next <= 999_989; next += 99_999) {
    m.apply("range", rangeEvent("r-1", { visible: range(next, next + 10) }, { visible: range(top, top + 10) }));
    top = next;
  }
  const s = m.ranges.get("r-1");
  assert.equal(s.sets.visible.size, 11);
  assert.equal(s.extent, top + 11);
  assert.deepEqual(intervals(s.sets.visible), [[top, top + 10]]);
  assert.deepEqual(intervals(s.sets.preload), [[0, 30]]);
  assert.deepEqual(intervals(new Set([5, 1, 2, 3, 9, 10])), [[1, 3], [5, 5], [9, 10]]);
});

test("a batch stays in flight until items beyond the content as it was enter a range", () => {
  const m = new InspectorModel();
  m.apply("range", rangeEvent("r-1", { preload: range(0, 29) }));
  m.apply("batch", { seq: 2, t: 0, session: "r-1", context: "b-1", kind: "willBeginBatchFetch", prepend: false });
  assert.equal(m.ranges.get("r-1").batch.context, "b-1");
  m.apply("range", rangeEvent("r-1", { visible: range(20, 25) }));
  assert.equal(m.ranges.get("r-1").batch.context, "b-1");
  m.apply("range", rangeEvent("r-1", { preload: range(30, 40) }));
  assert.equal(m.ranges.get("r-1").batch, null);
});

test("pools follow events until pool.status replaces them", () => {
  const m = new InspectorModel();
  const ev = (kind, extra = {}) => ({ seq: 1, t: 0, kind, class: "Article", width: 375, height: 667, ...extra });
  m.apply("pool", ev("miss"));
  m.apply("pool", ev("warmed", { container: "c-1", idle: 1 }));
  m.apply("pool", ev("hit", { container: "c-1" }));
  assert.deepEqual((({ idle, hits, misses }) => ({ idle, hits, misses }))(m.pools.get("Article 375x667")), { idle: 0, hits: 1, misses: 1 });
  m.setPools({ pools: [{ class: "Article", width: 375, height: 667, depth: 2, idle: 2, warming: 0, hits: 5, misses: 1 }] });
  assert.equal(m.pools.get("Article 375x667").hits, 5);
  m.setPools({ pools: [] });
  assert.equal(m.pools.size, 0);
});

test("clear forgets the timeline but not the sessions", () => {
  const m = new InspectorModel();
  m.apply("lifecycle", hook("c-1", "init", 0));
  m.apply("range", rangeEvent("r-1", { visible: [0] }));
  m.clear();
  assert.equal(m.marks.length, 0);
  assert.equal(m.lanes.size, 0);
  assert.equal(m.ranges.size, 1);
});

test("host.reset forgets everything: ids start again from 1", () => {
  const m = new InspectorModel();
  m.apply("lifecycle", hook("c-1", "init", 0, { page: { session: "p-1", index: 0 } }));
  m.apply("range", rangeEvent("r-1", { visible: [0] }));
  m.apply("pool", { seq: 1, t: 0, kind: "miss", class: "A", width: 1, height: 1 });
  m.apply("host", { seq: 2, t: 0, kind: "reset", connection: "conn-1" });
  assert.deepEqual([m.marks.length, m.lanes.size, m.pages.size, m.ranges.size, m.pools.size], [0, 0, 0, 0, 0]);
  m.apply("lifecycle", hook("c-1", "init", 1));
  assert.equal(m.lanes.get("c-1").marks.length, 1);
});

test("plugins come from host.info and a worker's crash, restart or failure shows at once", () => {
  const m = new InspectorModel();
  m.setPlugins({ plugins: [
    { name: "counter", kind: "library", path: "/lib/libCounterPlugin.so", classes: ["Counter"], state: "running", pid: 10, crashes: 0, restarts: 0 },
    { name: "counter-py", kind: "command", command: ["python3", "counter.py"], classes: ["CounterPy"], state: "running", pid: 11, crashes: 0, restarts: 0 },
  ] });
  assert.deepEqual([...m.plugins.keys()], ["counter", "counter-py"]);
  m.apply("host", { seq: 1, t: 0, kind: "pluginCrashed", plugin: "counter-py", reason: "protocol", detail: "it broke the worker protocol", willRestart: true });
  assert.equal(m.plugins.get("counter-py").state, "restarting");
  assert.deepEqual([m.plugins.get("counter-py").crashes, m.plugins.get("counter-py").lastCrash.reason], [1, "protocol"]);
  m.apply("host", { seq: 2, t: 1, kind: "pluginRestarted", plugin: "counter-py", pid: 12, restarts: 1 });
  assert.deepEqual([m.plugins.get("counter-py").state, m.plugins.get("counter-py").pid], ["running", 12]);
  m.apply("host", { seq: 3, t: 2, kind: "pluginFailed", plugin: "counter", reason: "restart limit" });
  assert.equal(m.plugins.get("counter").state, "failed");
  m.setPlugins({ plugins: [] });
  assert.equal(m.plugins.size, 0);
});

test("a keyed session's keys, a nested session's parent and viewable items are kept for the view", () => {
  const m = new InspectorModel();
  m.apply("range", rangeEvent("r-1", { preload: range(0, 5), display: range(0, 4), visible: range(0, 2) }, {}, {
    keys: { enter: { preload: range(0, 5).map((i) => `k${i}`), display: range(0, 4).map((i) => `k${i}`), visible: range(0, 2).map((i) => `k${i}`) },
            exit: { preload: [], display: [], visible: [] } },
  }));
  const s = m.ranges.get("r-1");
  assert.deepEqual([...s.keys.entries()].sort((a, b) => a[0] - b[0]).map(([, k]) => k), ["k0", "k1", "k2", "k3", "k4", "k5"]);
  m.apply("range", rangeEvent("r-1", {}, { preload: [0, 1], display: [0, 1], visible: [0, 1] }));
  assert.equal(s.keys.has(0), false, "keys go with the items that left every range");
  m.apply("range", rangeEvent("r-2", { preload: [0], display: [0], visible: [0] }, {}, { parent: { session: "r-1", item: [0, 2] } }));
  assert.deepEqual(m.ranges.get("r-2").parent, { session: "r-1", item: [0, 2] });
  m.apply("viewable", { seq: 9, t: 10, session: "r-1", name: "seen", kind: "viewable", path: [0, 2], percent: 100 });
  m.apply("viewable", { seq: 10, t: 20, session: "r-1", name: "seen", kind: "viewable", path: [0, 3], percent: 60 });
  m.apply("viewable", { seq: 11, t: 30, session: "r-1", name: "seen", kind: "ended", path: [0, 2], percent: 0, reason: "scrolledOut" });
  assert.deepEqual([...s.viewable.get("seen")], [3]);
});
