'use strict';
const assert = require('assert');
const { price, total } = require('../src/price');

describe('price', function () {
  let rounding;
  beforeEach(function () {
    rounding = process.env.PRICE_ROUNDING;
  });

  it('dollars', function () {
    assert.strictEqual(price('$3'), 300);
  });
  it('cents', function () {
    assert.strictEqual(price('$3.5'), 350);
    assert.strictEqual(rounding, 'cents');
  });
  it.skip('euros', function () {});
});

describe('total', function () {
  it('sums quantities', function () {
    assert.strictEqual(total([['$1.25', 2], ['$0.5', 1]]), 300);
  });
});
