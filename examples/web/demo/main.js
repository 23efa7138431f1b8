// The demo page: one connection to the host that serves it, three small prototypes on it.
// `?latency=MS` sets the fake backend's latency (default 150); `?rpc=ws://HOST:PORT/rpc` another host.

import { connect } from "/greenroom.js";
import { FakeBackend } from "./backend.js";
import { Feed } from "./feed.js";
import { Pager } from "./pager.js";
import { ArticleButton } from "./article.js";

const params = new URLSearchParams(location.search);
const url = params.get("rpc") ?? `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/rpc`;
const $ = (id) => document.getElementById(id);
const demo = { url, scrollEnds: 0 };
window.greenroomDemo = demo;

// ---- feed ----------------------------------------------------------------------------------------

const ITEM = 72;
const feedEl = $("feed");
const content = $("feed-content");
const rowEls = new Map();
const latency = $("latency");
if (params.has("latency")) latency.value = params.get("latency");
const backend = new FakeBackend({ latencyMs: Number(latency.value), itemLength: ITEM, total: Number(params.get("total") ?? 1000) });
latency.addEventListener("input", () => { backend.latencyMs = Number(latency.value) || 0; });

function hue(index) {
  return (index * 47) % 360;
}

function renderRows(rows, contentLength) {
  content.style.height = `${contentLength}px`;
  const keep = new Set();
  for (const { index, data } of rows) {
    keep.add(index);
    let row = rowEls.get(index);
    if (!row) {
      row = document.createElement("div");
      row.className = "row";
      row.dataset.index = index;
      row.style.top = `${index * ITEM}px`;
      row.innerHTML = `<div class="avatar"></div><div><div class="title"></div><div class="text"></div></div>`;
      rowEls.set(index, row);
      content.append(row);
    }
    const blank = data === null;
    if (row.classList.contains("blank") !== blank || !row.dataset.filled) {
      row.classList.toggle("blank", blank);
      row.dataset.filled = blank ? "" : "yes";
      row.querySelector(".avatar").style.background = blank ? "" : `hsl(${hue(index)} 55% 55%)`;
      row.querySelector(".title").textContent = blank ? "" : data.title;
      row.querySelector(".text").textContent = blank ? "" : data.text;
    }
  }
  for (const [index, row] of rowEls) {
    if (!keep.has(index)) {
      row.remove();
      rowEls.delete(index);
    }
  }
  showCounts();
}

function showCounts() {
  const feed = demo.feed;
  if (!feed) return;
  $("count-rows").textContent = feed.count;
  $("count-rendered").textContent = rowEls.size;
  $("count-blank").textContent = feed.counts.blank;
  $("count-wasted").textContent = feed.counts.wasted;
  $("count-fetched").textContent = feed.counts.fetched;
  $("count-cancelled").textContent = feed.counts.cancelled;
  $("count-batches").textContent = feed.counts.batches;
  $("count-blank-now").textContent = feed.blankNow();
}

function wireScroll(feed) {
  let last = { t: performance.now(), offset: feedEl.scrollTop };
  let velocity = 0;
  feedEl.addEventListener("scroll", () => {
    const now = performance.now();
    const offset = feedEl.scrollTop;
    if (now > last.t) velocity = (offset - last.offset) / (now - last.t);
    last = { t: now, offset };
    feed.scrolled(offset, velocity);
  }, { passive: true });
  // A wheel turn or a touch is a drag; it ends when the scroll comes to rest.
  // A drag that scrolls nothing (a tap, a wheel up at the top) gets no scrollend: two frames later it rests.
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  const restIfStill = async () => {
    await frame();
    await frame();
    feed.restIfStill(feedEl.scrollTop);
  };
  feedEl.addEventListener("wheel", () => {
    feed.beginDragging(feedEl.scrollTop);
    restIfStill();
  }, { passive: true });
  feedEl.addEventListener("pointerdown", () => feed.beginDragging(feedEl.scrollTop));
  feedEl.addEventListener("touchstart", () => feed.beginDragging(feedEl.scrollTop), { passive: true });
  const release = () => {
    feed.endDragging(feedEl.scrollTop, velocity);
    restIfStill();
  };
  feedEl.addEventListener("pointerup", release);
  feedEl.addEventListener("touchend", release);
  if ("onscrollend" in window) {
    feedEl.addEventListener("scrollend", () => {
      // Each scripted step of autoscroll ends a scroll; its finger has not lifted.
      if (!autoscrolling) feed.cameToRest(feedEl.scrollTop);
      demo.scrollEnds += 1;
    });
  } else {
    let timer = null;
    feedEl.addEventListener("scroll", () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        feed.cameToRest(feedEl.scrollTop);
        demo.scrollEnds += 1;
      }, 150);
    }, { passive: true });
  }
}

let autoscrolling = false;

/** Scrolls the feed like a steady finger: for each leg a drag moving `pxPerFrame` each animation frame
 * for `frames` frames, then released; resolves, once the scroll rests and no fetch is running, with
 * what the counters gained meanwhile. The "autoscroll" button runs the default: six half-second drags
 * down, two back up (a batch is judged when a finger lifts, as in Texture, not during a drag). */
const DOWN = { pxPerFrame: 30, frames: 30 };
const UP = { pxPerFrame: -30, frames: 30 };

