const config = require('../src/config');

test('local workers', () => {
  expect(config.workers).toBe(4);
});
