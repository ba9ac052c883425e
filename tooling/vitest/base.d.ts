import type { ViteUserConfig } from 'vitest/config';

/** Suites of pure code and of a package's own parts. */
export declare const unitSuites: ViteUserConfig;
/** The apps' suites: servers, databases and browsers of their own, two files at a time at least. */
export declare const appSuites: ViteUserConfig;
