// Writes dist/openapi.json from the contract (src/openapi.ts), for tools that read a file; the
// API serves the same document at /openapi.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { openApiDocument } from '../src/openapi';

const outDir = new URL('../dist/', import.meta.url);
mkdirSync(outDir, { recursive: true });
writeFileSync(new URL('openapi.json', outDir), `${JSON.stringify(openApiDocument(), null, 2)}\n`);
console.log(`wrote ${new URL('openapi.json', outDir).pathname}`);
