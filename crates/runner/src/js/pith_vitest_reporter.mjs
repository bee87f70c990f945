// pith's vitest reporter (vitest 1 to 4): streams one JSON record per line as test files and
// tests start and finish, so a run pith kills at its deadline, or whose worker dies, still
// tells what finished and what was running. Results of a finished run are read from vitest's
// own JSON report; these records add what it drops (error types of files that failed to load,
// errors outside tests, worker deaths, how the run ended).
//
// The records go beside vitest's JSON report (`<name>.events.jsonl`): no variable in the tests'
// environment. Everything the reporter needs is a private copy taken when it loads, and a
// record that cannot be written is counted and reported as a fault record once writing works.
import fs from 'node:fs';

// `pithRecords`: pith_reporter_records.js, appended to this file when pith embeds it.
const { toStr, isArray, cap, messages, eventsPath, Records } = pithRecords(fs);
const startsWith = Function.prototype.call.bind(String.prototype.startsWith);
const search = Function.prototype.call.bind(String.prototype.search);
const indexOf = Function.prototype.call.bind(String.prototype.indexOf);
const slice = Function.prototype.call.bind(String.prototype.slice);

function names(task) {
  const out = [];
  for (let t = task; t && t.type !== 'module'; t = t.parent) out.unshift(toStr(t.name));
  return out;
}

// A task's names below its file, in vitest 1 and 2's task tree (`suite` up to the file; 1.x
// leaves its unnamed default suite, id '', on top-level tasks).
function taskNames(task) {
  const out = [];
  for (let t = task; t && t !== task.file && t.id !== '' && !t.filepath; t = t.suite) out.unshift(toStr(t.name));
  return out;
}

// vitest 1 and 2's result states, as vitest 3's test results name them.
const STATES = { pass: 'passed', fail: 'failed', skip: 'skipped', todo: 'skipped' };

function text(e, depth = 0) {
  try {
    if (e === null || typeof e !== 'object') return cap(toStr(e));
    const name = toStr(e.name || 'Error');
    const head = `${name}: ${e.message ?? ''}`;
    const stack = typeof e.stack === 'string' ? e.stack : '';
    // A stack starts with its error's own `name: message` line; one that does not gets it added.
    const whole = ownWords(stack, name, head, toStr(e.message ?? ''));
    // vitest's diff of expected and received goes between the message and the frames, where
    // jest prints its own.
    const withCause = e.cause !== undefined && e.cause !== null && e.cause !== e && depth < 4
      ? `${whole}\n[cause]: ${text(e.cause, depth + 1)}`
      : whole;
    return cap(typeof e.diff === 'string' && e.diff ? withDiff(withCause, e.diff) : withCause);
  } catch (_) {
    return 'Error: (an error pith could not read)';
  }
}

// A stack taken before its message was set (vitest's timeout: `Error: STACK_TRACE_ERROR`)
// starts with other words: the message replaces them, the frames stay.
function ownWords(stack, name, head, message) {
  if (!startsWith(stack, name)) return `${head}\n${stack}`;
  const at = indexOf(stack, '\n    at ');
  const top = at < 0 ? stack : slice(stack, 0, at);
  const first = slice(message, 0, (indexOf(message, '\n') + 1 || message.length + 1) - 1);
  if (!first || indexOf(top, first) >= 0) return stack;
  return at < 0 ? head : head + slice(stack, at);
}

function withDiff(whole, diff) {
  const at = search(whole, /\n\s+at /);
  return at < 0 ? `${whole}\n\n${diff}` : `${slice(whole, 0, at)}\n\n${diff}${slice(whole, at)}`;
}

function texts(list) {
  return messages(list, text);
}

function unhandled(e) {
  const pick = (v) => (v === undefined || v === null ? undefined : toStr(v));
  return e !== null && typeof e === 'object'
    ? { text: text(e), type: pick(e.type), path: pick(e.VITEST_TEST_PATH), test: pick(e.VITEST_TEST_NAME) }
    : { text: text(e) };
}

// Two sets of hooks: vitest 3 and 4 call the test-module hooks (`onTestRunStart` first, before
// any file runs); vitest 1 and 2 only the task hooks (`onCollected`, `onTaskUpdate`,
// `onFinished`), which vitest 3 still calls beside the others: they record only while no
// test-module hook has been called.
export default class PithReporter {
  constructor() {
    this.records = new Records(text);
    this.modern = false;
    this.ctx = null;
    // vitest 1 and 2: what was recorded, by task id, so each record is written once.
    this.files = new Set();
    this.started = new Set();
    this.ended = new Set();
  }

