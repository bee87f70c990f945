// Prices in cents.
export function price(text: string): number {
  const [dollars, cents = '0'] = text.replace('$', '').split('.');
  return Number(dollars) * 100 + Number(cents.padEnd(2, '0'));
}

export function total(items: Array<[string, number]>): number {
  return items.reduce((sum, [p, qty]) => sum + price(p) * qty, 0);
}
