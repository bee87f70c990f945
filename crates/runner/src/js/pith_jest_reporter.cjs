// pith's jest reporter: streams one JSON record per line as test files and tests start and
// finish, so a run pith kills at its deadline, or that dies in band, still tells what finished
// and what was running. Results of a finished run are read from jest's own --json report; these
// records stand in for it when jest never wrote it.
//
// The records go beside jest's --outputFile (`<name>.events.jsonl`): no variable in the tests'
// environment. Tests run in band share this process's `fs` module, so everything the reporter
// needs is a private copy taken when it loads: a test that replaces `fs.writeSync` or
// `JSON.stringify` cannot break it. A record that cannot be written is counted, and the count
// is written as a fault record as soon as writing works again.
'use strict';
const fs = require('fs');

const openSync = fs.openSync;
const writeSync = fs.writeSync;
const stringify = JSON.stringify;
const toStr = String;
const isArray = Array.isArray;
const slice = Function.prototype.call.bind(String.prototype.slice);
const replace = Function.prototype.call.bind(String.prototype.replace);

// Bytes of one message kept from its start and from its end (its stack is there).
const HEAD = 48 * 1024;
const TAIL = 16 * 1024;
// Messages kept per test.
const MESSAGES = 8;

function cap(text) {
  const s = typeof text === 'string' ? text : toStr(text);
  if (s.length <= HEAD + TAIL) return s;
  return slice(s, 0, HEAD) + `\n[... ${s.length - HEAD - TAIL} characters cut by pith ...]\n` + slice(s, s.length - TAIL);
}

function messages(list) {
  const out = [];
  if (!isArray(list)) return out;
  for (let i = 0; i < list.length && i < MESSAGES; i++) out[out.length] = cap(list[i]);
  return out;
}

function names(r) {
  const out = [];
  const a = r && isArray(r.ancestorTitles) ? r.ancestorTitles : [];
  for (let i = 0; i < a.length; i++) out[out.length] = toStr(a[i]);
  out[out.length] = toStr(r ? r.title : '');
  return out;
}

class PithReporter {
  constructor(globalConfig) {
    const out = globalConfig && typeof globalConfig.outputFile === 'string' ? globalConfig.outputFile : null;
    this.path = out ? replace(out, /\.json$/, '') + '.events.jsonl' : null;
    this.fd = null;
    this.faults = 0;
    this.reported = 0;
    this.firstFault = null;
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
          this.firstFault = toStr(e && e.message ? e.message : e);
        } catch (_) {
          this.firstFault = 'unknown error';
        }
      }
    }
  }

  onRunStart(results) {
    this.write({ e: 'run', files: results && results.numTotalTestSuites });
  }

  // jest >= 28 calls onTestFileStart, older ones onTestStart.
  onTestFileStart(test) {
    this.write({ e: 'file', path: test.path });
  }

  onTestStart(test) {
    this.write({ e: 'file', path: test.path });
  }

  onTestCaseStart(test, info) {
    this.write({ e: 'start', path: test.path, names: names(info) });
  }

  onTestCaseResult(test, r) {
    this.write({
      e: 'case',
      status: toStr(r.status),
      messages: messages(r.failureMessages),
      path: test.path,
      names: names(r),
      line: r.location ? r.location.line : undefined,
    });
  }

  onTestFileResult(test, result) {
    let error = null;
    if (result.testExecError) {
      const e = result.testExecError;
      error = cap(result.failureMessage || toStr(e.stack || e.message));
    }
    this.write({ e: 'done', error, path: test.path });
    // Every test of the file again, failures first: jest < 29.6 reports tests only here, and
    // this list replaces the streamed one.
    const all = isArray(result.testResults) ? result.testResults : [];
    for (const failed of [true, false]) {
      for (let i = 0; i < all.length; i++) {
        const r = all[i];
        if ((r.status === 'failed') !== failed) continue;
        this.write({
          e: 'case',
          status: toStr(r.status),
          messages: messages(r.failureMessages),
          path: test.path,
          names: names(r),
          line: r.location ? r.location.line : undefined,
          final: true,
        });
      }
    }
  }

  onRunComplete() {
    this.write({ e: 'end', errors: [] });
  }

  getLastError() {
    return undefined;
  }
}

module.exports = PithReporter;
