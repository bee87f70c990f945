// pith's jest reporter: streams one JSON record per line to $PITH_EVENTS as test files and tests
// start and finish, so a run pith kills at its deadline, or that dies in band, still tells what
// finished and what was running. Results of a finished run are read from jest's own --json
// report; these records stand in for it when jest never wrote it.
'use strict';
const fs = require('fs');

class PithReporter {
  constructor() {
    this.path = process.env.PITH_EVENTS;
    this.fd = null;
  }

  write(record) {
    if (!this.path) return;
    try {
      if (this.fd === null) this.fd = fs.openSync(this.path, 'a');
      fs.writeSync(this.fd, JSON.stringify(record) + '\n');
    } catch (e) {
      // A reporter that throws would change the run it reports on.
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
    this.write({ e: 'start', path: test.path, names: [...(info.ancestorTitles || []), info.title] });
  }

  onTestCaseResult(test, r) {
    this.write({
      e: 'case',
      path: test.path,
      names: [...(r.ancestorTitles || []), r.title],
      status: r.status,
      messages: r.failureMessages || [],
      line: r.location ? r.location.line : undefined,
    });
  }

  onTestFileResult(test, result) {
    const error = result.testExecError
      ? result.failureMessage || String(result.testExecError.stack || result.testExecError.message)
      : null;
    this.write({ e: 'done', path: test.path, error });
    // Tests jest only reports at the end of their file (jest < 29.6 has no onTestCaseResult).
    for (const r of result.testResults || []) {
      this.write({
        e: 'case',
        path: test.path,
        names: [...(r.ancestorTitles || []), r.title],
        status: r.status,
        messages: r.failureMessages || [],
        line: r.location ? r.location.line : undefined,
        final: true,
      });
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
