module.exports = {
  testMatch: ['**/spec/**/*.spec.js'],
  setupFiles: ['<rootDir>/spec/setup.js'],
};
