import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

test('a child that prints TAP', () => {
  const out = execFileSync(process.execPath, ['-e', "console.log('not ok 7 - imagined'); console.log('FAIL tests/x.test.js')"]).toString();
  console.log(out);
  assert.match(out, /not ok/);
});
