// `pnpm lint`: the whole workspace in one ESLint run, its types from the two programs
// `pnpm typecheck` checks (the client's, with the DOM's types, first; then tsconfig.json) instead
// of a program per package (160 s on two cores; this takes about 55 s). A package's own
// eslint.config.js still lints it alone, with the same rules.
import { config } from '@domain-index/eslint-config';

export default config(import.meta.dirname, ['./packages/client/tsconfig.json', './tsconfig.json']);
