// pith's exit hook for node's test runner, loaded into every test process with `--require`.
// A test file whose process ends through `process.exit()` loses every result node had not sent
// yet, and node then reports the file as one passing test: the hook records such an exit
// (the process never reached `beforeExit`) in pith's own file, so that run is not called green
// when node reported none of the file's tests (under `--test-force-exit` node itself ends each
// file that way, after its results are sent).
// It listens only; it changes nothing a test can see beyond its two listeners. pith writes this
// file per run with the record file's path in place of the marker below.
'use strict';
const stringify = JSON.stringify;
const DEST = "__PITH_EXITS__";
// node's runner itself loads the hook too: only test processes, which run one file, record.
const file = process.argv[1];
if (typeof file === 'string' && !process.execArgv.includes('--test')) {
  let natural = false;
  process.on('beforeExit', () => {
    natural = true;
  });
  process.on('exit', (code) => {
    if (natural) return;
    try {
      // Loaded only here, on the rare exit it records: `require('fs')` when the hook loads
      // costs every test process ~2 ms.
      const fs = require('fs');
      const fd = fs.openSync(DEST, 'a');
      fs.writeSync(fd, stringify({ type: 'pith:exit', file, code }) + '\n');
    } catch (_) {
      // Nothing to tell it to: the file's own result stands.
    }
  });
}
