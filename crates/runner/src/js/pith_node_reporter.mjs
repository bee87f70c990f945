// pith's reporter for node's test runner (`node --test --test-reporter=<this file>`): one JSON
// record per event, as the events come, so a run pith kills at its deadline still tells what
// finished and what was running. Errors are flattened to the strings pith reads.
//
// It runs in node's main process (the tests run in child processes), and takes private copies
// of what it needs when it loads all the same. Each file's stderr is kept to its head and its
// tail, and each message to a bounded length, so a test that prints without end cannot make the
// records unbounded.
const stringify = JSON.stringify;
const toStr = String;
const slice = Function.prototype.call.bind(String.prototype.slice);

// Characters of one message kept from its start and from its end (its stack is there).
const HEAD = 48 * 1024;
const TAIL = 16 * 1024;
// Characters of each file's stderr passed on from its start; after that, only its last TAIL
// characters, when the file ends.
const STDERR_HEAD = 64 * 1024;

function cap(s) {
  if (typeof s !== 'string') return s;
  if (s.length <= HEAD + TAIL) return s;
  return slice(s, 0, HEAD) + `\n[... ${s.length - HEAD - TAIL} characters cut by pith ...]\n` + slice(s, s.length - TAIL);
}

function error(e, depth = 0) {
  if (e === null || e === undefined) return undefined;
  try {
    if (typeof e !== 'object' || depth > 4) return { message: cap(toStr(e)) };
    const out = {
      failureType: e.failureType,
      name: e.name === undefined ? undefined : toStr(e.name),
      message: e.message === undefined ? undefined : cap(toStr(e.message)),
      code: e.code === undefined ? undefined : toStr(e.code),
      stack: typeof e.stack === 'string' ? cap(e.stack) : undefined,
      exitCode: typeof e.exitCode === 'number' ? e.exitCode : undefined,
      signal: e.signal ? toStr(e.signal) : undefined,
    };
    if (e.cause !== undefined && e.cause !== e) out.cause = error(e.cause, depth + 1);
    // assert.doesNotThrow/doesNotReject/ifError: the error the code really threw.
    if (e.actual !== null && typeof e.actual === 'object' && typeof e.actual.stack === 'string' && e.actual !== e) {
      out.actual = error(e.actual, depth + 1);
    }
    return out;
  } catch (_) {
    return { message: '(an error pith could not read)' };
  }
}

export default async function* pithReporter(source) {
  // Per file: characters of stderr passed on, and the tail held back past the head.
  const seen = new Map();
  const held = new Map();
  const flush = (file) => {
    const tail = held.get(file);
    if (tail === undefined) return undefined;
    held.delete(file);
    const line = stringify({ type: 'test:stderr', file, message: `\n[... stderr cut by pith ...]\n${tail}` }) + '\n';
    return line;
  };
  for await (const event of source) {
    const d = event.data || {};
    if (event.type === 'test:stdout') continue;
    if (event.type === 'test:stderr') {
      const file = d.file;
      const msg = toStr(d.message);
      const n = seen.get(file) || 0;
      if (n < STDERR_HEAD) {
        seen.set(file, n + msg.length);
        yield stringify({ type: event.type, file, message: cap(msg) }) + '\n';
      } else {
        const prev = held.get(file) || '';
        const both = prev + msg;
        held.set(file, both.length > TAIL ? slice(both, both.length - TAIL) : both);
      }
      continue;
    }
    const record = { type: event.type, name: d.name, nesting: d.nesting, file: d.file, line: d.line };
    if (d.details) {
      record.error = error(d.details.error);
      record.kind = d.details.type;
    }
    if (d.skip !== undefined && d.skip !== false) record.skip = true;
    if (d.todo !== undefined && d.todo !== false) record.todo = true;
    if (event.type === 'test:diagnostic') record.message = cap(toStr(d.message));
    // A file's own result comes after its stderr: what was held back goes first.
    if (d.file !== undefined && held.has(d.file) && d.nesting === 0 && (event.type === 'test:pass' || event.type === 'test:fail')) {
      const tail = flush(d.file);
      if (tail) yield tail;
    }
    yield stringify(record) + '\n';
  }
  for (const file of [...held.keys()]) {
    const tail = flush(file);
    if (tail) yield tail;
  }
}
