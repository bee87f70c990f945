// pith's mocha reporter: mocha takes one `--reporter`, so this one stands in for the project's
// and runs it inside itself on the same runner (the reporter the script names, else the one the
// project's `.mocharc.*` or `package.json` names, else mocha's default `spec`), so what a person
// reads is printed as `npm test` prints it. Beside it, it streams one JSON record per line as
// tests start and end (the records jest's reporter writes: `file`, `start`, `case`, `done`,
// `end`), so a run pith kills at its deadline, or that dies in band, still tells what finished
// and what was running. The end record carries mocha's own totals (its stats collector), which
// pith checks the records against.
//
// Every runner object is read through what survives mocha's parallel mode, where the reporter
// gets serialized events (`titlePath()`, `file`, `title`, `type`, `err`; no `parent` chain):
// <https://mochajs.org/#reporter-limitations>.
//
// pith writes this file per run with the records' path in it: no variable in the tests'
// environment, no `--reporter-option` that would replace the project's own.
'use strict';
// `pithRecords`: pith_reporter_records.js, appended to this file when pith embeds it.
const fsCopy = require('fs');
const { toStr, isArray, cap, Records } = pithRecords(fsCopy);
const keys = Object.keys;
const test = Function.prototype.call.bind(RegExp.prototype.test);

// Set by pith when it writes this file: where the records go, and the reporter the script
// names (`null`: the project's configuration decides).
const EVENTS = '__PITH_EVENTS__';
const PROJECT_REPORTER = '__PITH_PROJECT_REPORTER__';

// mocha's own modules, as the running mocha loaded them.
function mochaModule(rel) {
  const cache = require.cache;
  const ks = keys(cache);
  for (let i = 0; i < ks.length; i++) {
    if (test(/[\\/]mocha[\\/]lib[\\/]mocha\.js$/, ks[i])) {
      return require(ks[i].slice(0, ks[i].length - 'mocha.js'.length) + rel);
    }
  }
  return null;
}

// The reporter the project's own configuration names, read as mocha reads it (its rc file or
// `package.json`'s `mocha` key, `--config`/`--package` honoured): the command line without
// pith's `--reporter`.
function configuredReporter() {
  try {
    const options = mochaModule('cli/options.js');
    if (!options || typeof options.loadOptions !== 'function') return null;
    const argv = process.argv.slice(2);
    const own = [];
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i];
      if ((a === '--reporter' || a === '-R') && argv[i + 1] === __filename) {
        i++;
        continue;
      }
      if (a === '--reporter=' + __filename) continue;
      own[own.length] = a;
    }
    const r = options.loadOptions(own).reporter;
    return typeof r === 'string' || typeof r === 'function' ? r : null;
  } catch (e) {
    return null;
  }
}

// The project's reporter class, resolved as mocha resolves `--reporter` (built-in names, then
// packages, then paths).
function projectReporter() {
  const name = PROJECT_REPORTER || configuredReporter() || 'spec';
  const Mocha = mochaModule('mocha.js');
  if (!Mocha) return null;
  const holder = { options: {} };
  Mocha.prototype.reporter.call(holder, name, undefined);
  return holder._reporter;
}

function titles(runnable) {
  try {
    const p = runnable.titlePath();
    if (isArray(p)) {
      const out = [];
      for (let i = 0; i < p.length; i++) out[out.length] = toStr(p[i]);
      return out;
    }
  } catch (e) {}
  return [toStr(runnable && runnable.title)];
}

// An error as pith reads it: its stack (which starts with `Name: message`), else its message.
function errorText(err) {
  if (!err) return 'failed';
  try {
    let s = typeof err.stack === 'string' && err.stack ? err.stack : toStr(err.message || err);
    if (err.message && s.indexOf(err.message) < 0) s = toStr(err.message) + '\n' + s;
    return cap(s);
  } catch (e) {
    return 'failed';
  }
}

