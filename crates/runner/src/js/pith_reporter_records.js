// What pith's jest and vitest reporters share: private copies of what they need, taken when
// they load, message capping, and the records file with its fault counting. Not a module of its
// own: pith appends this text to each reporter when it embeds it (`command.rs`), so one file is
// installed and loaded, CommonJS (jest) or ES module (vitest) alike, and no module resolution
// of the project's can reach it. `pithRecords` is a function declaration: the reporter's code
// above it can call it when it loads.

// The reporter's toolkit over `fs`, copied now: a test that replaces `fs.writeSync` or
// `JSON.stringify` afterwards cannot break it.
function pithRecords(fs) {
  const openSync = fs.openSync;
  const writeSync = fs.writeSync;
  const stringify = JSON.stringify;
  const toStr = String;
  const isArray = Array.isArray;
  const slice = Function.prototype.call.bind(String.prototype.slice);
  const replace = Function.prototype.call.bind(String.prototype.replace);

  // Characters of one message kept from its start and from its end (its stack is there).
  const HEAD = 48 * 1024;
  const TAIL = 16 * 1024;
  // Messages kept per test.
  const MESSAGES = 8;

  function cap(text) {
    const s = typeof text === 'string' ? text : toStr(text);
    if (s.length <= HEAD + TAIL) return s;
    return slice(s, 0, HEAD) + `\n[... ${s.length - HEAD - TAIL} characters cut by pith ...]\n` + slice(s, s.length - TAIL);
  }

  // The first MESSAGES of a list, each as `text` makes it.
  function messages(list, text) {
    const out = [];
    if (!isArray(list)) return out;
    for (let i = 0; i < list.length && i < MESSAGES; i++) out[out.length] = text(list[i]);
    return out;
  }

  // The records file beside the runner's JSON report (`<name>.events.jsonl`): no variable in
  // the tests' environment.
  function eventsPath(json) {
    return replace(json, /\.json$/, '') + '.events.jsonl';
  }

  // One JSON record per line, appended to `path` (set once the report's path is known). A
  // record that cannot be written is counted, and the count is written as a fault record, with
  // the first error as `describe` tells it, as soon as writing works again.
  class Records {
    constructor(describe) {
      this.path = null;
      this.fd = null;
      this.faults = 0;
      this.reported = 0;
      this.firstFault = null;
      this.describe = describe;
    }

    write(record) {
      if (!this.path) return;
      try {
        if (this.fd === null) this.fd = openSync(this.path, 'a');
        writeSync(this.fd, stringify(record) + '\n');
        if (this.faults > this.reported) {
          const n = this.faults;
          writeSync(this.fd, stringify({ e: 'fault', count: n, error: this.firstFault }) + '\n');
          this.reported = n;
        }
      } catch (e) {
        // A reporter that throws would change the run it reports on: count the lost record,
        // and open the file again next time (a test may have closed the descriptor).
        this.faults++;
        this.fd = null;
        if (this.firstFault === null) {
          try {
            this.firstFault = this.describe(e);
          } catch (_) {
            this.firstFault = 'unknown error';
          }
        }
      }
    }
  }

  return { toStr, isArray, cap, messages, eventsPath, Records };
}
