// Runtime phrases in the players' language: the message ids are English; the
// catalogs (runtime/catalog.js, written by the compiler from the Python runtime's
// gettext catalogs) give each language's phrase. Parameters are filled as Python's
// "%(name)s" / "%(name)r" formatting fills them, so that messages read the same
// in both backends.
import { CATALOGS } from "./catalog.js";
import { pyStr, pyRepr } from "./core.js";

export const DEFAULT_LANGUAGE = "es";

/** A phrase not yet rendered: a message id and its parameters. */
export class Phrase {
  constructor(msgid, params = {}) { this.msgid = msgid; this.params = params; }
  render(lang) { return translate(this.msgid, this.params, lang); }
}

/** A random variable's description, rendered in the phrase's language. */
export class Described {
  constructor(rv) { this.rv = rv; }
  render(lang) { return this.rv.describe(lang || DEFAULT_LANGUAGE); }
}

/** Parts (phrases or text) joined by sep. */
export class Joined {
  constructor(parts, sep) { this.parts = parts; this.sep = sep; }
  get empty() { return this.parts.length === 0; }
  render(lang) { return this.parts.map((p) => rendered(p, lang)).join(this.sep); }
}

function rendered(value, lang) {
  return value instanceof Phrase || value instanceof Described || value instanceof Joined ? value.render(lang) : value;
}

export function translate(msgid, params, lang) {
  const catalog = CATALOGS[lang || DEFAULT_LANGUAGE] || {};
  const text = Object.prototype.hasOwnProperty.call(catalog, msgid) ? catalog[msgid] : msgid;
  if (params === null || params === undefined) return text;
  return text.replace(/%(?:\(([^)]*)\))?([srd%])/g, (whole, name, conv) => {
    if (conv === "%") return "%";
    const value = rendered(params[name], lang);
    return conv === "r" ? pyRepr(value) : pyStr(value);
  });
}
