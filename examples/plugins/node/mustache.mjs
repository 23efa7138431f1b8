// A Mustache-style template, parsed once and rendered many times: the Article example's engine, ported from
// examples/plugins/Article/Template.swift so that the same data renders the same bytes.
// {{name}} (HTML-escaped), {{{name}}} or {{&name}} (raw), {{#name}}...{{/name}} (repeated for each element
// of an array, once for any other truthy value), {{^name}}...{{/name}} (when falsy), {{! comment}}. Names
// may be dotted (author.name); "." is the current element.

const MISSING = Symbol("missing");

export class TemplateError extends Error {
  constructor(message, line) { super(`template line ${line}: ${message}`); }
}

export class Template {
  constructor(source) {
    const parser = new Parser(source);
    const [nodes, closing] = parser.parse(null);
    if (closing !== null) throw new TemplateError(`{{/${closing}}} closes no section`, parser.line);
    this.nodes = nodes;
    [this.byteCount, this.nodeCount] = measure(nodes);
  }

  render(data) {
    const out = [];
    render(this.nodes, [data], out);
    return out.join("");
  }
}

const utf8Length = (s) => Buffer.byteLength(s, "utf8");

function measure(nodes) {
  let bytes = 0, count = 0;
  for (const node of nodes) {
    count += 1;
    bytes += 32;
    if (node.type === "text") bytes += utf8Length(node.text);
    else bytes += node.path.reduce((n, p) => n + utf8Length(p) + 16, 0);
    if (node.type === "section") {
      const [b, c] = measure(node.body);
      bytes += b;
      count += c;
    }
  }
  return [bytes, count];
}

function render(nodes, stack, out) {
  for (const node of nodes) {
    if (node.type === "text") { out.push(node.text); continue; }
    const value = lookup(node.path, stack);
    if (node.type === "variable") {
      if (value === MISSING) continue;
      const text = format(value);
      out.push(node.escaped ? escapeHTML(text) : text);
      continue;
    }
    if (node.inverted) {
      if (!truthy(value)) render(node.body, stack, out);
      continue;
    }
    if (!truthy(value)) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      stack.push(item);
      render(node.body, stack, out);
      stack.pop();
    }
  }
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function lookup(path, stack) {
  if (path.length === 1 && path[0] === ".") return stack[stack.length - 1];
  let value = MISSING;
  for (let i = stack.length - 1; i >= 0; i--) {
    if (isObject(stack[i]) && Object.hasOwn(stack[i], path[0])) { value = stack[i][path[0]]; break; }
  }
  for (const name of path.slice(1)) value = isObject(value) && Object.hasOwn(value, name) ? value[name] : MISSING;
  return value;
}

function truthy(v) {
  if (v === MISSING || v === null || v === false) return false;
  if (Array.isArray(v) || typeof v === "string") return v.length > 0;
  return true;
}

function format(v) {
  if (v === null) return "";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 1e15 ? String(v) : String(v);
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHTML = (t) => t.replace(/[&<>"']/g, (c) => ESCAPES[c]);

function countLines(s, from, to) {
  let n = 0;
  for (let i = from; i < to; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}

function parsePath(tag, line) {
  const name = tag.trim();
  if (!name) throw new TemplateError("empty tag", line);
  if (name === ".") return ["."];
  const parts = name.split(".");
  if (parts.some((p) => !p)) throw new TemplateError(`bad name ${name}`, line);
  return parts;
}

class Parser {
  constructor(source) {
    this.s = source;
    this.i = 0;
    this.line = 1;
  }

  parse(section) {
    const s = this.s;
    const nodes = [];
    let textStart = this.i;
    for (;;) {
      const j = s.indexOf("{{", this.i);
      if (j < 0) {
        this.line += countLines(s, this.i, s.length);
        this.i = s.length;
        break;
      }
      this.line += countLines(s, this.i, j);
      if (j > textStart) nodes.push({ type: "text", text: s.slice(textStart, j) });
      const tagLine = this.line;
      const triple = s.startsWith("{{{", j);
      const start = j + (triple ? 3 : 2);
      const close = triple ? "}}}" : "}}";
      const end = s.indexOf(close, start);
      if (end < 0) throw new TemplateError("unclosed tag", tagLine);
      const raw = s.slice(start, end);
      this.line += countLines(raw, 0, raw.length);
      this.i = end + close.length;
      textStart = this.i;
      if (triple) { nodes.push({ type: "variable", path: parsePath(raw, tagLine), escaped: false }); continue; }
      const sigil = raw[0];
      const tag = sigil && "#^/!&".includes(sigil) ? raw.slice(1) : raw;
      if (sigil === "!") continue;
      if (sigil === "&") {
        nodes.push({ type: "variable", path: parsePath(tag, tagLine), escaped: false });
      } else if (sigil === "#" || sigil === "^") {
        const path = parsePath(tag, tagLine);
        const name = path.join(".");
        const [body, closing] = this.parse(name);
        if (closing !== name) throw new TemplateError(`section {{${sigil}${name}}} is never closed`, tagLine);
        nodes.push({ type: "section", path, inverted: sigil === "^", body });
        textStart = this.i;
      } else if (sigil === "/") {
        const name = parsePath(tag, tagLine).join(".");
        if (name !== section) throw new TemplateError(`{{/${name}}} closes ${section ? `{{#${section}}}` : "no section"}`, tagLine);
        return [nodes, name];
      } else {
        nodes.push({ type: "variable", path: parsePath(tag, tagLine), escaped: true });
      }
    }
    if (s.length > textStart) nodes.push({ type: "text", text: s.slice(textStart) });
    return [nodes, null];
  }
}
