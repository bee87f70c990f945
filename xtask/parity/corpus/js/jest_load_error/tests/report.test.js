const { total } = require('../src/price');

test('report total', () => {
  expect(total([['$1', 1]])).toBe(100);
});