  onInit(vitest) {
    this.ctx = vitest || null;
    const out = vitest && vitest.config ? vitest.config.outputFile : null;
    const json = out && typeof out === 'object' ? out.json : null;
    if (typeof json === 'string') this.records.path = eventsPath(json);
  }

  // ---- vitest 1 and 2 ----

  task(id) {
    const state = this.ctx && this.ctx.state;
    return state && state.idMap && typeof state.idMap.get === 'function' ? state.idMap.get(id) : undefined;
  }

  fileStarted(file) {
    if (!file || typeof file.filepath !== 'string' || this.files.has(file.id)) return;
    this.files.add(file.id);
    this.write({ e: 'file', path: file.filepath });
  }

  // A task's state as it now stands: a test that started, or finished; a file that ended.
  // `over`: its file ended, so a test skipped without running (no result) is skipped.
  taskState(task, over) {
    if (!task || !task.file) return;
    const file = task.file;
    const skipped = over && (task.mode === 'skip' || task.mode === 'todo') ? 'skip' : '';
    const state = task.result ? toStr(task.result.state) : skipped;
    if (task === file) {
      if (state === 'run') this.fileStarted(file);
      else if (STATES[state] && !this.ended.has(task.id)) this.fileEnded(file);
      return;
    }
    if (task.type !== 'test' && task.type !== 'custom') return;
    if (state === 'run' && !this.started.has(task.id)) {
      this.fileStarted(file);
      this.started.add(task.id);
      this.write({ e: 'start', path: file.filepath, names: taskNames(task) });
    } else if (STATES[state] && !this.ended.has(task.id)) {
      this.fileStarted(file);
      this.ended.add(task.id);
      this.write({
        e: 'case',
        status: STATES[state],
        messages: texts(task.result ? task.result.errors : undefined),
        path: file.filepath,
        names: taskNames(task),
        line: task.location ? task.location.line : undefined,
      });
    }
  }

  // A file ended: its tests' results first (a result the last update did not carry), then
  // the file's own error (one that failed to load or whose hook threw).
  fileEnded(file) {
    const walk = (t) => {
      if (!t || !isArray(t.tasks)) return;
      for (let i = 0; i < t.tasks.length; i++) {
        const c = t.tasks[i];
        if (c && c.type === 'suite') walk(c);
        else this.taskState(c, true);
      }
    };
    walk(file);
    if (this.ended.has(file.id)) return;
    this.fileStarted(file);
    this.ended.add(file.id);
    const errors = (file.result && file.result.errors) || [];
    this.write({ e: 'done', error: errors.length ? texts(errors).join('\n') : null, path: file.filepath });
  }

  onCollected(files) {
    if (this.modern || !isArray(files)) return;
    for (let i = 0; i < files.length; i++) this.fileStarted(files[i]);
  }

  onTaskUpdate(packs) {
    if (this.modern || !isArray(packs)) return;
    for (let i = 0; i < packs.length; i++) {
      const pack = packs[i];
      if (isArray(pack)) this.taskState(this.task(pack[0]));
    }
  }

  onFinished(files, errors) {
    if (this.modern) return;
    if (isArray(files)) for (let i = 0; i < files.length; i++) if (files[i] && files[i].result) this.fileEnded(files[i]);
    const list = [];
    if (isArray(errors)) for (let i = 0; i < errors.length && i < 50; i++) list[list.length] = unhandled(errors[i]);
    this.write({ e: 'end', errors: list });
  }

  // ---- vitest 3 and 4 ----

  write(record) {
    this.records.write(record);
  }

  onTestRunStart(specs) {
    this.modern = true;
    this.write({ e: 'run', files: isArray(specs) ? specs.length : undefined });
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
      status: toStr(r.state),
      messages: texts(r.errors),
      path: test.module.moduleId,
      names: names(test),
      line: test.location ? test.location.line : undefined,
    });
  }

  onTestModuleEnd(module) {
    const errors = module.errors() || [];
    this.write({ e: 'done', error: errors.length ? texts(errors).join('\n') : null, path: module.moduleId });
  }

  onTestRunEnd(modules, errors, reason) {
    const list = [];
    if (isArray(errors)) for (let i = 0; i < errors.length && i < 50; i++) list[list.length] = unhandled(errors[i]);
    this.write({ e: 'end', errors: list, reason: reason === undefined ? undefined : toStr(reason) });
  }
}
