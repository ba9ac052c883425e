export * from './api-keys';
export * from './listings';
export * from './plans';
export * from './source-batches';
export * from './source-syncs';
export * from './service-secrets';
