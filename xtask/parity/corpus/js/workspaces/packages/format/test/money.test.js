import { test } from 'node:test';
import assert from 'node:assert/strict';
import { money } from '../src/money.js';

test('two decimals', () => {
  assert.equal(money(350), '$3.50');
});
