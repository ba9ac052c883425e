import type { AuctionStatus } from '../feed-row';
import { currencyCode } from './currency';
import { parseBoolean } from './parse-boolean';
import { parseDomainName } from './parse-domain';
import { parseMoney } from './parse-money';
import { parseNumber } from './parse-number';
import { timestampParser } from './parse-timestamp';
import { textOf, type Parsed } from './parsed';
import type { FeedProfile, FieldRule, StatusRule } from './profile';
import { PROFILE_FIELDS, PROFILE_FIELD_NAMES, type ProfileField } from './profile-fields';
import { compileTemplate } from './template';

/** What a profile made of one marketplace record. */
export type MappedRecord =
  /** The record in the feed format's field names, for the feed format's own validation. */
  | { ok: true; record: Record<string, unknown> }
  /** A bad row. */
  | { ok: false; reason: string }
  /** Left out on purpose, not a bad row: an amount in a currency without a configured rate. */
  | { ok: 'skip'; reason: string };

/** Settings of the operator's that a mapping needs. */
export interface MappingOptions {
  /** US dollars per unit of other currencies: `{ "EUR": 1.08 }`. */
  rates?: Readonly<Record<string, number>>;
  /** The time of the import, for ages computed from dates. */
  now: Date;
}

/** A compiled profile: maps records and names the marketplace fields it cannot do without. */
export interface RecordMapper {
  map(record: Record<string, unknown>): MappedRecord;
  /** Marketplace fields (columns) that rules not marked optional read. */
  readonly requiredFields: readonly string[];
}

type Outcome = { value: unknown } | { reason: string } | { skip: string };
/** Reads one rule; undefined when it does not apply or its source is empty (the next rule is tried). */
type RuleReader = (record: Record<string, unknown>) => Outcome | undefined;

const YEAR_MS = 365.2425 * 86_400_000;

const lowered = <T>(map: Readonly<Record<string, T>>): Map<string, T> =>
  new Map(Object.entries(map).map(([key, value]) => [key.trim().toLowerCase(), value]));

/**
 * Compiles a profile into a record mapper. Each field takes the value parser of its kind
 * (money, number, timestamp, domain name, text); values the profile calls null (`-`, `--`)
 * and empty strings are absent. Amounts in another currency than US dollars are converted with
 * `rates`, or the record is skipped with a reason. Ranges are not checked here: the mapped
 * record goes through parseFeedRecord like any feed row.
 */
