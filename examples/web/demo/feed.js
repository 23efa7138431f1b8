// An infinite feed driven by a Greenroom range session, as a prototyper would write it: the page
// streams its scroll container's scroll events to the host and renders exactly the rows the host puts
// in the display range; row data is fetched when the host says `prefetchItems` (and, for rows that
// reach the display range without one, when they get there), more rows are appended on `batch`.
//
// No DOM here: `render(rows, contentLength)` draws. The page's main.js wires it to the browser; the
// tests drive it with a fake client.

export class Feed {
  /**
   * `client`: a greenroom.js Client (or anything with call and on). `backend`: a FakeBackend.
   * `render(rows, contentLength)`: rows is [{index, data | null}] in index order.
   */
  constructor({ client, backend, render = () => {}, viewport, itemLength = 72, initialCount = 30, leadingScreens = 2 }) {
    this.client = client;
    this.backend = backend;
    this.render = render;
    this.viewport = viewport;
    this.itemLength = itemLength;
    this.initialCount = initialCount;
    this.leadingScreens = leadingScreens;
    this.session = null;
    this.count = 0;
    this.contentLength = 0;
    this.sets = { preload: new Set(), display: new Set(), visible: new Set() };
    this.data = new Map();
    this.fetching = new Map();
    this.everVisible = new Set();
    this.counts = { blank: 0, wasted: 0, fetched: 0, cancelled: 0, batches: 0, rangeEvents: 0 };
    this.phase = "idle";
    this.moved = false;
    this.early = [];
    this.listeners = new Set();
  }

  /** Creates the range session. Events the host writes before the reply are kept and applied then. */
  async start() {
    for (const topic of ["range", "prefetch", "batch"]) {
      this.client.on(topic, (event) => this.#event(topic, event));
    }
    const created = await this.client.call("range.create", {
      count: this.initialCount,
      itemLength: this.itemLength,
      viewport: this.viewport,
      batch: { leadingScreens: this.leadingScreens },
    });
    this.session = created.session;
    this.count = created.count ?? this.initialCount;
    this.contentLength = created.contentLength ?? this.count * this.itemLength;
    const early = this.early;
    this.early = null;
    for (const [topic, event] of early) this.#event(topic, event);
    this.#draw();
    return created;
  }

  /** Calls `listener(topic, event)` after each event of this session is applied. */
  onChange(listener) {
    this.listeners.add(listener);
  }

  #event(topic, event) {
    if (this.early) {
      this.early.push([topic, event]);
      return;
    }
    if (event.session !== this.session) return;
    if (topic === "range") this.#range(event);
    else if (topic === "prefetch") this.#prefetch(event);
    else if (topic === "batch") this.#batch(event);
    for (const listener of this.listeners) listener(topic, event);
  }

