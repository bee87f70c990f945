import { test, expect } from 'vitest';

test('cleans up', () => {
  expect(typeof process.exit).toBe('function');
});
