const { mode } = require('../src/mode');

test('test mode', () => {
  expect(mode()).toBe('test');
});
