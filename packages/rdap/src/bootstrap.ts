import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** IANA's RDAP bootstrap file for DNS (RFC 9224 §4): each service is [labels, base URLs]. */
export const bootstrapFileSchema = z.object({
  version: z.literal('1.0'),
  publication: z.string().datetime({ offset: true }),
  description: z.string().optional(),
  services: z.array(
    z.tuple([
      z.array(z.string().min(1)).min(1),
      z
        .array(
          z
            .string()
            .url()
            .refine((url) => /^https?:\/\//i.test(url), 'a base URL must be http or https'),
        )
        .min(1),
    ]),
  ),
});

/** A bootstrap file whose shape was checked. */
export type BootstrapFile = z.infer<typeof bootstrapFileSchema>;

/**
 * Checks a bootstrap file's shape: the parsed file, or an Error that says where it is wrong
 * (`services.3.1.0: Invalid url`), so a log line can say why a file was refused.
 */
export function parseBootstrapFile(value: unknown): BootstrapFile {
  const result = bootstrapFileSchema.safeParse(value);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  const where = first === undefined || first.path.length === 0 ? 'the file' : first.path.join('.');
  throw new Error(`malformed RDAP bootstrap file: ${where}: ${first?.message ?? 'invalid'}`);
}

/**
 * The servers of a bootstrap file by label sequence. A domain is looked up by its longest
 * matching label sequence (RFC 9224 §4: `example.co.uk` matches an entry `co.uk` before `uk`).
 */
export class BootstrapTable {
  readonly publication: Date;
  private readonly servers = new Map<string, string>();

  constructor(readonly file: BootstrapFile) {
    this.publication = new Date(file.publication);
    for (const [labels, urls] of file.services) {
      const server = preferredServer(urls);
      for (const label of labels) {
        const key = label.toLowerCase().replace(/\.$/, '');
        if (!this.servers.has(key)) this.servers.set(key, server);
      }
    }
  }

  /** The base URL for a domain (ASCII, any case), exactly as the file gives it; null when no entry matches. */
  serverFor(domain: string): string | null {
    const labels = domain.toLowerCase().replace(/\.$/, '').split('.');
    for (let start = 0; start < labels.length; start++) {
      const found = this.servers.get(labels.slice(start).join('.'));
      if (found !== undefined) return found;
    }
    return null;
  }

  /** How many label sequences the file names. */
  get size(): number {
    return this.servers.size;
  }
}

/** RFC 9224 §3 leaves the choice among a service's URLs to the client: the first https one, else the first. */
function preferredServer(urls: [string, ...string[]] | string[]): string {
  return urls.find((url) => /^https:/i.test(url)) ?? urls[0];
}

const SHIPPED = new URL('./iana-dns-bootstrap.json', import.meta.url);

/** The copy of IANA's dns.json that ships with this package, for a first start without network (the README says where it came from). */
export function shippedBootstrap(): BootstrapFile {
  return parseBootstrapFile(JSON.parse(readFileSync(SHIPPED, 'utf8')));
}
