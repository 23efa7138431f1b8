// The Article example plugin in JavaScript: the Swift one (examples/plugins/Article/) ported to the node
// plugin kit (clients/js/plugin.mjs). viewDidLoad parses the page template, configure renders the business
// data into HTML and returns {bytes, checksum, title, size}, the layout hooks record the size, a memory
// warning drops the rendered page. The same data at the same size renders the same bytes as the Swift one.
//
//   greenroom serve --plugin-command "node examples/plugins/node/article.mjs"

import { readFileSync } from "node:fs";
import { Container, PluginError, log, serve } from "../../../clients/js/plugin.mjs";
import { Template } from "./mustache.mjs";

const TEMPLATE = readFileSync(new URL("../templates/article.html", import.meta.url), "utf8");

/** FNV-1a over the page's UTF-8. */
export function checksum(page) {
  let h = 2166136261;
  for (const byte of Buffer.from(page, "utf8")) h = Math.imul(h ^ byte, 16777619) >>> 0;
  return h;
}

/** Roughly what a JSON value holds in memory. */
function estimate(v) {
  if (typeof v === "string") return 16 + Buffer.byteLength(v);
  if (Array.isArray(v)) return v.reduce((n, x) => n + estimate(x), 32);
  if (v && typeof v === "object") return Object.entries(v).reduce((n, [k, x]) => n + 16 + Buffer.byteLength(k) + estimate(x), 32);
  return 16;
}

const typeName = (v) => (v === null ? "null" : Array.isArray(v) ? "an array" : `a ${typeof v}`);

class Article extends Container {
  static className = "ArticleNode";  // beside the Swift plugin's Article on one host
  // The page's text sits within the root view's layout margins, so it asks to hear when they change.
  static optionalHooks = ["viewLayoutMarginsDidChange"];

  constructor(id) {
    super(id);
    this.template = null;
    this.html = null;
    this.marginChanges = 0;
  }

  viewDidLoad() { return { nodes: this.loadTemplate().nodeCount }; }

  viewLayoutMarginsDidChange() {
    this.marginChanges += 1;
    return { marginChanges: this.marginChanges };
  }

  configure() {
    // Data from init is rendered by the first configure that brings none (the kit keeps it in this.data).
    const data = this.data;
    if (!data || typeof data !== "object" || Array.isArray(data)) {
      throw new PluginError(`Article.configure expects data to be an object, got ${typeName(data)}`);
    }
    if (data.fail === true) throw new PluginError(`Article.configure failed on purpose: data.fail is true (container ${this.id})`);
    const template = this.loadTemplate();
    const context = { ...data, container: this.id };
    if (this.size) context.viewport = this.size;
    const page = template.render(context);
    this.html = page;
    const output = {
      bytes: Buffer.byteLength(page), checksum: checksum(page),
      title: typeof context.title === "string" ? context.title : null, size: this.size,
    };
    if (context.includeHTML === true) output.html = page;
    return output;
  }

  didReceiveMemoryWarning() {
    const freed = this.html ? Buffer.byteLength(this.html) : 0;
    this.html = null;
    return { freed };
  }

  deinit() {
    this.template = null;
    this.html = null;
    this.data = null;
  }

  loadTemplate() {
    if (!this.template) {
      this.template = new Template(TEMPLATE);
      log.debug(`parsed the template for ${this.id}`);
    }
    return this.template;
  }

  get memoryBytes() {
    return 256 + (this.template?.byteCount ?? 0) + (this.html ? Buffer.byteLength(this.html) : 0) + estimate(this.data);
  }
}

serve("article-node", [Article], { version: "1.0.0" });