async function autoscroll(legs = [DOWN, DOWN, DOWN, DOWN, DOWN, DOWN, UP, UP]) {
  const feed = demo.feed;
  const before = { ...feed.counts };
  autoscrolling = true;
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  for (const { pxPerFrame, frames } of legs) {
    feed.beginDragging(feedEl.scrollTop);
    for (let i = 0; i < frames; i += 1) {
      feedEl.scrollTop += pxPerFrame;
      await frame();
    }
    feed.cameToRest(feedEl.scrollTop);
  }
  autoscrolling = false;
  while (feed.fetching.size > 0) await frame();
  const gained = {};
  for (const [name, value] of Object.entries(feed.counts)) gained[name] = value - before[name];
  return { ...gained, rows: feed.count, offset: feedEl.scrollTop };
}
demo.autoscroll = autoscroll;

// ---- pager ---------------------------------------------------------------------------------------

const PAGE_W = 320;
const strip = $("pager-strip");
const pagerEl = $("pager");

function drawPager() {
  const pager = demo.pager;
  if (!pager) return;
  if (strip.children.length !== pager.count) {
    strip.textContent = "";
    for (let i = 0; i < pager.count; i += 1) {
      const page = document.createElement("div");
      page.className = "page";
      page.dataset.index = i;
      page.style.background = `hsl(${hue(i + 3)} 45% 45%)`;
      page.innerHTML = `<div class="number">${i}</div><ol class="page-hooks" data-index="${i}"></ol>`;
      strip.append(page);
    }
  }
  if (!strip.classList.contains("animating")) strip.style.transform = `translateX(${-pager.offset}px)`;
  for (let i = 0; i < pager.count; i += 1) {
    const list = strip.querySelector(`ol[data-index="${i}"]`);
    const hooks = pager.hooks.get(i) ?? [];
    const shown = hooks.slice(-8);
    if (list.dataset.n !== String(hooks.length)) {
      list.dataset.n = hooks.length;
      list.innerHTML = shown.map((h) => `<li>${h}</li>`).join("");
    }
  }
  const inter = $("pager-interaction");
  if (inter.children.length !== pager.interaction.length) {
    inter.innerHTML = pager.interaction.map((h) => `<li>${h}</li>`).join("");
  }
  $("pager-index").textContent = `page ${pager.index} of ${pager.count}`;
}

function animateTo(offset) {
  return new Promise((resolve) => {
    strip.classList.add("animating");
    const done = () => {
      strip.classList.remove("animating");
      resolve();
    };
    strip.addEventListener("transitionend", done, { once: true });
    strip.style.transform = `translateX(${-offset}px)`;
    // A transition to where it already is fires no transitionend.
    if (getComputedStyle(strip).transform === strip.style.transform) done();
  });
}

function wirePager(pager) {
  pagerEl.addEventListener("pointerdown", (e) => {
    pagerEl.setPointerCapture(e.pointerId);
    pager.pointerDown(e.clientX, e.timeStamp);
  });
  pagerEl.addEventListener("pointermove", (e) => {
    if (pager.dragging) pager.pointerMove(e.clientX, e.timeStamp);
  });
  const up = async (e) => {
    const target = await pager.pointerUp(e.timeStamp);
    if (target === null) return;
    await animateTo(target);
    await pager.settled(target);
  };
  pagerEl.addEventListener("pointerup", up);
  pagerEl.addEventListener("pointercancel", up);
  $("pager-prev").addEventListener("click", () => pager.show(pager.index - 1).then(() => animateTo(pager.offset)));
  $("pager-next").addEventListener("click", () => pager.show(pager.index + 1).then(() => animateTo(pager.offset)));
}

// ---- article -------------------------------------------------------------------------------------

function wireArticle(article) {
  $("article-cost").textContent = article.costMs;
  $("article-show").addEventListener("click", async () => {
    const button = $("article-show");
    button.disabled = true;
    try {
      const { ms, warm, container } = await article.show();
      const li = document.createElement("li");
      li.className = warm ? "warm" : "cold";
      li.dataset.warm = warm;
      li.textContent = `${warm ? "warm" : "cold"} ${ms.toFixed(1)} ms (${container})`;
      $("article-times").append(li);
    } finally {
      button.disabled = false;
    }
  });
}

// ---- start ---------------------------------------------------------------------------------------

async function start() {
  let client;
  try {
    client = await connect(url);
  } catch (error) {
    $("status").textContent = `cannot connect to ${url}`;
    $("status").className = "status down";
    return;
  }
  demo.client = client;
  await client.subscribe(["lifecycle", "page", "range", "prefetch", "batch"]);
  const feed = new Feed({
    client, backend, render: renderRows, itemLength: ITEM,
    viewport: { width: feedEl.clientWidth, height: feedEl.clientHeight },
  });
  demo.feed = feed;
  feed.onChange(showCounts);
  const pager = new Pager({ client, width: PAGE_W, height: 200, count: 5, initialIndex: 1, onChange: drawPager });
  demo.pager = pager;
  const article = new ArticleButton({ client, costMs: Number(params.get("cost") ?? 120) });
  demo.article = article;
  await feed.start();
  wireScroll(feed);
  $("autoscroll").addEventListener("click", () => autoscroll());
  await pager.start();
  wirePager(pager);
  await article.start();
  wireArticle(article);
  $("status").textContent = `live: ${url}`;
  $("status").className = "status live";
  document.body.dataset.ready = "true";
  client.closed.then(() => {
    $("status").textContent = "connection closed: reload to reconnect";
    $("status").className = "status down";
  });
}

start();
