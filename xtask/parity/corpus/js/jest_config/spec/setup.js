globalThis.CURRENCY = 'USD';
