// Draws an InspectorModel into the page with light DOM, at most once per animation frame. The
// timeline adds elements for new marks and removes those the model dropped, so its cost follows the
// events that arrived, not the history; the other panels are small and redrawn whole.

import { intervals } from "./model.js";

const LANE_HEIGHT = 26;

/** The colour group of a hook (see the legend in index.html). */
function hookGroup(event) {
  switch (event) {
    case "init": case "deinit": return "birth";
    case "loadView": case "viewDidLoad": return "load";
    case "viewWillAppear": case "viewIsAppearing": case "viewDidAppear": return "appear";
    case "viewWillDisappear": case "viewDidDisappear": return "disappear";
    case "viewWillLayoutSubviews": case "viewDidLayoutSubviews":
    case "viewSafeAreaInsetsDidChange": case "viewLayoutMarginsDidChange": case "viewWillTransitionToSize": return "layout";
    case "willMoveToParent": case "didMoveToParent": return "parent";
    case "unbalancedAppearanceTransition": return "unbalanced";
    default: return "other";
  }
}

/** A short label drawn on a mark. */
const SHORT = {
  init: "i", loadView: "L", viewDidLoad: "dL", viewWillAppear: "wA", viewIsAppearing: "iA", viewDidAppear: "dA",
  viewWillDisappear: "wD", viewDidDisappear: "dD", viewWillLayoutSubviews: "wl", viewDidLayoutSubviews: "dl",
  viewSafeAreaInsetsDidChange: "sa", viewLayoutMarginsDidChange: "lm", viewWillTransitionToSize: "wT",
  configure: "cf", didReceiveMemoryWarning: "mw", willMoveToParent: "wP", didMoveToParent: "dP", deinit: "†",
  unbalancedAppearanceTransition: "!",
};

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function fmt(n) {
  return n == null ? "–" : Number(n).toLocaleString("en-US");
}

export class InspectorView {
  constructor(root, model, { onSelect } = {}) {
    this.root = root;
    this.model = model;
    this.onSelect = onSelect ?? ((event) => this.showDetail(event));
    this.paused = false;
    this.dirty = true;
    this.frame = null;
    this.laneRows = new Map();
    this.renderedVersion = null;
    this.renderedMarks = 0;
    this.follow = true;
    this.$ = (id) => root.querySelector(`#${id}`);
    this.timeline = this.$("timeline-canvas");
    this.labels = this.$("timeline-labels");
    this.scroller = this.$("timeline-scroller");
    this.scroller.addEventListener("scroll", () => {
      const atEnd = this.scroller.scrollLeft + this.scroller.clientWidth >= this.scroller.scrollWidth - 30;
      this.follow = atEnd;
    });
    this.timeline.addEventListener("click", (e) => {
      const mark = e.target.closest(".mark");
      if (mark && mark.__event) this.onSelect(mark.__event);
    });
  }

