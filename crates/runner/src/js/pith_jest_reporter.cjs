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
//
// Tracing inside the run: when pith left `<outputFile>.trace` beside the report (the run then
// collects istanbul coverage of the changed files alone), the coverage of the first failing
// test files (jest collects it around each test file, so that is the finest it can tell) is
// written as istanbul's JSON, per test file: `<outputFile>.traced.json` lists `{path, file}`.
// `pithRecords`: pith_reporter_records.js, appended to this file when pith embeds it.
const fsCopy = require('fs');
const { toStr, isArray, cap, messages, eventsPath, Records } = pithRecords(fsCopy);
const existsSync = fsCopy.existsSync;
const writeFileSync = fsCopy.writeFileSync;
const stringify = JSON.stringify;

// Failing test files traced at most (pith traces five failing tests at most).
const TRACED_FILES = 5;

function names(r) {
  const out = [];
  const a = r && isArray(r.ancestorTitles) ? r.ancestorTitles : [];
  for (let i = 0; i < a.length; i++) out[out.length] = toStr(a[i]);
  out[out.length] = toStr(r ? r.title : '');
  return out;
}

// A test's result; `final` marks the list written again when its file ends.
function caseRecord(test, r, final) {
  return {
    e: 'case',
    status: toStr(r.status),
    messages: messages(r.failureMessages, cap),
    path: test.path,
    names: names(r),
    line: r.location ? r.location.line : undefined,
    final,
  };
}

class PithReporter {
  constructor(globalConfig) {
    const out = globalConfig && typeof globalConfig.outputFile === 'string' ? globalConfig.outputFile : null;
    this.records = new Records((e) => toStr(e && e.message ? e.message : e));
    this.records.path = out ? eventsPath(out) : null;
    this.out = out;
    // Failing test files with their coverage, when pith asked for tracing.
    this.traced = out && existsSync(out + '.trace') ? [] : null;
  }

  write(record) {
    this.records.write(record);
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
    this.write(caseRecord(test, r, undefined));
  }

  onTestFileResult(test, result) {
    try {
      const failed = result && (result.numFailingTests > 0 || result.testExecError);
      if (this.traced && failed && result.coverage && this.traced.length < TRACED_FILES) {
        this.traced.push({ path: test.path, coverage: result.coverage });
      }
    } catch (e) {}
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
        this.write(caseRecord(test, r, true));
      }
    }
  }

  onRunComplete() {
    this.write({ e: 'end', errors: [] });
    if (!this.traced || this.traced.length === 0) return;
    try {
      const index = [];
      for (let i = 0; i < this.traced.length; i++) {
        const file = this.out + '.traced-' + i + '.json';
        writeFileSync(file, stringify(this.traced[i].coverage));
        index[index.length] = { path: this.traced[i].path, file };
      }
      writeFileSync(this.out + '.traced.json', stringify(index));
    } catch (e) {}
  }

  getLastError() {
    return undefined;
  }
}

module.exports = PithReporter;
