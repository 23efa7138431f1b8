// The demo's feed, pager and article logic (examples/web/demo/*.js) against a fake client and a
// backend that answers when the test says so.
import test from "node:test";
import assert from "node:assert/strict";
import { Feed } from "../../examples/web/demo/feed.js";
import { Pager } from "../../examples/web/demo/pager.js";
import { ArticleButton } from "../../examples/web/demo/article.js";
import { FakeBackend, rowData } from "../../examples/web/demo/backend.js";
import { FakeClient, ManualBackend, rangeEvent, range, settle } from "./fakes.mjs";

function feedHost() {
  // range.create's events come before its reply, as the host writes them.
  return new FakeClient((method, params, client) => {
    if (method === "range.create") {
      client.emit("range", rangeEvent("r-1", { preload: range(0, 9), display: range(0, 7), visible: range(0, 4) }));
      client.emit("prefetch", { seq: 2, t: 0, session: "r-1", kind: "prefetchItems", paths: range(5, 9).map((r) => [0, r]) });
      return { session: "r-1", count: 30, contentLength: 30 * 72 };
    }
    if (method === "range.batchFetchDone") return { session: "r-1", count: 30 + (params.lengths?.length ?? 0), contentLength: 0 };
    return {};
  });
}

async function startedFeed() {
  const client = feedHost();
  const backend = new ManualBackend();
  const frames = [];
  const feed = new Feed({ client, backend, viewport: { width: 400, height: 360 }, render: (rows) => frames.push(rows) });
  await feed.start();
  return { client, backend, feed, frames };
}

test("the feed renders exactly the display range, blank until the data comes", async () => {
  const { backend, feed, frames } = await startedFeed();
  assert.deepEqual(frames.at(-1).map((r) => r.index), range(0, 7));
  assert.ok(frames.at(-1).every((r) => r.data === null));
  assert.equal(feed.counts.blank, 5, "five visible rows appeared without data");
  // Prefetched (5-9) and demanded (0-4: entered display without a prefetch) fetches.
  assert.deepEqual(backend.pending.map((p) => p.indices).flat().sort((a, b) => a - b), range(0, 9));
  await backend.releaseAll();
  assert.ok(frames.at(-1).every((r) => r.data !== null));
  assert.equal(feed.blankNow(), 0);
  assert.equal(feed.counts.fetched, 10);
});

test("rows that leave the ranges are cancelled or counted as wasted; later ones are not blank", async () => {
  const { client, backend, feed, frames } = await startedFeed();
  await backend.releaseAll();
  // Scroll down: 0-4 leave everything, 10-14 enter preload (prefetched), 8-9 become visible.
  client.emit("range", rangeEvent("r-1", { preload: range(10, 14), display: range(8, 12), visible: range(5, 9) },
    { preload: range(0, 4), display: range(0, 4), visible: range(0, 4) }));
  client.emit("prefetch", { seq: 3, t: 0, session: "r-1", kind: "prefetchItems", paths: range(10, 14).map((r) => [0, r]) });
  assert.equal(feed.counts.blank, 5, "5-9 were prefetched: not blank");
  assert.deepEqual(frames.at(-1).map((r) => r.index), range(5, 12));
  // 10-14 leave before their data comes: cancelled, not wasted.
  client.emit("range", rangeEvent("r-1", {}, { preload: range(10, 14), display: range(10, 12) }));
  assert.equal(feed.counts.cancelled, 5);
  await backend.releaseAll();
  assert.equal(feed.counts.fetched, 10, "no cancelled row is stored");
});

test("wasted: data fetched for a row that leaves preload without having been visible", async () => {
  const { client, backend, feed } = await startedFeed();
  await backend.releaseAll();
  client.emit("range", rangeEvent("r-1", {}, { preload: range(8, 9) }));
  assert.equal(feed.counts.wasted, 2);
  client.emit("range", rangeEvent("r-1", {}, { preload: range(0, 1), display: range(0, 1), visible: range(0, 1) }));
  assert.equal(feed.counts.wasted, 2, "rows that were visible are not wasted");
});

