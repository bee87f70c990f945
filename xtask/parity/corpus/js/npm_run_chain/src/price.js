// Prices in cents.
/** @param {string} text */
export function price(text) {
  const [dollars, cents = '0'] = text.replace('$', '').split('.');
  return Number(dollars) * 100 + Number(cents.padEnd(2, '0'));
}

/** @param {Array<[string, number]>} items */
export function total(items) {
  return items.reduce((sum, [p, qty]) => sum + price(p) * qty, 0);
}
