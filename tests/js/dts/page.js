// @ts-check
// A page's own script as an editor sees it with jsconfig.json beside it (clients/js/README.md): `/greenroom.js`
// is mapped to the declarations, so the host's URL imports are typed in plain JavaScript.
import { connect, UnknownObject } from "/greenroom.js";

const host = await connect(`ws://${location.host}/rpc`);
host.on("lifecycle", (event) => console.log(event.container, event.event));
// @ts-expect-error: a misspelt member of the event
host.on("lifecycle", (event) => console.log(event.containr));
await host.subscribe(["lifecycle"]);
const { container } = await host.call("container.create", { class: "Container" });
// @ts-expect-error: `class` is required
await host.call("container.create", {});
try {
  await host.call("container.info", { container: "c-999" });
} catch (e) {
  if (e instanceof UnknownObject) console.log(e.code, e.kind);
}
console.log((await host.call("container.info", { container })).appearance);
