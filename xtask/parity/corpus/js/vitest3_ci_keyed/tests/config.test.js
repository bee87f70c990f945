import { test, expect } from 'vitest';
import { workers } from '../src/config.js';

test('local workers', () => {
  expect(workers).toBe(4);
});
