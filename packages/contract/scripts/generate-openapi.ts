// Writes dist/openapi.json from the contract (src/openapi.ts), for tools that read a file (the
// API serves the same document at /openapi.json, with its own address as the server), and
// dist/openapi-types.ts, what openapi-typescript makes of it: the types scripts/openapi-consumer
// compiles against, as a customer generating their own client would.
import { mkdirSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import { openApiDocument } from '../src/openapi';

const outDir = new URL('../dist/', import.meta.url);
mkdirSync(outDir, { recursive: true });
const document = openApiDocument();
writeFileSync(new URL('openapi.json', outDir), `${JSON.stringify(document, null, 2)}\n`);
writeFileSync(new URL('openapi-types.ts', outDir), astToString(await openapiTS(JSON.stringify(document))));
console.log(`wrote ${new URL('openapi.json', outDir).pathname} and openapi-types.ts`);
