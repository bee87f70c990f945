export default [
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', describe: 'readonly', test: 'readonly', expect: 'readonly' } },
    rules: { 'no-unused-vars': 'error', 'no-undef': 'error' },
  },
];
