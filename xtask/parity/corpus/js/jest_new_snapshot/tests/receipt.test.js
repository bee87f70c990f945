const { receipt } = require('../src/receipt');

test('receipt layout', () => {
  expect(receipt([['apple', 120], ['pear', 99]])).toMatchSnapshot();
});

test('empty receipt', () => {
  expect(receipt([])).toBe('');
});
