jest.retryTimes(2);

let attempts = 0;

test('reaches the service', () => {
  // Fails on its first attempt (a service still starting), passes on a retry.
  attempts += 1;
  expect(attempts).toBeGreaterThan(1);
});