  /** Asks for a redraw at the next animation frame (nothing is drawn while paused). */
  invalidate() {
    this.dirty = true;
    if (this.paused || this.frame !== null) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      if (!this.paused) this.render(); // paused after this frame was asked for: Resume draws
    });
  }

  /** Draws now, even while paused (Clear must show at once). */
  redrawNow() {
    this.dirty = true;
    this.render();
  }

  setPaused(paused) {
    this.paused = paused;
    this.root.classList.toggle("paused", paused);
    if (!paused) this.invalidate();
  }

  showDetail(event) {
    this.$("detail").textContent = JSON.stringify(event, null, 2);
  }

  render() {
    if (!this.dirty) return;
    this.dirty = false;
    this.renderTimeline();
    this.renderStats();
    this.renderPools();
    this.renderPlugins();
    this.renderPages();
    this.renderRanges();
    this.renderLog();
  }

  renderTimeline() {
    const model = this.model;
    if (this.renderedVersion !== model.version) {
      // Cleared: start again from nothing.
      this.timeline.querySelectorAll(".lane, .tick, .break").forEach((node) => node.remove());
      this.labels.textContent = "";
      this.laneRows.clear();
      this.renderedMarks = 0;
      this.renderedVersion = model.version;
      model.takeRemovedMarks();
    }
    if (this.renderedLayout !== model.layoutVersion) {
      this.renderedLayout = model.layoutVersion;
      for (const mark of model.marks) if (mark.el) mark.el.style.left = `${mark.x}px`;
    }
    for (const mark of model.takeRemovedMarks()) {
      mark.el?.remove();
      mark.el = null;
    }
    // Lanes: one row per container still in the timeline, in order of first appearance.
    for (const [id, row] of this.laneRows) {
      if (!model.lanes.has(id)) {
        row.lane.remove();
        row.label.remove();
        this.laneRows.delete(id);
      }
    }
    for (const lane of model.lanes.values()) {
      let row = this.laneRows.get(lane.id);
      if (!row) {
        const laneEl = el("div", "lane");
        laneEl.dataset.container = lane.id;
        const bars = el("div", "bars");
        laneEl.append(bars);
        const label = el("div", "lane-label");
        label.dataset.container = lane.id;
        row = { lane: laneEl, bars, label, barsKey: "" };
        this.laneRows.set(lane.id, row);
        this.timeline.append(laneEl);
        this.labels.append(label);
      }
      const page = lane.page ? ` ${lane.page.session}#${lane.page.index}` : "";
      const labelText = `${lane.class} ${lane.id}${page}`;
      if (row.label.textContent !== labelText) row.label.textContent = labelText;
      row.label.classList.toggle("offscreen", !!lane.offscreen);
      row.label.classList.toggle("ended", lane.ended);
      row.label.title = `${labelText}${lane.offscreen ? " (in a green room: offscreen)" : ""}${lane.ended ? " (deinit)" : ""} — ${lane.state ?? "fresh"}`;
      this.renderBars(row, lane);
    }
    // New marks since the last frame.
    const marks = model.marks;
    let start = marks.length;
    while (start > 0 && !marks[start - 1].el) start -= 1;
    for (let i = start; i < marks.length; i += 1) {
      const mark = marks[i];
      const row = this.laneRows.get(mark.lane);
      if (!row) continue;
      const node = el("div", `mark ${hookGroup(mark.event)}${mark.offscreen ? " offscreen" : ""}${mark.unbalanced ? " unbalanced" : ""}`, SHORT[mark.event] ?? "·");
      node.style.left = `${mark.x}px`;
      node.dataset.seq = mark.seq;
      node.dataset.event = mark.event;
      node.dataset.container = mark.lane;
      node.dataset.t = mark.t;
      if (mark.offscreen) node.dataset.offscreen = "true";
      node.title = `${mark.event}${mark.offscreen ? " (offscreen)" : ""} ${mark.lane} t=${mark.t} seq=${mark.seq}`;
      node.__event = mark.data;
      mark.el = node;
      row.lane.append(node);
    }
    // Axis: ticks and breaks (few), redrawn whole.
    this.timeline.querySelectorAll(".tick, .break").forEach((node) => node.remove());
    const axis = this.$("timeline-axis");
    axis.textContent = "";
    for (const tick of model.ticks) {
      const node = el("div", "tick", `${Math.round(tick.t)} ms`);
      node.style.left = `${tick.x}px`;
      axis.append(node);
    }
    for (const gap of model.breaks) {
      const node = el("div", "break", `+${Math.round(gap.ms)} ms`);
      node.style.left = `${gap.x0}px`;
      node.style.width = `${gap.x1 - gap.x0}px`;
      node.style.height = `${Math.max(1, model.lanes.size) * LANE_HEIGHT}px`;
      this.timeline.append(node);
    }
    const origin = marks.length ? Math.max(0, marks[0].x - 20) : 0;
    const width = model.endX + 40 - origin;
    this.timeline.style.width = `${width}px`;
    this.timeline.style.setProperty("--origin", `${-origin}px`);
    axis.style.width = `${width}px`;
    axis.style.setProperty("--origin", `${-origin}px`);
    this.$("timeline-count").textContent = `${fmt(marks.length)} hooks in ${fmt(model.lanes.size)} lanes` +
      (marks.length >= model.maxMarks ? ` (the last ${fmt(model.maxMarks)})` : "");
    if (this.follow) this.scroller.scrollLeft = this.scroller.scrollWidth;
  }

  renderBars(row, lane) {
    const end = this.model.endX;
    const key = lane.bars.map((b) => `${b.state}${b.from.x}-${b.to?.x ?? end}`).join(",");
    if (key === row.barsKey) return;
    row.barsKey = key;
    row.bars.textContent = "";
    for (const bar of lane.bars) {
      const node = el("div", `bar ${bar.state}${bar.offscreen ? " offscreen" : ""}${bar.to === null ? " open" : ""}`);
      node.style.left = `${bar.from.x}px`;
      node.style.width = `${Math.max(2, (bar.to?.x ?? end) - bar.from.x)}px`;
      node.dataset.state = bar.state;
      row.bars.append(node);
    }
  }

  renderStats() {
    const s = this.model.stats;
    const tiles = [];
    const unbalanced = Math.max(s?.unbalancedTransitions ?? 0, this.model.unbalancedSeen);
    if (s) {
      const st = s.containers.byState;
      tiles.push(["connections", fmt(s.connections.open), `${fmt(s.connections.accepted)} accepted`]);
      tiles.push(["containers", fmt(s.containers.total), `${fmt(s.containers.pooled)} pooled · appeared ${fmt(st.appeared)} · appearing ${fmt(st.appearing)} · disappearing ${fmt(st.disappearing)} · disappeared ${fmt(st.disappeared)} · fresh ${fmt(st.fresh)}`]);
      tiles.push(["task queue", fmt(s.tasks.pending), `${fmt(s.tasks.runnable)} runnable · ${fmt(s.tasks.ran)} ran`]);
      if (s.sessions) tiles.push(["sessions", `${fmt(s.sessions.page)} / ${fmt(s.sessions.range)}`, `page / range · tracking ${fmt(s.sessions.pageTracking)} / ${fmt(s.sessions.rangeTracking)}`]);
    }
    tiles.push(["unbalanced", fmt(unbalanced), unbalanced ? "appearance calls refused" : "none: balanced", unbalanced ? "bad" : "good"]);
    tiles.push(["events", fmt(this.model.eventCount), this.eventRate ?? ""]);
    const box = this.$("stats");
    box.textContent = "";
    for (const [name, value, note, tone] of tiles) {
      const tile = el("div", `tile${tone ? ` ${tone}` : ""}`);
      tile.dataset.stat = name;
      tile.append(el("div", "tile-value", value), el("div", "tile-name", name), el("div", "tile-note", note));
      box.append(tile);
    }
  }

  renderPools() {
    const body = this.$("pools-body");
    body.textContent = "";
    const pools = [...this.model.pools.values()];
    this.$("pools-empty").hidden = pools.length > 0;
    for (const pool of pools) {
      const tr = el("tr");
      tr.dataset.pool = `${pool.class} ${pool.width}x${pool.height}`;
      const idleCells = el("td", "pool-idle");
      const depth = pool.depth ?? pool.idle;
      for (let i = 0; i < Math.min(Math.max(depth, pool.idle), 24); i += 1) {
        idleCells.append(el("span", i < pool.idle ? "slot full" : i < pool.idle + pool.warming ? "slot warming" : "slot"));
      }
      tr.append(
        el("td", "", pool.class), el("td", "", `${pool.width}×${pool.height}`), idleCells,
        el("td", "num", fmt(pool.idle)), el("td", "num", fmt(pool.warming)), el("td", "num", fmt(pool.depth)),
        el("td", "num hits", fmt(pool.hits)), el("td", "num misses", fmt(pool.misses)),
      );
      body.append(tr);
    }
  }

  renderPlugins() {
    const body = this.$("plugins-body");
    body.textContent = "";
    const plugins = [...this.model.plugins.values()];
    this.$("plugins-empty").hidden = plugins.length > 0;
    for (const p of plugins) {
      const tr = el("tr", `plugin-${p.state ?? "running"}`);
      tr.dataset.plugin = p.name;
      const kind = p.isolation === "none" ? "library, in process" : p.kind ?? "library";
      const source = p.command ? p.command.join(" ") : p.path;
      const crash = p.lastCrash ? `${p.lastCrash.reason}: ${p.lastCrash.detail ?? ""}` : "";
      tr.append(
        el("td", "", p.name), el("td", "", kind), el("td", "source", source), el("td", "", (p.classes ?? []).join(", ")),
        el("td", "state", p.state ?? "running"), el("td", "num", p.pid == null ? "–" : String(p.pid)),
        el("td", "num", fmt(p.crashes ?? 0)), el("td", "num", fmt(p.restarts ?? 0)), el("td", "crash", crash),
      );
      body.append(tr);
    }
  }

  /** Empties the panel `id` (its "none yet" note shown when `sessions` is empty) and yields, for each
   * session, a row element appended to it. */
  *sessionRows(id, sessions, className) {
    const box = this.$(id);
    box.textContent = "";
    this.$(`${id}-empty`).hidden = sessions.size > 0;
    for (const session of sessions.values()) {
      const row = el("div", className);
      row.dataset.session = session.session;
      box.append(row);
      yield [session, row];
    }
  }

  renderPages() {
    for (const [session, row] of this.sessionRows("pages", this.model.pages, "page-session")) {
      const head = el("div", "strip-head", `${session.session} · current ${session.current ?? "?"}` +
        (session.guess !== null ? ` · guess ${session.guess}` : "") + ` · ${session.transitions} transitions` +
        (session.completed === false ? " · last cancelled" : ""));
      const strip = el("div", "page-strip");
      const last = session.maxIndex + 1;
      const lo = Math.max(0, (session.current ?? 0) - 30);
      for (let i = lo; i <= Math.min(last, lo + 60); i += 1) {
        const child = session.children.get(i);
        const cell = el("div", "page-cell", String(i));
        cell.dataset.index = i;
        if (i === session.current) cell.classList.add("current");
        if (i === session.guess) cell.classList.add("guess");
        if (child) {
          cell.classList.add("cached", child.state);
          cell.title = `${child.container}: ${child.state}`;
        }
        strip.append(cell);
      }
      row.append(head, strip);
    }
  }

  renderRanges() {
    // Nested sessions right under their parent session, indented.
    const ordered = new Map();
    const children = new Map();
    for (const s of this.model.ranges.values()) {
      const parent = s.parent?.session;
      if (parent && this.model.ranges.has(parent)) children.set(parent, [...(children.get(parent) ?? []), s]);
    }
    const visit = (s) => { ordered.set(s.session, s); for (const c of children.get(s.session) ?? []) visit(c); };
    for (const s of this.model.ranges.values()) if (!s.parent?.session || !this.model.ranges.has(s.parent.session)) visit(s);
    for (const [session, row] of this.sessionRows("ranges", ordered, "range-session")) {
      if (session.parent) row.classList.add("nested");
      const bands = {};
      for (const kind of ["preload", "display", "visible"]) bands[kind] = intervals(session.sets[kind]);
      const span = (list) => list.length ? list.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(", ") : "none";
      const head = el("div", "strip-head",
        `${session.session} · ${session.mode ?? "?"} · ${session.direction ?? "?"} · ${fmt(session.extent)} items seen · ${fmt(session.updates)} updates` +
        (session.batch ? ` · batch ${session.batch.context} in flight` : ` · ${session.batches} batches`) +
        (session.parent?.session ? ` · in ${session.parent.session} row ${JSON.stringify(session.parent.item)}` : "") +
        (session.parent?.page ? ` · on page ${session.parent.page.index} of ${session.parent.page.session}` : ""));
      const keys = [...session.sets.visible].sort((a, b) => a - b).map((at) => session.keys.get(at)).filter((k) => k !== undefined);
      const viewable = [...session.viewable].filter(([, set]) => set.size).map(([name, set]) => `${name} ${span(intervals(set))}`);
      const text = el("div", "range-text", `visible ${span(bands.visible)} · display ${span(bands.display)} · preload ${span(bands.preload)}` +
        (keys.length ? ` · keys on screen ${keys.slice(0, 12).join(", ")}${keys.length > 12 ? " …" : ""}` : "") +
        (viewable.length ? ` · viewable: ${viewable.join("; ")}` : ""));
      // Overview: the whole axis seen so far; zoom: the preload range with a margin.
      const extent = Math.max(session.extent, 1);
      const overview = this.strip(bands, session, 0, extent, "overview");
      const all = bands.preload.concat(bands.display, bands.visible);
      let lo = Math.min(...all.map((i) => i[0]));
      let hi = Math.max(...all.map((i) => i[1])) + 1;
      if (!all.length) { lo = 0; hi = extent; }
      const pad = Math.max(2, Math.round((hi - lo) * 0.15));
      const zoom = this.strip(bands, session, Math.max(0, lo - pad), hi + pad, "zoom");
      row.append(head, overview, zoom, text);
    }
  }

  strip(bands, session, from, to, kind) {
    const strip = el("div", `range-strip ${kind}`);
    const scale = (at) => `${((at - from) / (to - from)) * 100}%`;
    for (const name of ["preload", "display", "visible"]) {
      for (const [a, b] of bands[name]) {
        const band = el("div", `band ${name}`);
        band.style.left = scale(a);
        band.style.width = `max(2px, ${((b + 1 - a) / (to - from)) * 100}%)`;
        band.title = `${name} ${a}–${b}`;
        strip.append(band);
      }
    }
    for (const at of session.prefetching) {
      if (at < from || at >= to) continue;
      const dot = el("div", "fetching");
      dot.style.left = scale(at);
      strip.append(dot);
    }
    for (const [name, set] of session.viewable) {
      for (const at of set) {
        if (at < from || at >= to) continue;
        const mark = el("div", "viewable");
        mark.style.left = scale(at);
        mark.title = `${name}: ${session.keys.get(at) ?? at} viewable`;
        strip.append(mark);
      }
    }
    if (session.batch) {
      const batch = el("div", "batch", "batch");
      batch.style.left = session.batch.prepend ? "0" : `min(calc(100% - 3em), ${scale(session.batch.atExtent)})`;
      batch.title = `${session.batch.context} asked at t=${session.batch.t}`;
      strip.append(batch);
    }
    strip.append(el("div", "strip-from", fmt(from)), el("div", "strip-to", fmt(to)));
    return strip;
  }

  renderLog() {
    const lines = [];
    const log = this.model.log;
    for (let i = log.length - 1; i >= Math.max(0, log.length - 60); i -= 1) {
      const { topic, event } = log[i];
      lines.push(`${String(event.seq).padStart(6)} ${String(Math.round(event.t)).padStart(7)} ms ${topic.padEnd(9)} ${summary(topic, event)}`);
    }
    this.$("log").textContent = lines.join("\n");
  }
}

