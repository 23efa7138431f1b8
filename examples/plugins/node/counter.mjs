// The Counter example plugin in JavaScript (the C one is examples/plugins/Counter/counter.c): each instance
// counts the hooks it ran; configure returns {calls, lastHook, workPending, workDone, sum} (this port has no
// background work: the last three are always 0, 0 and null); data.failOn: "<hook>" makes that hook fail
// from then on (null clears it). The class is CounterNode, so that it can sit beside the C Counter on one
// host: the lifecycle tests run the same script against all three languages.
//
//   greenroom serve --plugin-command "node examples/plugins/node/counter.mjs"

import { Container, PluginError, serve } from "../../../clients/js/plugin.mjs";

class Counter extends Container {
  static className = "CounterNode";

  constructor(id) {
    super(id);
    this.calls = 0;
    this.lastHook = null;
    this.failOn = null;
  }

  // Every hook is counted, so this class takes them all here rather than one method each.
  hook(call) {
    const previous = this.lastHook;
    this.lastHook = call.hook;
    this.calls += 1;
    const data = call.data;
    if (data && typeof data === "object" && "failOn" in data) {
      if (typeof data.failOn === "string") this.failOn = data.failOn;
      else if (data.failOn === null) this.failOn = null;
    }
    if (this.failOn === call.hook) {
      throw new PluginError(`Counter: ${call.hook} failed because data.failOn names it (call ${this.calls})`);
    }
    if (call.hook === "configure") return { calls: this.calls, lastHook: previous, workPending: 0, workDone: 0, sum: null };
    return undefined;
  }

  get memoryBytes() { return 64; }
}

serve("counter-node", [Counter], { version: "1.0.0" });
