// Writes dist/openapi.json from the contract, so the document can never drift from the code.
import { mkdirSync, writeFileSync } from 'node:fs';
import { generateOpenApi } from '@ts-rest/open-api';
import { contract } from '../src/contract';
import { API_VERSION } from '../src/texts';

const document = generateOpenApi(
  contract,
  {
    info: {
      title: 'Domain Index Search API',
      version: API_VERSION,
      description:
        'Read-only search over domain names currently listed on five marketplaces. Every request needs `Authorization: Bearer <API_KEY>`.',
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
    security: [{ bearer: [] }],
  },
  { setOperationId: true },
);

const outDir = new URL('../dist/', import.meta.url);
mkdirSync(outDir, { recursive: true });
writeFileSync(new URL('openapi.json', outDir), `${JSON.stringify(document, null, 2)}\n`);
console.log(`wrote ${new URL('openapi.json', outDir).pathname}`);
