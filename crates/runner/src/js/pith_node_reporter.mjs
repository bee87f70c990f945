// pith's reporter for node's test runner (`node --test --test-reporter=<this file>`): one JSON
// record per event, as the events come, so a run pith kills at its deadline still tells what
// finished and what was running. Errors are flattened to the strings pith reads.
function error(e, depth = 0) {
  if (e === null || e === undefined) return undefined;
  if (typeof e !== 'object' || depth > 4) return { message: String(e) };
  const out = {
    name: e.name === undefined ? undefined : String(e.name),
    message: e.message === undefined ? undefined : String(e.message),
    code: e.code === undefined ? undefined : String(e.code),
    failureType: e.failureType,
    stack: typeof e.stack === 'string' ? e.stack : undefined,
    exitCode: typeof e.exitCode === 'number' ? e.exitCode : undefined,
    signal: e.signal ? String(e.signal) : undefined,
  };
  if (e.cause !== undefined && e.cause !== e) out.cause = error(e.cause, depth + 1);
  return out;
}

export default async function* pithReporter(source) {
  for await (const event of source) {
    const d = event.data || {};
    const record = { type: event.type, name: d.name, nesting: d.nesting, file: d.file, line: d.line };
    if (d.details) {
      record.kind = d.details.type;
      record.error = error(d.details.error);
    }
    if (d.skip !== undefined && d.skip !== false) record.skip = true;
    if (d.todo !== undefined && d.todo !== false) record.todo = true;
    if (event.type === 'test:stderr' || event.type === 'test:diagnostic') record.message = String(d.message);
    if (event.type === 'test:stdout') continue;
    yield JSON.stringify(record) + '\n';
  }
}
