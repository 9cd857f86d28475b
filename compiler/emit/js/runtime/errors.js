// Errors of a resolution: a RuleError carries its message id (an English phrase of
// the runtime, or text from the rules when params is null) and the position
// "file.rules:LINE" of the rule that failed; it is rendered in its language when read.
import { translate } from "./messages.js";

export class RuleError extends Error {
  constructor(messageId, src = null, params = null, lang = null) {
    super(messageId);
    this.name = "RuleError";
    this.messageId = messageId;
    this.params = params;
    this.src = src;
    this.lang = lang;
  }
  /** Read this error in lang unless a language was chosen already; returns this. */
  inLanguage(lang) {
    if (this.lang === null) this.lang = lang;
    return this;
  }
  get text() {
    return this.params === null ? this.messageId : translate(this.messageId, this.params, this.lang);
  }
  toString() {
    return this.src ? `${this.src}: error: ${this.text}` : this.text;
  }
}
Object.defineProperty(RuleError.prototype, "message", {
  get() { return this.toString(); },
  set(_) {},
  configurable: true,
});

/** Inputs of a procedure that do not fit its parameters. */
export class InputError extends RuleError {}

/** A resolution that needs more work than its limit. */
export class WorkLimitError extends RuleError {}
