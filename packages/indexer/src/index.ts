export * from './feed-row';
export * from './normalise';
export * from './score';
export * from './seed';
export * from './sources';
export * from './word-count';
export * from './feeds';