/** One line about an event, for the log. */
export function summary(topic, event) {
  switch (topic) {
    case "lifecycle": return `${event.container} ${event.class} ${event.event}${event.offscreen ? " (offscreen)" : ""}${event.page ? ` page ${event.page.index}` : ""}${event.call ? ` ${event.call} in ${event.state}` : ""}`;
    case "pool": return `${event.kind} ${event.class} ${event.width}x${event.height}${event.container ? ` ${event.container}` : ""}`;
    case "page": return `${event.session} ${event.kind} ${event.from} → ${event.to}${event.completed === undefined ? "" : event.completed ? " completed" : " cancelled"}`;
    case "range": {
      const n = (o) => (o ? o.preload.length + o.display.length + o.visible.length : 0);
      return `${event.session} ${event.mode} ${event.direction} +${n(event.enter)} −${n(event.exit)}`;
    }
    case "prefetch": return `${event.session} ${event.kind} ${event.paths.length} items`;
    case "batch": return `${event.session} ${event.kind} ${event.context}`;
    case "viewable": return `${event.session} ${event.name} ${event.kind} [${event.path}]${event.reason ? ` ${event.reason}` : ""}`;
    case "host": return `${event.kind} ${event.connection ?? ""} ${event.transport ?? event.reason ?? ""}`;
    default: return JSON.stringify(event);
  }
}
