declare const SVC_VERSION: string;

/** The version baked in at build time by esbuild (the test runner defines it too). */
export const version: string = typeof SVC_VERSION === 'string' ? SVC_VERSION : '0.0.0-dev';
