// The inspector's picture of one host, built from events alone (no DOM, no I/O): the page's main.js
// feeds it every event of an `events.subscribe` with `scope: "all"` and the replies of its polls of
// `host.stats` and `pool.status`; view.js draws it. Node runs it in tests without a browser.
//
// Everything it keeps is bounded, so that a host streaming 60 range updates a second from a
// 1,000,000-item session never grows the page: the timeline keeps the last `maxMarks` hooks, the event
// log the last `maxLog` events, and a range session only the items in its ranges (a few screenfuls).

/** Appearance hooks and the state each one starts (viewDidDisappear ends the last bar). */
const APPEARANCE = {
  viewWillAppear: "appearing",
  viewDidAppear: "appeared",
  viewWillDisappear: "disappearing",
  viewDidDisappear: null,
};

export class InspectorModel {
  /**
   * `pxPerMs`: timeline scale. `minGap`: pixels between two marks that share a time (a virtual clock
   * gives every event of one request the same `t`), so that each stays visible and in order.
   * `maxGapMs`: a longer quiet stretch is drawn as a fixed-width break labelled with its length.
   */
  constructor({ maxMarks = 3000, maxLog = 400, pxPerMs = 0.4, minGap = 14, maxGapMs = 800 } = {}) {
    this.maxMarks = maxMarks;
    this.maxLog = maxLog;
    this.pxPerMs = pxPerMs;
    this.minGap = minGap;
    this.maxGapMs = maxGapMs;
    this.stats = null;
    this.pools = new Map();
    /** host.info's plugins (native and command), by name, as last polled. */
    this.plugins = new Map();
    this.pages = new Map();
    this.ranges = new Map();
    this.connections = new Map();
    this.eventCount = 0;
    this.unbalancedSeen = 0;
    this.clear();
  }

  /** Forgets the timeline and the log (what happened), keeping the state of pools and sessions. */
  clear() {
    this.lanes = new Map();
    this.marks = [];
    this.breaks = [];
    this.ticks = [];
    this.log = [];
    this.lastX = 0;
    this.lastT = null;
    this.removedMarks = [];
    this.version = (this.version ?? 0) + 1;
  }

  /** The right end of the timeline: where open appearance bars end. */
  get endX() {
    return this.marks.length ? this.lastX + this.minGap : 0;
  }

  /** Applies one event of `topic` (a notification's method) with its params. */
  apply(topic, event) {
    this.eventCount += 1;
    this.#logEvent(topic, event);
    switch (topic) {
      case "lifecycle": this.#lifecycle(event); break;
      case "pool": this.#pool(event); break;
      case "page": this.#page(event); break;
      case "range": this.#range(event); break;
      case "prefetch": this.#prefetch(event); break;
      case "batch": this.#batch(event); break;
      case "viewable": this.#viewable(event); break;
      case "host": this.#host(event); break;
      default: break;
    }
  }

  /** Takes a `host.stats` reply. */
  setStats(stats) {
    this.stats = stats;
  }

  /** Takes a `pool.status` reply: the host's counts replace what events suggested. */
  setPools(status) {
    const seen = new Set();
    for (const pool of status.pools ?? []) {
      const key = poolKey(pool);
      seen.add(key);
      this.pools.set(key, { ...pool });
    }
    for (const key of [...this.pools.keys()]) if (!seen.has(key)) this.pools.delete(key);
  }

  /** Takes a `host.info` reply: its plugins, native libraries and commands alike, with their workers' state. */
  setPlugins(info) {
    this.plugins = new Map((info.plugins ?? []).map((p) => [p.name, { ...p }]));
  }

