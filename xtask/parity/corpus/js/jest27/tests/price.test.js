const { price, total } = require('../src/price');

describe('price', () => {
  test('dollars', () => {
    expect(price('$3')).toBe(300);
  });
  test('cents', () => {
    expect(price('$3.5')).toBe(350);
  });
  test.skip('euros', () => {});
});

test('total', () => {
  expect(total([['$1.25', 2], ['$0.5', 1]])).toBe(300);
});