// A hook's phase and the test it ran for (`"before each" hook for "adds"`): its records carry
// that test's id, so the id re-runs the hook; a hook with no test (a suite of suites) carries
// its suite's.
function hookRecord(hook) {
  const type = toStr(hook.title);
  const phase = test(/^"(before|setup)/, type) ? 'setup' : 'teardown';
  const path = titles(hook);
  path.length = path.length > 0 ? path.length - 1 : 0;
  let names = path;
  let file = hook.file;
  const current = hook.ctx && hook.ctx.currentTest;
  if (current && current.title !== undefined) {
    const full = typeof current.titlePath === 'function' ? titles(current) : null;
    names = full || path.concat([toStr(current.title)]);
    if (!file && current.file) file = current.file;
  }
  // A root hook (a root hook plugin's, run before any file) with no test: its own title,
  // `"before all" hook: beforeAll in "{root}"`, with no file.
  if (names.length === 0) names = [type];
  return { phase, names, file: file || '', hook: type };
}

function PithReporter(runner, options) {
  const Inner = projectReporter();
  this.inner = Inner ? new Inner(runner, options) : null;
  const records = new Records((e) => toStr(e && e.message ? e.message : e));
  records.path = EVENTS;
  const write = (r) => records.write(r);
  // Tests of one file at a time, as far as the reporter can tell (mocha runs the root suite's
  // tests of every file first; in parallel mode each file's events come when it ends): the
  // file of the last test begun is the one running.
  let current = null;
  const enter = (file) => {
    if (file === current) return;
    if (current !== null) write({ e: 'done', path: current });
    current = file;
    write({ e: 'file', path: file, again: true });
  };
  const retries = new Map();
  const key = (t) => (t.file || '') + '\u0000' + titles(t).join('\u0000');
  const on = (event, f) =>
    runner.on(event, function () {
      try {
        f.apply(null, arguments);
      } catch (e) {
        write({ e: 'fault', count: 1, error: toStr(e && e.message) });
      }
    });
  on('start', () => write({ e: 'run' }));
  on('test', (t) => {
    enter(t.file || '');
    // A retried attempt is the same test still running.
    if (!retries.has(key(t))) write({ e: 'start', path: t.file || '', names: titles(t) });
  });
  on('retry', (t, err) => {
    const k = key(t);
    const l = retries.get(k) || [];
    l[l.length] = errorText(err);
    retries.set(k, l);
  });
  const result = (t, status, messages) => {
    const k = key(t);
    const failed = retries.get(k) || [];
    retries.delete(k);
    write({
      e: 'case',
      status,
      path: t.file || '',
      names: titles(t),
      // A pass after failed attempts (`this.retries()`): those attempts' errors.
      messages: messages.length > 0 ? messages : failed.slice(0, 8),
    });
  };
  on('pass', (t) => result(t, 'passed', []));
  on('pending', (t) => result(t, 'skipped', []));
  on('fail', (t, err) => {
    if (t && t.type === 'hook') {
      const h = hookRecord(t);
      if (h.file) enter(h.file);
      write({
        e: 'case',
        status: 'failed',
        path: h.file,
        names: h.names,
        phase: h.phase,
        hook: h.hook,
        messages: [errorText(err)],
      });
      return;
    }
    enter(t.file || '');
    result(t, 'failed', [errorText(err)]);
  });
  on('suite end', (s) => {
    // A root suite ends with its file in parallel mode, with the run in serial mode.
    if (s && s.root && current !== null) {
      write({ e: 'done', path: current });
      current = null;
    }
  });
  on('end', () => {
    const st = runner.stats || {};
    write({
      e: 'end',
      errors: [],
      totals: { tests: st.tests, passes: st.passes, failures: st.failures, pending: st.pending },
    });
  });
}

// mocha calls `done` when the run ends, if the reporter has one (xunit writes its file there).
PithReporter.prototype.done = function (failures, fn) {
  if (this.inner && typeof this.inner.done === 'function') return this.inner.done(failures, fn);
  if (typeof fn === 'function') fn(failures);
};

module.exports = PithReporter;
