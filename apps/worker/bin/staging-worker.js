// Entry of an import's staging worker thread. Like apps/cli/bin/domain-index.js, it has tsx
// compile the workspace's TypeScript sources on load; a worker thread does not inherit the
// registration.
import { register } from 'tsx/esm/api';

register();
await import('../src/indexing/staging-worker.ts');