  #range(event) {
    this.counts.rangeEvents += 1;
    for (const kind of ["preload", "display", "visible"]) {
      for (const [, row] of event.exit[kind]) this.sets[kind].delete(row);
      for (const [, row] of event.enter[kind]) this.sets[kind].add(row);
    }
    for (const [, row] of [...event.exit.preload, ...event.exit.display]) {
      if (!this.sets.preload.has(row) && !this.sets.display.has(row)) this.#forget(row);
    }
    const demand = [];
    for (const [, row] of event.enter.display) {
      if (!this.data.has(row) && !this.fetching.has(row)) demand.push(row);
    }
    if (demand.length) this.#fetch(demand);
    for (const [, row] of event.enter.visible) {
      this.everVisible.add(row);
      if (!this.data.has(row)) this.counts.blank += 1;
    }
    this.#draw();
  }

  /** A row left the preload range: a fetch still running is cancelled, data is dropped (a real list
   * frees it), and data fetched for a row never seen is counted as wasted. */
  #forget(row) {
    const running = this.fetching.get(row);
    if (running) {
      running.abort();
      this.fetching.delete(row);
      this.counts.cancelled += 1;
    }
    if (this.data.has(row)) {
      if (!this.everVisible.has(row)) this.counts.wasted += 1;
      this.data.delete(row);
    }
    this.everVisible.delete(row);
  }

  #prefetch(event) {
    if (event.kind === "prefetchItems") {
      const rows = event.paths.map(([, row]) => row).filter((row) => !this.data.has(row) && !this.fetching.has(row));
      if (rows.length) this.#fetch(rows);
    }
    // cancelPrefetching: the rows also left preload in the range event just before; #forget did it.
  }

  #fetch(rows) {
    const controller = new AbortController();
    for (const row of rows) this.fetching.set(row, controller);
    this.backend.fetchRows(rows, controller.signal).then((items) => {
      let changed = false;
      for (const item of items) {
        if (this.fetching.get(item.index) !== controller) continue;
        this.fetching.delete(item.index);
        if (!this.sets.preload.has(item.index) && !this.sets.display.has(item.index)) continue;
        this.data.set(item.index, item);
        this.counts.fetched += 1;
        changed = true;
      }
      if (changed) this.#draw();
    }, (error) => {
      if (error.name !== "AbortError") console.error("fetch failed", error);
      for (const row of rows) if (this.fetching.get(row) === controller) this.fetching.delete(row);
    });
  }

  async #batch(event) {
    this.counts.batches += 1;
    const lengths = await this.backend.fetchMore(this.count);
    const params = { session: this.session, context: event.context };
    if (lengths.length) params.lengths = lengths;
    const info = await this.client.call("range.batchFetchDone", params);
    this.count = info.count;
    this.contentLength = info.contentLength;
    this.#draw();
    for (const listener of this.listeners) listener("batchDone", info);
  }

  #draw() {
    const rows = [...this.sets.display].sort((a, b) => a - b).map((index) => ({ index, data: this.data.get(index) ?? null }));
    this.render(rows, this.contentLength);
  }

  /** Visible rows without their data: what the page shows blank now. */
  blankNow() {
    let n = 0;
    for (const row of this.sets.visible) if (!this.data.has(row)) n += 1;
    return n;
  }

  // The scroll stream, named after UIScrollViewDelegate. The page calls these from its scroll
  // container's events; errors go to the console (a prototype keeps scrolling).

  #send(method, params) {
    return this.client.call(method, { session: this.session, ...params }).catch((error) => console.error(method, error));
  }

  scrolled(offset, velocity) {
    if (this.session === null) return undefined;
    if (this.phase !== "idle") this.moved = true;
    const params = { offset };
    if (velocity !== undefined && this.phase !== "idle") params.velocity = velocity;
    return this.#send("range.didScroll", params);
  }

  beginDragging(offset) {
    if (this.session === null || this.phase === "dragging") return undefined;
    this.phase = "dragging";
    this.moved = false;
    return this.#send("range.willBeginDragging", { offset });
  }

  endDragging(offset, velocity) {
    if (this.phase !== "dragging") return undefined;
    this.phase = "decelerating";
    return this.#send("range.willEndDragging", { offset, velocity });
  }

  /** A drag that has not scrolled at all gets no scrollend: a tap, or a wheel turned where the feed cannot
   * move (up at the top). The page calls this a little after the release or the wheel (two frames, when
   * the scroll events of any scroll they caused have come), and such a drag comes to rest now. Otherwise
   * the session would stay tracking, which pauses the host's idle tasks, until some later scroll ends. */
  restIfStill(offset) {
    if (this.phase === "idle" || this.moved) return undefined;
    return this.cameToRest(offset);
  }

  /** The scroll came to rest (scrollend): ends a drag that began, in order. */
  cameToRest(offset) {
    if (this.phase === "idle") return undefined;
    if (this.phase === "dragging") this.endDragging(offset, 0);
    this.phase = "idle";
    return this.#send("range.didEndDecelerating", { offset });
  }

  /** `range.state`: what the host says is in each range now (the tests compare it with the page). */
  state() {
    return this.client.call("range.state", { session: this.session });
  }
}