test("a batch event is answered with the backend's lengths, and without any once it is exhausted", async () => {
  const { client, backend, feed } = await startedFeed();
  client.emit("batch", { seq: 4, t: 0, session: "r-1", context: "b-1", kind: "willBeginBatchFetch", prepend: false });
  assert.equal(backend.more.length, 1);
  backend.more[0].resolve([72, 72, 72]);
  await settle();
  assert.deepEqual(client.calls.at(-1), ["range.batchFetchDone", { session: "r-1", context: "b-1", lengths: [72, 72, 72] }]);
  assert.equal(feed.count, 33);
  client.emit("batch", { seq: 5, t: 0, session: "r-1", context: "b-2", kind: "willBeginBatchFetch", prepend: false });
  backend.more[1].resolve([]);
  await settle();
  assert.deepEqual(client.calls.at(-1), ["range.batchFetchDone", { session: "r-1", context: "b-2" }]);
});

test("events of other sessions are ignored", async () => {
  const { client, feed, frames } = await startedFeed();
  const before = frames.length;
  client.emit("range", rangeEvent("r-9", { display: range(100, 120) }));
  assert.equal(frames.length, before);
  assert.equal(feed.sets.display.size, 8);
});

test("the scroll stream: a wheel or touch is a drag that ends in order when the scroll rests", async () => {
  const { client, feed } = await startedFeed();
  client.calls.length = 0;
  feed.scrolled(10);
  feed.beginDragging(10);
  feed.beginDragging(12);
  feed.scrolled(40, 1.5);
  feed.cameToRest(80);
  feed.cameToRest(80);
  assert.deepEqual(client.calls, [
    ["range.didScroll", { session: "r-1", offset: 10 }],
    ["range.willBeginDragging", { session: "r-1", offset: 10 }],
    ["range.didScroll", { session: "r-1", offset: 40, velocity: 1.5 }],
    ["range.willEndDragging", { session: "r-1", offset: 80, velocity: 0 }],
    ["range.didEndDecelerating", { session: "r-1", offset: 80 }],
  ]);
});

test("a drag that scrolls nothing (a tap, a wheel at the top) comes to rest when the page says it is still", async () => {
  const { client, feed } = await startedFeed();
  client.calls.length = 0;
  feed.beginDragging(144);
  feed.endDragging(144, 0);
  feed.restIfStill(144);
  assert.equal(feed.phase, "idle");
  assert.deepEqual(client.calls, [
    ["range.willBeginDragging", { session: "r-1", offset: 144 }],
    ["range.willEndDragging", { session: "r-1", offset: 144, velocity: 0 }],
    ["range.didEndDecelerating", { session: "r-1", offset: 144 }],
  ]);
  // A wheel where the feed cannot move: a drag never released, at rest all the same.
  client.calls.length = 0;
  feed.beginDragging(0);
  feed.restIfStill(0);
  assert.equal(feed.phase, "idle");
  assert.deepEqual(client.methods(), ["range.willBeginDragging", "range.willEndDragging", "range.didEndDecelerating"]);
  // A drag that scrolled (during the drag or after the release: a fling) waits for its scrollend.
  for (const scrollAfterRelease of [false, true]) {
    client.calls.length = 0;
    feed.beginDragging(144);
    if (!scrollAfterRelease) feed.scrolled(200, 2);
    feed.endDragging(200, 2);
    if (scrollAfterRelease) feed.scrolled(260, 2);
    feed.restIfStill(260);
    assert.equal(feed.phase, "decelerating");
    assert.deepEqual(client.methods(), scrollAfterRelease
      ? ["range.willBeginDragging", "range.willEndDragging", "range.didScroll"]
      : ["range.willBeginDragging", "range.didScroll", "range.willEndDragging"]);
    feed.cameToRest(260);
    assert.equal(feed.phase, "idle");
  }
});

