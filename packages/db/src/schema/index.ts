export * from './api-keys';
export * from './listings';
export * from './plans';
