// Fakes for the web pages' logic under node: a client that records calls and lets a test answer them
// and push events, and a backend whose fetches resolve when the test says so (no timers, no sleeps).

export class FakeClient {
  constructor(answer = () => ({})) {
    this.answer = answer;
    this.calls = [];
    this.handlers = new Map();
  }

  on(topic, handler) {
    if (!this.handlers.has(topic)) this.handlers.set(topic, []);
    this.handlers.get(topic).push(handler);
  }

  /** Delivers an event as the client would (every handler of the topic, in order). */
  emit(topic, event) {
    for (const handler of this.handlers.get(topic) ?? []) handler(event);
  }

  call(method, params) {
    this.calls.push([method, params]);
    return Promise.resolve(this.answer(method, params, this));
  }

  methods() {
    return this.calls.map(([method]) => method);
  }
}

export class ManualBackend {
  constructor() {
    this.pending = [];
    this.more = [];
  }

  fetchRows(indices, signal) {
    return new Promise((resolve, reject) => {
      const entry = { indices, resolve: () => resolve(indices.map((index) => ({ index, title: `Row ${index}` }))) };
      signal?.addEventListener("abort", () => reject(Object.assign(new Error("aborted"), { name: "AbortError" })));
      this.pending.push(entry);
    });
  }

  /** Answers every fetch asked so far. */
  async releaseAll() {
    const pending = this.pending;
    this.pending = [];
    for (const entry of pending) entry.resolve();
    await settle();
  }

  fetchMore(count) {
    return new Promise((resolve) => this.more.push({ count, resolve }));
  }
}

/** Lets promise callbacks queued so far run. */
export async function settle() {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

/** A range event with section-0 paths. */
export function rangeEvent(session, enter = {}, exit = {}, extra = {}) {
  const paths = (list) => (list ?? []).map((row) => [0, row]);
  const sets = (o) => ({ preload: paths(o.preload), display: paths(o.display), visible: paths(o.visible) });
  return { seq: 1, t: 0, session, mode: "full", direction: "down", enter: sets(enter), exit: sets(exit), ...extra };
}

export function range(from, to) {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