test("the fake backend answers after its latency, with stable rows, and stops at its total", async () => {
  const backend = new FakeBackend({ latencyMs: 0, total: 40, batchSize: 30 });
  assert.deepEqual(await backend.fetchRows([3]), [rowData(3)]);
  assert.equal((await backend.fetchMore(30)).length, 10);
  assert.equal((await backend.fetchMore(40)).length, 0);
  const controller = new AbortController();
  const fetching = backend.fetchRows([1], controller.signal);
  controller.abort();
  await assert.rejects(fetching, { name: "AbortError" });
});

function pagerHost() {
  return new FakeClient((method, params, client) => {
    if (method === "classes.list") return { classes: [] };
    if (method === "page.create") {
      client.emit("lifecycle", { seq: 1, t: 0, container: "c-1", class: "DemoPage", event: "viewWillAppear", offscreen: false, animated: false, page: { session: "p-1", index: 1 } });
      return { session: "p-1", index: 1 };
    }
    return {};
  });
}

test("a pager drag from page 1 to 0 sends UIScrollView's stream with the right offsets", async () => {
  const client = pagerHost();
  const pager = new Pager({ client, width: 320, count: 5, initialIndex: 1 });
  await pager.start();
  assert.deepEqual(client.calls.slice(0, 2).map(([m]) => m), ["classes.list", "classes.define"]);
  assert.deepEqual(pager.hooks.get(1), ["viewWillAppear"], "the initial page's hooks, written before page.create's reply");
  client.calls.length = 0;
  pager.pointerDown(100, 0);
  pager.pointerMove(150, 10);
  pager.pointerMove(300, 20);
  const target = await pager.pointerUp(40);
  assert.equal(target, 0);
  await pager.settled(target);
  assert.deepEqual(client.calls.map(([m, p]) => [m, p.offset]), [
    ["page.willBeginDragging", 320], ["page.didScroll", 270], ["page.didScroll", 120],
    ["page.willEndDragging", 120], ["page.didEndDragging", 120], ["page.didEndDecelerating", 0],
  ]);
  assert.equal(client.calls[3][1].targetOffset, 0);
  assert.equal(client.calls[4][1].willDecelerate, true);
  const hook = (event, index) => client.emit("lifecycle", { seq: 5, t: 0, container: `c-${index}`, class: "DemoPage", event, offscreen: false, animated: false, page: { session: "p-1", index } });
  hook("viewWillAppear", 0);
  hook("viewWillDisappear", 1);
  hook("viewDidLayoutSubviews", 0);
  assert.deepEqual(pager.interaction, ["viewWillAppear 0", "viewWillDisappear 1"]);
});

test("a short slow drag settles back on its page; a drag never goes past the ends", async () => {
  const client = pagerHost();
  const pager = new Pager({ client, width: 320, count: 5, initialIndex: 0 });
  await pager.start();
  pager.pointerDown(100, 0);
  pager.pointerMove(200, 1000);
  assert.equal(pager.offset, 0, "clamped at the first page");
  pager.pointerMove(60, 2000);
  assert.equal(pager.offset, 40);
  assert.equal(await pager.pointerUp(3000), 0);
});

test("show article times each showRendered and closes the previous one first", async () => {
  let t = 0;
  let warm = false;
  const client = new FakeClient((method) => {
    if (method === "classes.list") return { classes: [{ name: "DemoArticle" }] };
    if (method === "stack.create") return { stack: "s-1" };
    if (method === "showRendered") {
      t += warm ? 3 : 130;
      const reply = { container: `c-${client.calls.length}`, warm };
      warm = true;
      return reply;
    }
    return {};
  });
  const article = new ArticleButton({ client, now: () => t });
  await article.start();
  assert.ok(!client.methods().includes("classes.define"), "an existing class is reused");
  assert.deepEqual(await article.show(), { ms: 130, warm: false, container: "c-4" });
  const second = await article.show();
  assert.deepEqual([second.ms, second.warm], [3, true]);
  assert.deepEqual(client.methods().slice(-4), ["showRendered", "stack.pop", "container.release", "showRendered"]);
});
