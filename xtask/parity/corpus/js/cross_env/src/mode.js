module.exports = { mode: () => process.env.APP_MODE || 'production' };
