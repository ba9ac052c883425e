import { z } from 'zod';
import { domainSchema, timestampSchema } from './domain';
import { metaSchema } from './envelopes';
import { boolean } from './wire';

/**
 * Where a name is in its registration's life, from RDAP's status values (RFC 8056's mapping of
 * EPP statuses): `registered`; `grace` (expired, in the registrar's auto-renew grace);
 * `redemption` (deleted, restorable by the registrant); `pending_delete` (about to be released);
 * `available` (the registry answered 404: not registered); `unknown` (no RDAP service for the
 * TLD, or an answer that says nothing of the phase).
 */
export const REGISTRATION_PHASES = ['registered', 'grace', 'redemption', 'pending_delete', 'available', 'unknown'] as const;
/** A registration phase. */
export type RegistrationPhase = (typeof REGISTRATION_PHASES)[number];
/** A registration phase as the API shows it. */
export const registrationPhaseSchema = z.enum(REGISTRATION_PHASES);

/** What RDAP last said of a name's registration. */
export const registrationSchema = z
  .object({
    phase: registrationPhaseSchema,
    statuses: z.array(z.string()).describe('The RDAP status values as the registry gave them, e.g. "client transfer prohibited", "redemption period"'),
    registrar: z
      .object({ name: z.string().nullable(), iana_id: z.number().int().nullable().describe("The registrar's IANA id") })
      .strict()
      .nullable(),
    created_at: timestampSchema.nullable().describe('The registration event'),
    expires_at: timestampSchema.nullable().describe('The expiration event'),
    updated_at: timestampSchema.nullable().describe("The registry's last changed event"),
    checked_at: timestampSchema.describe('When RDAP was last asked and answered'),
    expected_drop_at: timestampSchema
      .nullable()
      .describe('When the name should become available, from the gTLD timelines (45-day auto-renew grace at most, 30-day redemption, 5-day pending delete); null when the phase implies none'),
  })
  .strict();
/** A name's registration. */
export type Registration = z.infer<typeof registrationSchema>;

/** What happened to a name, as its history lists it. */
export const NAME_HISTORY_KINDS = ['listed', 'price_changed', 'delisted', 'ended', 'phase_changed'] as const;

/** One change in a name's history. */
export const nameHistoryEntrySchema = z
  .object({
    at: timestampSchema,
    kind: z.enum(NAME_HISTORY_KINDS),
    source: z.string().nullable().describe('The marketplace, for listing changes'),
    price: z.number().nullable().describe('The price after the change (the last one for delisted and ended)'),
    previous_price: z.number().nullable(),
    phase: registrationPhaseSchema.nullable().describe('phase_changed: the phase after the change'),
    previous_phase: registrationPhaseSchema.nullable(),
  })
  .strict();

/** Everything known of one name. */
export const nameSchema = z
  .object({
    domain_name: z.string().describe('ASCII (punycode), lowercase'),
    listings: z.array(domainSchema).describe("Every marketplace's current listing of the name (ended ones left out), in the lookup's order"),
    registration: registrationSchema.nullable().describe('null when the name was never checked'),
    history: z
      .array(nameHistoryEntrySchema)
      .describe('Listing and registration changes of the last 365 days, newest first; kept while the name is on a watchlist, so a name nobody watches has none'),
    refresh: z
      .object({
        outcome: z.enum(['checked', 'recent', 'failed']).describe('checked: RDAP was asked now; recent: the last check is under 10 minutes old, so it was not asked again; failed: the registry did not answer (registration is the last known)'),
        message: z.string().nullable(),
      })
      .strict()
      .nullable()
      .describe('With ?refresh=true: what the refresh did; null otherwise'),
  })
  .strict();
/** A name's page. */
export type Name = z.infer<typeof nameSchema>;

/** The envelope of `GET /api/v1/names/{domain}`. */
export const nameEnvelopeSchema = z.object({ object: z.literal('name'), data: nameSchema, meta: metaSchema }).strict();

/** The query of `GET /api/v1/names/{domain}`. */
export const nameQuerySchema = z
  .object({
    refresh: boolean().describe("true: ask RDAP now when the last check is older than 10 minutes; counted against the key's hourly refreshes (free 20, pro 500)"),
  })
  .strict();
