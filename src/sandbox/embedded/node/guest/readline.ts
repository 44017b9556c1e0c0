/**
 * Guest source of `readline` and `readline/promises`: line events, question(), prompts and async
 * iteration over any readable stream, the terminal's process.stdin included (lines then arrive as
 * they are typed). No line editing or history: the terminal does the editing before Enter.
 */
export const GUEST_READLINE = `
const EventEmitter = require("events");
const LINE_END = /\\r\\n|\\n|\\r/;
class Interface extends EventEmitter {
  constructor(input, output, completer, terminal) {
    super();
    const options = input && typeof input.on !== "function" && input.input ? input : { input, output, terminal };
    this.input = options.input;
    this.output = options.output;
    this.terminal = false;
    this.line = "";
    this.closed = false;
    this._prompt = options.prompt !== undefined ? String(options.prompt) : "> ";
    this._buffer = "";
    this._questions = [];
    this._promises = false;
    this._ondata = (chunk) => this._typed(String(chunk));
    this._onend = () => {
      // As Node: an unfinished last line goes to 'line' listeners, never to a pending question.
      if (this._buffer !== "") { const rest = this._buffer; this._buffer = ""; this.emit("line", rest); }
      this.close();
    };
    this.input.on("data", this._ondata);
    this.input.on("end", this._onend);
    if (typeof this.input.resume === "function") this.input.resume();
  }
  _typed(text) {
    this._buffer += text;
    for (;;) {
      const match = LINE_END.exec(this._buffer);
      if (!match || this.closed) return;
      const line = this._buffer.slice(0, match.index);
      this._buffer = this._buffer.slice(match.index + match[0].length);
      this._line(line);
    }
  }
  _line(line) {
    const answer = this._questions.shift();
    if (answer) answer(line); else this.emit("line", line);
  }
  setPrompt(prompt) { this._prompt = String(prompt); }
  getPrompt() { return this._prompt; }
  prompt() { if (this.closed) throw useAfterClose(); if (this.output) this.output.write(this._prompt); }
  question(query, options, callback) {
    if (typeof options === "function") callback = options;
    if (this.closed) {
      if (this._promises) return Promise.reject(useAfterClose());
      throw useAfterClose();
    }
    if (this.output) this.output.write(String(query));
    if (this._promises && typeof callback !== "function") return new Promise((resolve) => this._questions.push(resolve));
    this._questions.push(callback);
  }
  write(data) { if (!this.closed && data !== undefined && data !== null) this._typed(String(data)); }
  pause() { if (typeof this.input.pause === "function") this.input.pause(); this.emit("pause"); return this; }
  resume() { if (typeof this.input.resume === "function") this.input.resume(); this.emit("resume"); return this; }
  close() {
    if (this.closed) return;
    this.closed = true;
    this.input.removeListener("data", this._ondata);
    this.input.removeListener("end", this._onend);
    if (typeof this.input.pause === "function") this.input.pause();
    this.emit("close");
  }
  getCursorPos() { return { rows: 0, cols: 0 }; }
  [Symbol.asyncIterator]() {
    const lines = [];
    let done = this.closed;
    let wake = null;
    this.on("line", (line) => { lines.push(line); if (wake) wake(); });
    this.on("close", () => { done = true; if (wake) wake(); });
    const rl = this;
    return {
      async next() {
        for (;;) {
          if (lines.length) return { done: false, value: lines.shift() };
          if (done) return { done: true, value: undefined };
          await new Promise((resolve) => { wake = resolve; });
          wake = null;
        }
      },
      async return() { rl.close(); return { done: true, value: undefined }; },
      [Symbol.asyncIterator]() { return this; },
    };
  }
}
function useAfterClose() {
  const err = new Error("readline was closed");
  err.code = "ERR_USE_AFTER_CLOSE";
  return err;
}
const done = (callback) => { if (typeof callback === "function") internal.nextTick(callback); return true; };
module.exports = {
  Interface,
  createInterface: (...args) => new Interface(...args),
  clearLine: (stream, dir, callback) => done(callback),
  clearScreenDown: (stream, callback) => done(callback),
  cursorTo: (stream, x, y, callback) => done(typeof y === "function" ? y : callback),
  moveCursor: (stream, dx, dy, callback) => done(callback),
  emitKeypressEvents() {},
};
`;

/** `readline/promises`: the same interface, with question() returning a promise. */
export const GUEST_READLINE_PROMISES = `
const { Interface } = require("readline");
module.exports = {
  Interface,
  createInterface(...args) { const rl = new Interface(...args); rl._promises = true; return rl; },
};
`;
