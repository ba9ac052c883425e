#!/usr/bin/env node
// The workspace ships TypeScript sources (internal packages are not prebuilt); tsx compiles
// them on load, which costs a fraction of a second at start and nothing per request.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
