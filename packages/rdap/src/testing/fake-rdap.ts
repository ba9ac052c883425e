import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The registries a fake serves, each on its own loopback port:
 * `thin` answers like Verisign's .com/.net (registrar only, upper-case names), `thick` like PIR's
 * .org (registrant redacted, more events), `cctld` like a country registry (status, last changed,
 * nameservers, nothing more).
 */
export type FakeRegistryKind = 'thin' | 'thick' | 'cctld';

/** The TLDs each fake registry holds, as the fake's bootstrap names them. */
export const FAKE_TLDS: Record<FakeRegistryKind, string[]> = {
  thin: ['com', 'net'],
  thick: ['org'],
  cctld: ['uk'],
};

/** The state of one name in a fake registry. Dates default to a name registered years ago, expiring next year. */
export interface FakeNameState {
  /** RDAP status values; default ['active'] (thin: ['client transfer prohibited']). */
  statuses?: string[];
  createdAt?: Date;
  expiresAt?: Date | null;
  updatedAt?: Date | null;
  /** Further events, e.g. { eventAction: 'deletion', eventDate: ... }. */
  events?: { eventAction: string; eventDate: Date | string }[];
  registrar?: { name: string; ianaId: number } | null;
  nameservers?: string[];
  /** Answer with this ldhName instead of the name's own (a registry that answers for another name). */
  ldhName?: string;
  /** Answer with this objectClassName instead of 'domain'. */
  objectClassName?: string;
}

/** How a fake registry answers, whatever the name. */
export type FakeBehaviour =
  | { kind: 'normal' }
  | { kind: 'status'; status: number; retryAfter?: string }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'hang' }
  | { kind: 'huge'; bytes: number; declareLength?: boolean }
  /** Redirects to `to` + the request's path after the registry's base path (`domain/<name>`). */
  | { kind: 'redirect'; to: string; status?: number }
  | { kind: 'body'; status: number; body: string };

/** One request a fake registry received. */
export interface FakeRequest {
  at: number;
  path: string;
  accept: string | undefined;
}

/** Loopback RDAP registries and the bootstrap that names them. */
export interface FakeRdap {
  /** http://127.0.0.1:port/dns.json: the bootstrap naming the three registries. */
  bootstrapUrl: string;
  /** Base URLs, as the bootstrap gives them. */
  servers: Record<FakeRegistryKind, string>;
  /** The registry holding a domain, by its TLD; throws for a TLD no fake holds. */
  registryOf(domain: string): FakeRegistryKind;
  /** Creates or changes a name in the registry holding its TLD, or in `registry` (a redirect's target). */
  set(domain: string, state?: FakeNameState, registry?: FakeRegistryKind): void;
  /** Deletes a name: its registry (or `registry`) answers 404. */
  remove(domain: string, registry?: FakeRegistryKind): void;
  /** Sets how a registry answers (default normal). */
  behave(kind: FakeRegistryKind, behaviour: FakeBehaviour): void;
  /** Replaces the bootstrap served (any JSON, or text as it is), e.g. a malformed one; no argument serves the fake's own again. */
  setBootstrap(body?: unknown): void;
  /** The requests a registry received, in order of arrival. */
  requests(kind: FakeRegistryKind): FakeRequest[];
  /** The most requests a registry had in flight at once. */
  maxConcurrent(kind: FakeRegistryKind): number;
  /** Forgets the requests and the maxima. */
  resetCounts(): void;
  /** Ends hanging requests and closes every server. */
  close(): Promise<void>;
}

const DAY = 24 * 60 * 60 * 1000;
const iso = (date: Date | string) => (typeof date === 'string' ? date : date.toISOString());

