// Scripted classes (classes.define) for the demo: defined once per host, reused after a reload.

/** Defines `name` with `hooks` unless the host already has a class of that name. */
export async function ensureClass(client, name, hooks = {}) {
  const { classes } = await client.call("classes.list");
  if (!classes.some((c) => c.name === name)) await client.call("classes.define", { name, hooks });
}
