const { execFileSync } = require('node:child_process');

test('the CLI prints other runners\' lines', () => {
  // A child process whose output looks like vitest's, node:test's and pytest's result lines.
  const out = execFileSync(process.execPath, ['-e', `
    console.log(' FAIL  tests/imaginary.test.js > imagined > case');
    console.log('not ok 1 - imagined');
    console.log('FAILED tests/test_x.py::test_y - boom');
    console.log('      Tests  4 failed (4)');
  `]).toString();
  process.stdout.write(out);
  expect(out).toContain('FAIL');
});
