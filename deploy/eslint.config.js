import { config } from '@domain-index/eslint-config';

export default config(import.meta.dirname);
