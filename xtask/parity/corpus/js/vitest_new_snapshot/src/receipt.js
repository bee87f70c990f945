export function receipt(items) {
  return items.map(([name, cents]) => `${name.padEnd(10)}${(cents / 100).toFixed(2)}`).join('\n');
}
