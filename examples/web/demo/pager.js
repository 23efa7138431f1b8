// A pager driven by a Greenroom page session, as a prototyper would write it: real pointer drags
// become the page.* scroll stream (willBeginDragging, didScroll, willEndDragging, didEndDragging,
// didEndDecelerating), the buttons become animated page.show calls, and every page's lifecycle hooks
// are listed as they arrive — the interaction's order can be checked against UIPageViewController's.
//
// No DOM here either: `onChange()` tells the page to redraw from `offset`, `index` and `interaction`.

import { ensureClass } from "./classes.js";

const APPEARANCE = new Set(["viewWillAppear", "viewDidAppear", "viewWillDisappear", "viewDidDisappear"]);

export class Pager {
  constructor({ client, count = 5, width = 320, height = 200, initialIndex = 1, className = "DemoPage", onChange = () => {} }) {
    this.client = client;
    this.count = count;
    this.width = width;
    this.height = height;
    this.index = initialIndex;
    this.className = className;
    this.onChange = onChange;
    this.session = null;
    this.offset = initialIndex * width;
    this.hooks = new Map();
    /** The appearance hooks of the last interaction (drag or button), "hook index", in order. */
    this.interaction = [];
    this.dragging = null;
    this.early = [];
  }

  async start() {
    await ensureClass(this.client, this.className);
    this.client.on("lifecycle", (event) => this.#lifecycle(event));
    this.client.on("page", (event) => this.#page(event));
    const created = await this.client.call("page.create", {
      class: this.className, count: this.count, width: this.width, height: this.height, initialIndex: this.index,
    });
    this.session = created.session;
    const early = this.early;
    this.early = null;
    for (const event of early) this.#lifecycle(event);
    this.onChange();
    return created;
  }

  #lifecycle(event) {
    if (this.early) {
      if (event.page) this.early.push(event);
      return;
    }
    if (!event.page || event.page.session !== this.session || event.page.index < 0) return;
    const index = event.page.index;
    if (!this.hooks.has(index)) this.hooks.set(index, []);
    const list = this.hooks.get(index);
    list.push(event.event);
    if (list.length > 40) list.splice(0, list.length - 40);
    if (APPEARANCE.has(event.event)) this.interaction.push(`${event.event} ${index}`);
    this.onChange();
  }

  #page(event) {
    if (event.session !== this.session) return;
    if (event.kind === "didTransition") {
      this.index = event.completed ? event.to : event.from;
      this.onChange();
    }
  }

  #send(method, params) {
    return this.client.call(method, { session: this.session, ...params });
  }

  #clamp(offset) {
    return Math.max(0, Math.min((this.count - 1) * this.width, offset));
  }

  /** A pointer went down at x (client pixels). */
  pointerDown(x, time) {
    if (this.session === null) return undefined;
    this.interaction = [];
    this.dragging = { startX: x, startOffset: this.offset, samples: [[time, this.offset]] };
    return this.#send("page.willBeginDragging", { offset: this.offset });
  }

  /** The pointer moved to x: the pages follow it. */
  pointerMove(x, time) {
    if (!this.dragging) return undefined;
    const offset = this.#clamp(this.dragging.startOffset - (x - this.dragging.startX));
    if (offset === this.offset) return undefined;
    this.offset = offset;
    this.dragging.samples.push([time, offset]);
    if (this.dragging.samples.length > 5) this.dragging.samples.shift();
    this.onChange();
    return this.#send("page.didScroll", { offset });
  }

  /** The pointer went up: the target page is the nearest one, or the next one in a flick's
   * direction. Returns the target offset, which the page animates to before calling `settled`. */
  async pointerUp(time) {
    if (!this.dragging) return null;
    const samples = this.dragging.samples;
    this.dragging = null;
    const [t0, o0] = samples[0];
    const dt = Math.max(1, time - t0);
    const velocity = (this.offset - o0) / dt;
    let target = Math.round(this.offset / this.width);
    if (Math.abs(velocity) > 0.3) target = velocity > 0 ? Math.ceil(this.offset / this.width) : Math.floor(this.offset / this.width);
    target = Math.max(0, Math.min(this.count - 1, target));
    const targetOffset = target * this.width;
    await this.#send("page.willEndDragging", { offset: this.offset, velocity, targetOffset });
    const willDecelerate = targetOffset !== this.offset;
    await this.#send("page.didEndDragging", { offset: this.offset, willDecelerate });
    if (!willDecelerate) return null;
    return targetOffset;
  }

  /** The deceleration animation reached `offset`. */
  settled(offset) {
    this.offset = offset;
    this.onChange();
    return this.#send("page.didEndDecelerating", { offset });
  }

  /** A button: an animated page.show. */
  async show(index) {
    if (this.session === null || index < 0 || index >= this.count) return undefined;
    this.interaction = [];
    const info = await this.#send("page.show", { index, animated: true });
    this.offset = index * this.width;
    this.onChange();
    return info;
  }
}