interface Registry {
  kind: FakeRegistryKind;
  server: Server;
  base: string;
  basePath: string;
  names: Map<string, FakeNameState>;
  behaviour: FakeBehaviour;
  log: FakeRequest[];
  inFlight: number;
  maxInFlight: number;
  hanging: Set<ServerResponse>;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

const BASE_PATHS: Record<FakeRegistryKind, string> = {
  thin: '/com/v1/',
  thick: '/rdap/',
  cctld: '/',
};

/**
 * Starts three loopback RDAP registries (ephemeral ports) and a bootstrap server naming them.
 * Names answer 404 until `set`; their state may change at any time while the servers run.
 */
export async function startFakeRdap(options: { now?: () => Date } = {}): Promise<FakeRdap> {
  const now = options.now ?? (() => new Date());
  const registries = new Map<FakeRegistryKind, Registry>();
  for (const kind of ['thin', 'thick', 'cctld'] as const) {
    const registry: Registry = {
      kind,
      server: createServer(),
      base: '',
      basePath: BASE_PATHS[kind],
      names: new Map(),
      behaviour: { kind: 'normal' },
      log: [],
      inFlight: 0,
      maxInFlight: 0,
      hanging: new Set(),
    };
    registry.server.on('request', (request, response) => handle(registry, request, response, now));
    const port = await listen(registry.server);
    registry.base = `http://127.0.0.1:${port}${registry.basePath}`;
    registries.set(kind, registry);
  }
  const get = (kind: FakeRegistryKind) => registries.get(kind)!;
  const servers = { thin: get('thin').base, thick: get('thick').base, cctld: get('cctld').base };

  const ownBootstrap = JSON.stringify({
    version: '1.0',
    publication: new Date(Date.now() + DAY).toISOString().replace(/\.\d+Z$/, 'Z'),
    description: 'RDAP bootstrap file for the fake registries of @domain-index/rdap/testing',
    services: (['thin', 'thick', 'cctld'] as const).map((kind) => [
      FAKE_TLDS[kind],
      [servers[kind]],
    ]),
  });
  let bootstrapBody = ownBootstrap;
  const bootstrapServer = createServer((request, response) => {
    if (request.url !== '/dns.json') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(bootstrapBody);
  });
  const bootstrapPort = await listen(bootstrapServer);

  const registryOf = (domain: string): FakeRegistryKind => {
    const tld = domain.toLowerCase().split('.').pop() ?? '';
    const kind = (Object.keys(FAKE_TLDS) as FakeRegistryKind[]).find((candidate) =>
      FAKE_TLDS[candidate].includes(tld),
    );
    if (kind === undefined) throw new Error(`no fake registry holds .${tld}`);
    return kind;
  };

  return {
    bootstrapUrl: `http://127.0.0.1:${bootstrapPort}/dns.json`,
    servers,
    registryOf,
    set(domain, state = {}, registry = registryOf(domain)) {
      get(registry).names.set(domain.toLowerCase(), state);
    },
    remove(domain, registry = registryOf(domain)) {
      get(registry).names.delete(domain.toLowerCase());
    },
    behave(kind, behaviour) {
      get(kind).behaviour = behaviour;
    },
    setBootstrap(body) {
      bootstrapBody =
        body === undefined ? ownBootstrap : typeof body === 'string' ? body : JSON.stringify(body);
    },
    requests: (kind) => [...get(kind).log],
    maxConcurrent: (kind) => get(kind).maxInFlight,
    resetCounts() {
      for (const registry of registries.values()) {
        registry.log = [];
        registry.maxInFlight = registry.inFlight;
      }
    },
    async close() {
      const servers = [
        bootstrapServer,
        ...[...registries.values()].map((registry) => registry.server),
      ];
      for (const registry of registries.values())
        for (const response of registry.hanging) response.destroy();
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
    },
  };
}

function handle(
  registry: Registry,
  request: IncomingMessage,
  response: ServerResponse,
  now: () => Date,
): void {
  registry.log.push({ at: Date.now(), path: request.url ?? '', accept: request.headers.accept });
  registry.inFlight++;
  registry.maxInFlight = Math.max(registry.maxInFlight, registry.inFlight);
  response.on('close', () => {
    registry.inFlight--;
    registry.hanging.delete(response);
  });
  const behaviour = registry.behaviour;
  const rdapJson = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    response
      .writeHead(status, { 'content-type': 'application/rdap+json', ...headers })
      .end(JSON.stringify(body));
  switch (behaviour.kind) {
    case 'hang':
      registry.hanging.add(response);
      return;
    case 'status':
      rdapJson(
        behaviour.status,
        { errorCode: behaviour.status, title: `HTTP ${behaviour.status}` },
        behaviour.retryAfter === undefined ? {} : { 'retry-after': behaviour.retryAfter },
      );
      return;
    case 'huge': {
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      response.writeHead(200, {
        'content-type': 'application/rdap+json',
        ...(behaviour.declareLength === true ? { 'content-length': String(behaviour.bytes) } : {}),
      });
      let left = behaviour.bytes;
      const write = () => {
        while (left > 0 && !response.destroyed) {
          const part = chunk.subarray(0, Math.min(chunk.length, left));
          left -= part.length;
          if (!response.write(part)) {
            response.once('drain', write);
            return;
          }
        }
        if (!response.destroyed) response.end();
      };
      write();
      return;
    }
    case 'redirect':
      response
        .writeHead(behaviour.status ?? 302, {
          location: `${behaviour.to}${(request.url ?? '').slice(registry.basePath.length)}`,
        })
        .end();
      return;
    case 'body':
      response
        .writeHead(behaviour.status, { 'content-type': 'application/rdap+json' })
        .end(behaviour.body);
      return;
    case 'slow':
    case 'normal': {
      const answer = () => {
        const path = request.url ?? '';
        const prefix = `${registry.basePath}domain/`;
        if (!path.startsWith(prefix)) {
          rdapJson(400, {
            errorCode: 400,
            title: 'Bad Request',
            description: ['Only domain lookups are served here.'],
          });
          return;
        }
        const name = decodeURIComponent(path.slice(prefix.length)).toLowerCase();
        const state = registry.names.get(name);
        if (state === undefined) {
          rdapJson(404, {
            errorCode: 404,
            title: 'Not Found',
            description: [`${name} is not registered here.`],
          });
          return;
        }
        rdapJson(200, domainObject(registry, name, state, now()));
      };
      if (behaviour.kind === 'slow') setTimeout(answer, behaviour.delayMs);
      else answer();
      return;
    }
  }
}

/** A registry's domain object for a name's state, in the shape of its kind (RFC 9083 §5.3). */
function domainObject(
  registry: Registry,
  name: string,
  state: FakeNameState,
  now: Date,
): Record<string, unknown> {
  const createdAt = state.createdAt ?? new Date(now.getTime() - 3 * 365 * DAY);
  const expiresAt =
    state.expiresAt === undefined ? new Date(now.getTime() + 200 * DAY) : state.expiresAt;
  const updatedAt =
    state.updatedAt === undefined ? new Date(now.getTime() - 30 * DAY) : state.updatedAt;
  const registrar =
    state.registrar === undefined
      ? { name: 'Example Registrar, Inc.', ianaId: 9999 }
      : state.registrar;
  const nameservers = state.nameservers ?? [`ns1.${name}`, `ns2.${name}`];
  const extraEvents = (state.events ?? []).map((event) => ({
    eventAction: event.eventAction,
    eventDate: iso(event.eventDate),
  }));
  const self = `${registry.base}domain/${name}`;
  const ldhName = state.ldhName ?? name;
  const objectClassName = state.objectClassName ?? 'domain';

  if (registry.kind === 'cctld') {
    return {
      objectClassName,
      rdapConformance: ['rdap_level_0'],
      handle: name,
      ldhName,
      status: state.statuses ?? ['active'],
      events: [
        ...(updatedAt === null ? [] : [{ eventAction: 'last changed', eventDate: iso(updatedAt) }]),
        ...extraEvents,
      ],
      nameservers: nameservers.map((ns) => ({ objectClassName: 'nameserver', ldhName: ns })),
      links: [{ value: self, rel: 'self', href: self, type: 'application/rdap+json' }],
    };
  }

  const registrarEntity =
    registrar === null
      ? []
      : [
          {
            objectClassName: 'entity',
            handle: String(registrar.ianaId),
            roles: ['registrar'],
            publicIds: [{ type: 'IANA Registrar ID', identifier: String(registrar.ianaId) }],
            vcardArray: [
              'vcard',
              [
                ['version', {}, 'text', '4.0'],
                ['fn', {}, 'text', registrar.name],
              ],
            ],
            entities: [
              {
                objectClassName: 'entity',
                roles: ['abuse'],
                vcardArray: [
                  'vcard',
                  [
                    ['version', {}, 'text', '4.0'],
                    ['fn', {}, 'text', ''],
                    ['tel', { type: 'voice' }, 'uri', 'tel:+1.5555550100'],
                    ['email', {}, 'text', 'abuse@registrar.example'],
                  ],
                ],
              },
            ],
          },
        ];
  const baseEvents = [
    { eventAction: 'registration', eventDate: iso(createdAt) },
    ...(expiresAt === null ? [] : [{ eventAction: 'expiration', eventDate: iso(expiresAt) }]),
    ...(updatedAt === null ? [] : [{ eventAction: 'last changed', eventDate: iso(updatedAt) }]),
  ];
  const notices = [
    {
      title: 'Terms of Use',
      description: ['Service subject to the Terms of Use of this fake registry.'],
      links: [{ href: 'http://127.0.0.1/terms', type: 'text/html' }],
    },
    {
      title: 'Status Codes',
      description: [
        'For more information on domain status codes, please visit https://icann.org/epp',
      ],
      links: [{ href: 'https://icann.org/epp', type: 'text/html' }],
    },
    {
      title: 'RDDS Inaccuracy Complaint Form',
      description: ['URL of the ICANN RDDS Inaccuracy Complaint Form: https://icann.org/wicf'],
      links: [{ href: 'https://icann.org/wicf', type: 'text/html' }],
    },
  ];

  if (registry.kind === 'thin') {
    return {
      objectClassName,
      handle: `${Math.abs(hash(name))}_DOMAIN_${name.split('.').pop()!.toUpperCase()}-VRSN`,
      ldhName: ldhName.toUpperCase(),
      links: [{ value: self, rel: 'self', href: self, type: 'application/rdap+json' }],
      status: state.statuses ?? ['client transfer prohibited'],
      entities: registrarEntity,
      events: [
        ...baseEvents,
        ...extraEvents,
        { eventAction: 'last update of RDAP database', eventDate: iso(now) },
      ],
      secureDNS: { delegationSigned: false },
      nameservers: nameservers.map((ns) => ({
        objectClassName: 'nameserver',
        ldhName: ns.toUpperCase(),
      })),
      rdapConformance: [
        'rdap_level_0',
        'icann_rdap_technical_implementation_guide_1',
        'icann_rdap_response_profile_1',
      ],
      notices,
    };
  }

  const redactedContact = (role: string) => ({
    objectClassName: 'entity',
    handle: 'REDACTED',
    roles: [role],
    vcardArray: [
      'vcard',
      [
        ['version', {}, 'text', '4.0'],
        ['fn', {}, 'text', ''],
        ['org', {}, 'text', 'Privacy service'],
        ['adr', {}, 'text', ['', '', '', '', 'ON', '', 'CA']],
      ],
    ],
    remarks: [
      {
        title: 'REDACTED FOR PRIVACY',
        type: 'object redacted due to authorization',
        description: ['Some of the data in this object has been removed.'],
      },
    ],
  });
  return {
    rdapConformance: [
      'rdap_level_0',
      'redacted',
      'icann_rdap_response_profile_1',
      'icann_rdap_technical_implementation_guide_1',
    ],
    objectClassName,
    handle: `D${Math.abs(hash(name))}-LROR`,
    ldhName,
    unicodeName: ldhName,
    links: [{ value: self, rel: 'self', href: self, type: 'application/rdap+json' }],
    status: state.statuses ?? ['client transfer prohibited', 'client delete prohibited'],
    port43: 'whois.registry.example',
    entities: [...registrarEntity, redactedContact('registrant'), redactedContact('technical')],
    events: [
      ...baseEvents,
      { eventAction: 'transfer', eventDate: iso(new Date(createdAt.getTime() + 400 * DAY)) },
      ...extraEvents,
      { eventAction: 'last update of RDAP database', eventDate: iso(now) },
    ],
    secureDNS: { zoneSigned: false, delegationSigned: false },
    nameservers: nameservers.map((ns) => ({
      objectClassName: 'nameserver',
      ldhName: ns,
      unicodeName: ns,
      status: ['associated'],
    })),
    redacted: [
      {
        name: { type: 'Registrant Name' },
        prePath: "$.entities[?(@.roles[0]=='registrant')].vcardArray[1][?(@[0]=='fn')][3]",
        method: 'emptyValue',
      },
      {
        name: { type: 'Tech Name' },
        prePath: "$.entities[?(@.roles[0]=='technical')].vcardArray[1][?(@[0]=='fn')][3]",
        method: 'emptyValue',
      },
    ],
    notices,
  };
}

function hash(text: string): number {
  let value = 0;
  for (const char of text) value = (value * 31 + char.charCodeAt(0)) | 0;
  return value;
}
