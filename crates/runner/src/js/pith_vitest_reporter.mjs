// pith's vitest reporter (vitest >= 3): streams one JSON record per line as test files and
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

export default class PithReporter {
  constructor() {
    this.records = new Records(text);
  }

  onInit(vitest) {
    const out = vitest && vitest.config ? vitest.config.outputFile : null;
    const json = out && typeof out === 'object' ? out.json : null;
    if (typeof json === 'string') this.records.path = eventsPath(json);
  }

  write(record) {
    this.records.write(record);
  }

  onTestRunStart(specs) {
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
