export const workers = process.env.CI ? 1 : 4;
