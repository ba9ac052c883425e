import { expectedDropAt, phaseOf, type RegistrationPhase } from './phase';

/** A name's registration as the registry's RDAP server describes it. */
export interface Registration {
  phase: RegistrationPhase;
  /** RDAP status values exactly as the registry gave them. */
  statuses: string[];
  /** The entity with the `registrar` role: its vCard `fn` and its `IANA Registrar ID`; null when the registry names none. */
  registrar: { name: string | null; ianaId: number | null } | null;
  /** The `registration` event. */
  createdAt: Date | null;
  /** The `expiration` event. */
  expiresAt: Date | null;
  /** The `last changed` event. */
  updatedAt: Date | null;
  /** When the phase implies a drop: see `expectedDropAt`. */
  expectedDropAt: Date | null;
}

/** A registration of which nothing is known: for names whose TLD has no RDAP server. */
export function unknownRegistration(): Registration {
  return {
    phase: 'unknown',
    statuses: [],
    registrar: null,
    createdAt: null,
    expiresAt: null,
    updatedAt: null,
    expectedDropAt: null,
  };
}

/** A name the registry does not hold (its RDAP server answered 404). */
export function availableRegistration(): Registration {
  return { ...unknownRegistration(), phase: 'available' };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function dateOf(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * Reads an RDAP domain object (RFC 9083 §5.3) into a {@link Registration}. Tolerant where
 * registries differ: unknown members are ignored, missing ones read null. Strict where a wrong
 * answer would mislead: throws unless `objectClassName` is `domain` and `ldhName` is the name
 * asked for (compared case-insensitively; Verisign answers in upper case).
 */
export function parseDomainObject(body: unknown, domain: string): Registration {
  if (!isRecord(body)) throw new Error('not a JSON object');
  if (body.objectClassName !== 'domain')
    throw new Error(
      `objectClassName is ${JSON.stringify(body.objectClassName ?? null)}, not "domain"`,
    );
  const ldhName =
    typeof body.ldhName === 'string' ? body.ldhName.toLowerCase().replace(/\.$/, '') : null;
  if (ldhName !== domain.toLowerCase())
    throw new Error(
      `ldhName ${JSON.stringify(body.ldhName ?? null)} is not the name asked for (${domain})`,
    );

  const statuses = arrayOf(body.status).filter(
    (status): status is string => typeof status === 'string',
  );
  const events = new Map<string, Date>();
  for (const event of arrayOf(body.events)) {
    if (!isRecord(event) || typeof event.eventAction !== 'string') continue;
    const date = dateOf(event.eventDate);
    const action = event.eventAction.toLowerCase();
    // the latest of repeated actions: a name re-registered or changed twice
    if (date !== null && (events.get(action)?.getTime() ?? -Infinity) < date.getTime())
      events.set(action, date);
  }
  const phase = phaseOf(statuses);
  const expiresAt = events.get('expiration') ?? null;
  const updatedAt = events.get('last changed') ?? null;
  return {
    phase,
    statuses,
    registrar: registrarOf(body.entities),
    createdAt: events.get('registration') ?? null,
    expiresAt,
    updatedAt,
    expectedDropAt: expectedDropAt({
      phase,
      expiresAt,
      updatedAt,
      deletedAt: events.get('deletion') ?? null,
    }),
  };
}

function registrarOf(entities: unknown): Registration['registrar'] {
  const registrar = arrayOf(entities).find(
    (entity): entity is Record<string, unknown> =>
      isRecord(entity) && arrayOf(entity.roles).some((role) => role === 'registrar'),
  );
  if (registrar === undefined) return null;
  const ianaId = arrayOf(registrar.publicIds).find(
    (id): id is Record<string, unknown> =>
      isRecord(id) && typeof id.type === 'string' && id.type.toLowerCase() === 'iana registrar id',
  )?.identifier;
  const id =
    typeof ianaId === 'number'
      ? ianaId
      : typeof ianaId === 'string' && /^\d+$/.test(ianaId.trim())
        ? Number(ianaId)
        : null;
  return {
    name: vcardName(registrar.vcardArray),
    ianaId: id !== null && Number.isSafeInteger(id) ? id : null,
  };
}

/** The `fn` of a jCard (RFC 7095): ["vcard", [["fn", {}, "text", "Example Registrar, Inc."], ...]]. */
function vcardName(vcardArray: unknown): string | null {
  const properties = arrayOf(arrayOf(vcardArray)[1]);
  for (const property of properties) {
    const [name, , , value] = arrayOf(property);
    if (
      typeof name === 'string' &&
      name.toLowerCase() === 'fn' &&
      typeof value === 'string' &&
      value.trim() !== ''
    )
      return value.trim();
  }
  return null;
}
