import { test, expect } from 'vitest';

let attempts = 0;

test('reaches the service', () => {
  attempts += 1;
  expect(attempts).toBeGreaterThan(1);
});