export function compileProfile(profile: FeedProfile, options: MappingOptions): RecordMapper {
  const nullValues = new Set(profile.nullValues.map((value) => value.trim()));
  const rates = options.rates ?? {};
  const required = new Set<string>();

  /** The record's value of a field, undefined when absent, empty or one of the profile's null values. */
  const valueOf = (record: Record<string, unknown>, field: string): unknown => {
    const value = Object.hasOwn(record, field) ? record[field] : undefined;
    if (typeof value !== 'string') return value ?? undefined;
    const trimmed = value.trim();
    return trimmed === '' || nullValues.has(trimmed) ? undefined : value;
  };

  const convert = (amount: number, currency: string): Outcome => {
    if (currency === 'USD') return { value: amount };
    const rate = rates[currency];
    return rate === undefined ? { skip: `currency ${currency} has no configured rate` } : { value: amount * rate };
  };

  const parserFor = (field: ProfileField, rule: FieldRule): ((value: unknown, record: Record<string, unknown>) => Outcome) => {
    const fromParsed = <T>(parsed: Parsed<T>, as: (value: T) => unknown = (value) => value): Outcome =>
      parsed.ok ? { value: parsed.value === null ? null : as(parsed.value) } : { reason: parsed.reason };
    switch (PROFILE_FIELDS[field]) {
      case 'domain':
        return (value) => fromParsed(parseDomainName(value));
      case 'timestamp': {
        const parse = timestampParser(rule.format ?? 'auto', profile.timeZone);
        return (value) => fromParsed(parse(value), (date) => date.toISOString());
      }
      case 'number': {
        if (rule.parse !== 'years-since') return (value) => fromParsed(parseNumber(value));
        const parse = timestampParser(rule.format ?? 'auto', profile.timeZone);
        return (value) => fromParsed(parse(value), (date) => Math.max(0, Math.floor((options.now.getTime() - date.getTime()) / YEAR_MS)));
      }
      case 'money':
        return (value, record) => {
          const parsed = parseMoney(value);
          if (!parsed.ok) return { reason: parsed.reason };
          if (parsed.amount === null) return { value: null };
          let currency = parsed.currency;
          if (rule.currencyFrom !== undefined) {
            const mark = valueOf(record, rule.currencyFrom);
            if (mark !== undefined) {
              const named = currencyCode(textOf(mark));
              if (named === null) return { reason: `unknown currency ${JSON.stringify(textOf(mark))} in ${rule.currencyFrom}` };
              if (currency !== null && currency !== named) return { reason: `the amount is in ${currency} but ${rule.currencyFrom} says ${named}` };
              currency = named;
            }
          }
          return convert(parsed.amount, currency ?? rule.currency ?? profile.currency);
        };
      case 'text': {
        const map = rule.map === undefined ? undefined : lowered(rule.map);
        return (value) => {
          const text = textOf(value).trim();
          if (map === undefined) return { value: text };
          const mapped = map.get(text.toLowerCase());
          return { value: mapped === undefined ? text : mapped };
        };
      }
    }
  };

  const readerFor = (field: ProfileField, rule: FieldRule): RuleReader => {
    const need = (name: string) => {
      if (rule.optional !== true) required.add(name);
    };
    let applies: (record: Record<string, unknown>) => boolean = () => true;
    if (rule.when !== undefined) {
      const { field: decider, in: values } = rule.when;
      need(decider);
      const texts = new Set(values.filter((v) => typeof v === 'string').map((v) => v.trim().toLowerCase()));
      const booleans = new Set(values.filter((v) => typeof v === 'boolean'));
      applies = (record) => {
        const value = valueOf(record, decider);
        if (value === undefined) return false;
        if (texts.has(textOf(value).trim().toLowerCase())) return true;
        const yes = parseBoolean(value);
        return yes.ok && yes.value !== null && booleans.has(yes.value);
      };
    }
    if (rule.constant !== undefined) {
      const constant = rule.constant;
      return (record) => (applies(record) ? { value: constant } : undefined);
    }
    if (rule.currencyFrom !== undefined) need(rule.currencyFrom);
    const parse = parserFor(field, rule);
    if (rule.template !== undefined) {
      const compiled = compileTemplate(rule.template);
      // the profile's schema refuses a malformed template
      if (!compiled.ok) throw new Error(`${field}: template ${compiled.reason}`);
      const { template } = compiled;
      for (const name of template.fields) need(name);
      return (record) => {
        if (!applies(record)) return undefined;
        const text = template.render((name) => {
          const value = valueOf(record, name);
          return value === undefined ? undefined : textOf(value);
        });
        return text === undefined ? undefined : parse(text, record);
      };
    }
    const from = rule.from!;
    need(from);
    return (record) => {
      if (!applies(record)) return undefined;
      const value = valueOf(record, from);
      return value === undefined ? undefined : parse(value, record);
    };
  };

  const fields: { field: ProfileField; label: (index: number) => string; readers: RuleReader[] }[] = [];
  for (const field of PROFILE_FIELD_NAMES) {
    const rules = profile.fields[field];
    if (rules === undefined) continue;
    const labels = rules.map((rule) => (rule.from === undefined ? field : `${field} (${rule.from})`));
    fields.push({ field, label: (index) => labels[index]!, readers: rules.map((rule) => readerFor(field, rule)) });
  }
  const status = compileStatus(profile.status, valueOf);
  if (profile.status.from !== undefined) required.add(profile.status.from);

  return {
    requiredFields: [...required],
    map(record) {
      const mapped: Record<string, unknown> = {};
      const statusOutcome = status(record);
      if ('reason' in statusOutcome) return { ok: false, reason: statusOutcome.reason };
      for (const { field, label, readers } of fields) {
        let value: unknown = null;
        for (let i = 0; i < readers.length; i++) {
          const outcome = readers[i]!(record);
          if (outcome === undefined) continue;
          if ('skip' in outcome) return { ok: 'skip', reason: outcome.skip };
          if ('reason' in outcome) return { ok: false, reason: `${label(i)}: ${outcome.reason}` };
          value = outcome.value;
          break;
        }
        mapped[field] = value;
      }
      mapped.status = statusOutcome.value;
      return { ok: true, record: mapped };
    },
  };
}

function compileStatus(
  rule: StatusRule,
  valueOf: (record: Record<string, unknown>, field: string) => unknown,
): (record: Record<string, unknown>) => { value: AuctionStatus } | { reason: string } {
  if (rule.constant !== undefined) {
    const value = rule.constant;
    return () => ({ value });
  }
  const from = rule.from!;
  if (rule.parse === 'boolean') {
    const [yes, no] = [rule.true!, rule.false!];
    return (record) => {
      const parsed = parseBoolean(valueOf(record, from));
      if (!parsed.ok) return { reason: `status (${from}): ${parsed.reason}` };
      return parsed.value === null ? { reason: `missing status (${from})` } : { value: parsed.value ? yes : no };
    };
  }
  const map = lowered(rule.map ?? {});
  return (record) => {
    const value = valueOf(record, from);
    if (value === undefined) return { reason: `missing status (${from})` };
    const status = map.get(textOf(value).trim().toLowerCase()) ?? rule.default;
    return status === undefined ? { reason: `status (${from}): no status for ${JSON.stringify(textOf(value).slice(0, 40))}` } : { value: status };
  };
}
