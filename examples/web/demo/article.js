// "Show article": showRendered for a class whose viewDidLoad burns `costMs` (classes.define), in a
// pool of depth 1 — the first show is cold (built on demand), later ones warm (prerendered in the
// green room while the page was idle). Each show is timed from call to reply with performance.now().

import { ensureClass } from "./classes.js";

export class ArticleButton {
  constructor({ client, className = "DemoArticle", costMs = 120, width = 375, height = 667, now = () => performance.now() }) {
    this.client = client;
    this.className = className;
    this.costMs = costMs;
    this.width = width;
    this.height = height;
    this.now = now;
    this.stack = null;
    this.shown = null;
    this.times = [];
  }

  async start() {
    await ensureClass(this.client, this.className, { viewDidLoad: { costMs: this.costMs } });
    await this.client.call("pool.configure", { class: this.className, depth: 1, width: this.width, height: this.height });
    this.stack = (await this.client.call("stack.create", { width: this.width, height: this.height })).stack;
  }

  /** Closes the article shown before (untimed), then shows one: resolves with {ms, warm, container}. */
  async show() {
    if (this.shown) {
      await this.client.call("stack.pop", { stack: this.stack, animated: false });
      await this.client.call("container.release", { container: this.shown });
      this.shown = null;
    }
    const start = this.now();
    const reply = await this.client.call("showRendered", { class: this.className, stack: this.stack, animated: false });
    const ms = this.now() - start;
    this.shown = reply.container;
    const entry = { ms, warm: reply.warm, container: reply.container };
    this.times.push(entry);
    return entry;
  }
}
