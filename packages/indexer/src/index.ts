export * from './feed-row';
export * from './normalise';
export * from './score';
export * from './sources';
export * from './word-count';