  #logEvent(topic, event) {
    this.log.push({ topic, event });
    if (this.log.length > this.maxLog) this.log.splice(0, this.log.length - this.maxLog);
  }

  /** The x of an event at host time `t`: time-proportional, never closer than minGap to the previous
   * mark, with long quiet stretches folded into a labelled break. */
  #place(t) {
    if (this.lastT === null) {
      this.lastT = t;
      this.lastX = 0;
      this.ticks.push({ x: 0, t });
      return 0;
    }
    const dt = Math.max(0, t - this.lastT);
    let x;
    if (dt > this.maxGapMs) {
      const from = this.lastX + this.minGap;
      x = from + 3 * this.minGap;
      this.breaks.push({ x0: from, x1: x, ms: dt });
    } else {
      x = Math.max(this.lastX + dt * this.pxPerMs, this.lastX + this.minGap);
    }
    if (dt > 0) {
      const lastTick = this.ticks[this.ticks.length - 1];
      if (!lastTick || x - lastTick.x >= 70) this.ticks.push({ x, t });
    }
    this.lastT = Math.max(this.lastT, t);
    this.lastX = x;
    return x;
  }

  #lifecycle(event) {
    const id = event.container;
    let lane = this.lanes.get(id);
    if (!lane) {
      lane = { id, class: event.class, marks: [], bars: [], state: null, offscreen: event.offscreen, page: null, ended: false };
      this.lanes.set(id, lane);
    }
    lane.offscreen = event.offscreen;
    if (event.page) lane.page = event.page;
    const x = this.#place(event.t);
    const unbalanced = event.event === "unbalancedAppearanceTransition";
    if (unbalanced) this.unbalancedSeen += 1;
    const mark = { seq: event.seq, t: event.t, x, lane: id, event: event.event, offscreen: !!event.offscreen, unbalanced, data: event };
    this.marks.push(mark);
    lane.marks.push(mark);
    if (event.event in APPEARANCE) {
      const open = lane.bars[lane.bars.length - 1];
      if (open && open.to === null) open.to = mark;
      const state = APPEARANCE[event.event];
      if (state) lane.bars.push({ state, from: mark, to: null, offscreen: !!event.offscreen });
      lane.state = state ?? "disappeared";
    }
    if (event.event === "deinit") {
      lane.ended = true;
      const open = lane.bars[lane.bars.length - 1];
      if (open && open.to === null) open.to = mark;
    }
    if (event.page && event.page.index >= 0) this.#pageChild(event);
    this.#trim();
  }

  #trim() {
    const excess = this.marks.length - this.maxMarks;
    if (excess <= 0) return;
    const dropped = this.marks.splice(0, excess);
    this.removedMarks.push(...dropped);
    const firstX = this.marks[0].x;
    for (const mark of dropped) {
      const lane = this.lanes.get(mark.lane);
      if (!lane) continue;
      if (lane.marks[0] === mark) lane.marks.shift();
      lane.bars = lane.bars.filter((bar) => bar.to === null || bar.to.x >= firstX);
      if (lane.marks.length === 0 && lane.ended) this.lanes.delete(lane.id);
    }
    this.breaks = this.breaks.filter((b) => b.x1 >= firstX);
    this.ticks = this.ticks.filter((tick) => tick.x >= firstX);
  }

  /** Lays the timeline out again at another scale (the zoom). */
  setScale(pxPerMs) {
    this.pxPerMs = pxPerMs;
    this.lastT = null;
    this.lastX = 0;
    this.ticks = [];
    this.breaks = [];
    for (const mark of this.marks) mark.x = this.#place(mark.t);
    this.layoutVersion = (this.layoutVersion ?? 0) + 1;
  }

  /** Marks dropped from the timeline since the last call (the view removes their elements). */
  takeRemovedMarks() {
    const removed = this.removedMarks;
    this.removedMarks = [];
    return removed;
  }

  #pool(event) {
    const key = poolKey(event);
    let pool = this.pools.get(key);
    if (!pool) {
      pool = { class: event.class, width: event.width, height: event.height, depth: null, idle: 0, warming: 0, hits: 0, misses: 0 };
      this.pools.set(key, pool);
    }
    switch (event.kind) {
      case "hit": pool.hits += 1; pool.idle = Math.max(0, pool.idle - 1); break;
      case "miss": pool.misses += 1; break;
      case "warmed": pool.idle = event.idle; pool.warming = Math.max(0, pool.warming - 1); break;
      case "warmFailed": pool.warming = Math.max(0, pool.warming - 1); break;
      case "purged": pool.idle = 0; break;
      case "evicted": pool.idle = Math.max(0, pool.idle - 1); break;
      default: break;
    }
    pool.last = event.kind;
  }

  #pageSession(id) {
    let session = this.pages.get(id);
    if (!session) {
      session = { session: id, current: null, guess: null, from: null, children: new Map(), maxIndex: 0, transitions: 0, completed: null };
      this.pages.set(id, session);
    }
    return session;
  }

  #pageChild(event) {
    const session = this.#pageSession(event.page.session);
    const index = event.page.index;
    session.maxIndex = Math.max(session.maxIndex, index);
    let child = session.children.get(index);
    if (!child || child.container !== event.container) {
      child = { container: event.container, state: "fresh" };
      session.children.set(index, child);
    }
    if (event.event in APPEARANCE) child.state = APPEARANCE[event.event] ?? "disappeared";
    if (event.event === "deinit") session.children.delete(index);
    // Without a transition under way, the page that appears is the current one (a session created
    // before the inspector connected, or its initial page).
    if (event.event === "viewDidAppear" && session.guess === null) session.current = index;
  }

  #page(event) {
    const session = this.#pageSession(event.session);
    session.maxIndex = Math.max(session.maxIndex, event.from, event.to);
    if (event.kind === "willTransition") {
      if (session.current === null) session.current = event.from;
      session.guess = event.to;
      session.transitions += 1;
    } else {
      session.current = event.completed ? event.to : event.from;
      session.guess = null;
      session.completed = event.completed;
    }
  }

  #rangeSession(id) {
    let session = this.ranges.get(id);
    if (!session) {
      session = {
        session: id, mode: null, direction: null, updates: 0, extent: 0,
        sets: { preload: new Set(), display: new Set(), visible: new Set() },
        prefetching: new Set(), batch: null, batches: 0, lastT: null,
        // A keyed session's keys of the items in its ranges; a nested session's parent (its events say);
        // the items viewable now, by threshold name.
        keys: new Map(), parent: null, viewable: new Map(),
      };
      this.ranges.set(id, session);
    }
    return session;
  }

  #range(event) {
    const session = this.#rangeSession(event.session);
    session.mode = event.mode;
    session.direction = event.direction;
    session.updates += 1;
    session.lastT = event.t;
    let top = -1;
    if (event.parent) session.parent = event.parent;
    for (const kind of ["preload", "display", "visible"]) {
      const set = session.sets[kind];
      for (const path of event.exit?.[kind] ?? []) set.delete(position(path));
      (event.enter?.[kind] ?? []).forEach((path, i) => {
        const at = position(path);
        set.add(at);
        top = Math.max(top, at);
        const key = event.keys?.enter?.[kind]?.[i];
        if (key !== undefined) session.keys.set(at, key);
      });
    }
    for (const path of event.removed ?? []) {
      const at = position(path);
      for (const set of Object.values(session.sets)) set.delete(at);
    }
    // Keys are kept only for what is still in a range: the map stays as small as the ranges.
    for (const at of session.keys.keys()) if (!session.sets.preload.has(at) && !session.sets.display.has(at)) session.keys.delete(at);
    session.extent = Math.max(session.extent, top + 1);
    // New items beyond the content as it was when the batch began answer that batch (an observer
    // sees no batchFetchDone: it is a request of the session's owner).
    if (session.batch && top >= session.batch.atExtent) session.batch = null;
  }

  #prefetch(event) {
    const session = this.#rangeSession(event.session);
    for (const path of event.paths) {
      const at = position(path);
      if (event.kind === "prefetchItems") session.prefetching.add(at);
      else session.prefetching.delete(at);
    }
    // Only what is still in preload can be fetching: the set stays as small as the range.
    for (const at of session.prefetching) if (!session.sets.preload.has(at)) session.prefetching.delete(at);
  }

  #viewable(event) {
    const session = this.#rangeSession(event.session);
    let set = session.viewable.get(event.name);
    if (!set) session.viewable.set(event.name, (set = new Set()));
    if (event.kind === "viewable") set.add(position(event.path));
    else set.delete(position(event.path));
  }

  #batch(event) {
    const session = this.#rangeSession(event.session);
    session.batches += 1;
    session.batch = { context: event.context, t: event.t, atExtent: session.extent, prepend: event.prepend };
  }

  #host(event) {
    // A worker's crash, restart or failure shows at once; the next host.info poll brings the rest.
    const plugin = this.plugins.get(event.plugin);
    if (plugin && event.kind === "pluginCrashed") {
      plugin.state = event.willRestart ? "restarting" : "failed";
      plugin.crashes = (plugin.crashes ?? 0) + 1;
      plugin.lastCrash = { reason: event.reason, detail: event.detail };
    } else if (plugin && event.kind === "pluginRestarted") {
      Object.assign(plugin, { state: "running", pid: event.pid, restarts: event.restarts });
    } else if (plugin && event.kind === "pluginFailed") {
      plugin.state = "failed";
    }
    if (event.kind === "connectionOpened") this.connections.set(event.connection, { transport: event.transport, t: event.t });
    else if (event.kind === "connectionClosed") this.connections.delete(event.connection);
    else if (event.kind === "reset") {
      // host.reset tore everything down and numbers objects from 1 again: a new c-1 is not the old one.
      this.clear();
      this.pages.clear();
      this.ranges.clear();
      this.pools.clear();
    }
  }
}

/** A pool's key: class and size. */
export function poolKey(pool) {
  return `${pool.class} ${pool.width}x${pool.height}`;
}

/** One axis position for an index path: the row (sections after the first are drawn after it, a
 * million rows apart, which keeps them apart without knowing their lengths). */
export function position(path) {
  return path.length > 1 ? path[0] * 1_000_000 + path[1] : path[0];
}

/** A set of positions as sorted, merged intervals [from, to] (inclusive): what the range strips draw. */
export function intervals(set) {
  const sorted = [...set].sort((a, b) => a - b);
  const out = [];
  for (const at of sorted) {
    const last = out[out.length - 1];
    if (last && at === last[1] + 1) last[1] = at;
    else out.push([at, at]);
  }
  return out;
}
