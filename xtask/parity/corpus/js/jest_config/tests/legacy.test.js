test('not matched by testMatch', () => { throw new Error('never run'); });
