// A fake backend for the demo: rows and pages of more rows, each answer after `latencyMs` (the page's
// latency control changes it live). It counts what it was asked, so the page can show waste.

const WORDS = ["green", "room", "prerender", "pool", "page", "range", "preload", "display", "visible",
  "batch", "fetch", "scroll", "lifecycle", "appear", "layout", "texture", "cell", "feed", "story", "swipe"];

/** The row at `index`: the same text every time, so a refetch shows the same row. */
export function rowData(index) {
  const pick = (k) => WORDS[(index * 7 + k * 13) % WORDS.length];
  return { index, title: `Row ${index}: ${pick(1)} ${pick(2)}`, text: `${pick(3)} ${pick(4)} ${pick(5)} ${pick(6)} ${pick(7)}` };
}

export class FakeBackend {
  constructor({ latencyMs = 150, total = 1000, batchSize = 30, itemLength = 72 } = {}) {
    this.latencyMs = latencyMs;
    this.total = total;
    this.batchSize = batchSize;
    this.itemLength = itemLength;
    this.requests = 0;
    this.rowsServed = 0;
  }

  /** Resolves with the rows for `indices` after the latency; rejects with an AbortError when `signal`
   * aborts first. */
  fetchRows(indices, signal) {
    this.requests += 1;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.rowsServed += indices.length;
        resolve(indices.map(rowData));
      }, this.latencyMs);
      signal?.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(Object.assign(new Error("aborted"), { name: "AbortError" }));
      }, { once: true });
    });
  }

  /** Resolves with the lengths of the next rows after the latency: an empty list once `total` rows
   * exist (an exhausted backend). */
  fetchMore(count) {
    this.requests += 1;
    const n = Math.max(0, Math.min(this.batchSize, this.total - count));
    return new Promise((resolve) => setTimeout(() => resolve(new Array(n).fill(this.itemLength)), this.latencyMs));
  }
}
