// Settings shared by the apps' suites: tooling/vitest.
export { appSuites as default } from '@domain-index/vitest-config';
