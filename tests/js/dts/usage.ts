// What an editor checks in a page written against /greenroom.js with its declarations (clients/js/greenroom.d.ts).
// Each `@ts-expect-error` line is a mistake the declarations must catch: tsc fails on any that it lets through,
// and on any error in the lines that are right. tests/js/greenroom_dts.test.mjs runs `tsc -p` on this folder.
import {
  AppearanceChecker, assertCalls, Client, connect, InvalidParams, swipePage, UnknownObject,
  type LifecycleEvent, type MethodName, type Params, type Result,
} from "../../../clients/js/greenroom.js";

export async function tour(url: string): Promise<number> {
  const host: Client = await connect(url, { timeout: 5000 });

  // Methods, params and results by name.
  await host.call("host.ping");
  const page = await host.call("page.create", { class: "Container", count: 3, width: 375, height: 667 });
  const session: string = page.session;
  const state = await host.call("page.didScroll", { session, offset: 120 });
  const guess: number | null = state.guess;
  const advanced = await host.call("clock.advance", { ms: 16 }, { timeout: 1000 });
  const now: number = advanced.now;
  await host.call("clock.advance", [16]);  // by position, in the document's order
  await host.call("host.memoryWarning", { level: "critical" });
  const stack = (await host.call("stack.create", { width: 375, height: 667 })).stack;
  await host.call("stack.push", { stack, container: "c-1", animated: true });
  await host.call("range.create", { viewport: { width: 375, height: 667 }, sections: [{ count: 10 }] });
  await host.call("classes.define", { name: "Card", hooks: { viewDidLoad: { costMs: 20 } } });
  host.notify("page.didScroll", { session, offset: 130 });

  // @ts-expect-error: no such method
  await host.call("page.didScrol", { session, offset: 1 });
  // @ts-expect-error: a required param is missing
  await host.call("page.didScroll", { session });
  // @ts-expect-error: a param of the wrong type
  await host.call("clock.advance", { ms: "16" });
  // @ts-expect-error: clock.advance has a required param
  await host.call("clock.advance");
  // @ts-expect-error: not one of the enum's values
  await host.call("host.memoryWarning", { level: "severe" });
  // @ts-expect-error: an unknown param
  await host.call("host.ping", { nope: 1 });
  // @ts-expect-error: a hook name that does not exist
  await host.call("classes.define", { name: "Card", hooks: { viewDidLod: { costMs: 20 } } });
  // @ts-expect-error: no such member in the result
  state.offsett;

  // Events: each topic's payload.
  const seen: LifecycleEvent[] = [];
  const off = host.on("lifecycle", (event) => {
    seen.push(event);
    const hook: string = event.event;
    const container: string = event.container;
    void hook, container;
  });
  host.on("page", (event) => {
    const from: number = event.from;
    // @ts-expect-error: page events have no `container`
    event.container;
    void from;
  });
  host.on("host", (event) => {
    if (event.kind === "memoryWarning") {
      const level: "warning" | "critical" = event.level;  // the union narrows by `kind`
      void level;
    }
  });
  // @ts-expect-error: no such topic
  host.on("lifecycles", () => {});
  off();
  await host.subscribe(["lifecycle", "page"], { scope: "all" });

  // Typed errors and the lifecycle model.
  try {
    await host.call("container.info", { container: "c-999" });
  } catch (error) {
    if (error instanceof UnknownObject || error instanceof InvalidParams) {
      const kind: string | null = error.kind;
      void kind;
    }
  }
  const checker = new AppearanceChecker();
  seen.forEach((event) => checker.feed(event));
  checker.check({ atRest: true });
  await swipePage(host, session, 0, 1, { width: 375 });
  assertCalls(seen, ["willAppear 1", "willDisappear 0"]);

  // The helper types.
  const name: MethodName = "range.didScroll";
  const params: Params<"range.didScroll"> = { session: "r-1", offset: 10 };
  const info: Result<"page.info"> = await host.call("page.info", { session });
  void name, params;
  await host.close();
  return now + (guess ?? 0) + info.index;
}
