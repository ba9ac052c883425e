export { currencyCode } from './currency';
export { compressionOf, gunzip, openZipEntry, sniffCompression, SNIFF_BYTES, type Compression } from './decompress';
export { FeedFormatError } from './errors';
export { decodeHtmlEntities } from './html-entities';
export { compileProfile, type MappedRecord, type MappingOptions, type RecordMapper } from './map-record';
export { parseBoolean } from './parse-boolean';
export { parseDomainName } from './parse-domain';
export { parseMoney, type MoneyParsed } from './parse-money';
export { parseNumber } from './parse-number';
export { compilePattern, timestampParser, type TimestampParser } from './parse-timestamp';
export type { Parsed } from './parsed';
export {
  feedProfileSchema,
  parseFeedProfile,
  type FeedContainer,
  type FeedPagination,
  type FeedProfile,
  type FeedProfileInput,
  type FieldRule,
  type StatusRule,
} from './profile';
export { PROFILE_FIELD_NAMES, PROFILE_FIELDS, type FieldKind, type ProfileField } from './profile-fields';
export { SHIPPED_PROFILE_INPUTS, SHIPPED_PROFILE_NAMES, SHIPPED_PROFILES } from './profiles';
export { mapItems, readContainer, readProfileFeed } from './read-profile-feed';
export { readDelimited, type DelimitedLayout } from './read-delimited';
export { readJsonRecords } from './read-json';
export { isTimeZone, ZONE_ABBREVIATIONS } from './time-zones';
