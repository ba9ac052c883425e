// Settings shared by the packages' suites: tooling/vitest.
export { unitSuites as default } from '@domain-index/vitest-config';
