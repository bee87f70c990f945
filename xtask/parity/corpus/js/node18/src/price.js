// Prices in cents.
function price(text) {
  const [dollars, cents = '0'] = text.replace('$', '').split('.');
  return Number(dollars) * 100 + Number(cents.padEnd(2, '0'));
}

function total(items) {
  return items.reduce((sum, [p, qty]) => sum + price(p) * qty, 0);
}

export { price, total };
