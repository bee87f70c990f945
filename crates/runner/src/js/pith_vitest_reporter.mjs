// pith's vitest reporter (vitest >= 3): streams one JSON record per line to $PITH_EVENTS as test
// files and tests start and finish, so a run pith kills at its deadline, or whose worker dies,
// still tells what finished and what was running. Results of a finished run are read from
// vitest's own JSON report; these records add what it drops (error types of files that failed
// to load, errors outside tests, worker deaths).
import fs from 'node:fs';

function names(task) {
  const out = [];
  for (let t = task; t && t.type !== 'module'; t = t.parent) out.unshift(String(t.name));
  return out;
}

function text(e) {
  if (e === null || typeof e !== 'object') return String(e);
  const head = `${e.name || 'Error'}: ${e.message ?? ''}`;
  const stack = typeof e.stack === 'string' ? e.stack : '';
  // A stack starts with its error's own `name: message` line; one that does not gets it added.
  return stack.startsWith(String(e.name || 'Error')) ? stack : `${head}\n${stack}`;
}

function unhandled(e) {
  const pick = (v) => (v === undefined || v === null ? undefined : String(v));
  return e !== null && typeof e === 'object'
    ? { text: text(e), type: pick(e.type), path: pick(e.VITEST_TEST_PATH), test: pick(e.VITEST_TEST_NAME) }
    : { text: String(e) };
}

export default class PithReporter {
  constructor() {
    this.path = process.env.PITH_EVENTS;
    this.fd = null;
  }

  write(record) {
    if (!this.path) return;
    try {
      if (this.fd === null) this.fd = fs.openSync(this.path, 'a');
      fs.writeSync(this.fd, JSON.stringify(record) + '\n');
    } catch {
      // A reporter that throws would change the run it reports on.
    }
  }

  onTestRunStart(specs) {
    this.write({ e: 'run', files: Array.isArray(specs) ? specs.length : undefined });
  }

  onTestModuleStart(module) {
    this.write({ e: 'file', path: module.moduleId });
  }

  onTestCaseReady(test) {
    this.write({ e: 'start', path: test.module.moduleId, names: names(test) });
  }

  onTestCaseResult(test) {
    const r = test.result();
    this.write({
      e: 'case',
      path: test.module.moduleId,
      names: names(test),
      status: r.state,
      messages: (r.errors || []).map(text),
      line: test.location ? test.location.line : undefined,
    });
  }

  onTestModuleEnd(module) {
    const errors = module.errors() || [];
    this.write({ e: 'done', path: module.moduleId, error: errors.length ? errors.map(text).join('\n') : null });
  }

  onTestRunEnd(modules, errors) {
    this.write({ e: 'end', errors: (errors || []).map(unhandled) });
  }
}
