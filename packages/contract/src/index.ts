export * from './contract';
export * from './domain';
export * from './envelopes';
export * from './errors';
export * from './events';
export * from './query-errors';
export * from './search-params';
export * from './texts';
