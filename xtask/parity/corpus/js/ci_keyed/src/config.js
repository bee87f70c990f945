// CI gets one worker and retries; a developer's machine four workers.
module.exports = { workers: process.env.CI ? 1 : 4 };
