// The inspector page: one connection observing every connection's objects (`scope: "all"`), a
// model fed by its events and its polls (host.stats, pool.status and host.info, twice a second), a view drawn
// once per frame. Open it at /inspect on a host's ws: port; `?rpc=ws://HOST:PORT/rpc` points it at
// another host (which must then allow this page's origin with --allow-origin).

import { connect } from "/greenroom.js";
import { InspectorModel } from "./model.js";
import { InspectorView } from "./view.js";

const TOPICS = ["lifecycle", "pool", "page", "range", "prefetch", "batch", "viewable", "host", "task"];
const params = new URLSearchParams(location.search);
const url = params.get("rpc") ?? `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/rpc`;
const model = new InspectorModel({ maxMarks: Number(params.get("marks") ?? 3000) });
const view = new InspectorView(document.body, model);
const status = document.getElementById("status");
const inspector = { model, view, client: null, url };
window.greenroomInspector = inspector;

document.getElementById("pause").addEventListener("click", (e) => {
  view.setPaused(!view.paused);
  e.target.textContent = view.paused ? "Resume" : "Pause";
});
document.getElementById("clear").addEventListener("click", () => {
  model.clear();
  // Paused or not, Clear shows its effect at once (a paused picture is redrawn once, then frozen again).
  view.redrawNow();
});
document.getElementById("zoom").addEventListener("input", (e) => {
  model.setScale(0.4 * 2 ** Number(e.target.value));
  view.invalidate();
});

let received = 0;
let rateFrom = performance.now();
setInterval(() => {
  const now = performance.now();
  view.eventRate = `${Math.round((received * 1000) / (now - rateFrom))} events/s`;
  received = 0;
  rateFrom = now;
}, 1000);

async function poll(client) {
  while (!client.isClosed) {
    try {
      const [stats, pools, clock, info] = await Promise.all([
        client.call("host.stats"), client.call("pool.status"), client.call("clock.now"), client.call("host.info"),
      ]);
      model.setStats(stats);
      model.setPools(pools);
      model.setPlugins(info);
      document.getElementById("clock").textContent = `host clock ${clock.mode ?? ""} ${Math.round(clock.ms ?? 0)} ms`;
      view.invalidate();
    } catch (error) {
      if (client.isClosed) break;
      console.error("poll failed", error);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function start() {
  let client;
  try {
    client = await connect(url);
  } catch (error) {
    status.textContent = `cannot connect to ${url}`;
    status.className = "status down";
    return;
  }
  inspector.client = client;
  for (const topic of TOPICS) {
    client.on(topic, (event) => {
      received += 1;
      model.apply(topic, event);
      view.invalidate();
    });
  }
  await client.subscribe(TOPICS, { scope: "all" });
  status.textContent = `live: ${url}`;
  status.className = "status live";
  document.body.dataset.ready = "true";
  client.closed.then(() => {
    status.textContent = "connection closed: reload to reconnect";
    status.className = "status down";
    delete document.body.dataset.ready;
  });
  poll(client);
}

start();
