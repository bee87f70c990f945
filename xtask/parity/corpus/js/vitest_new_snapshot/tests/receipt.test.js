import { test, expect } from 'vitest';
import { receipt } from '../src/receipt.js';

test('receipt layout', () => {
  expect(receipt([['apple', 120], ['pear', 99]])).toMatchSnapshot();
});
