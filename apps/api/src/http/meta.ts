import { API_VERSION, INDEX_SCORE_CAVEAT, type Meta } from '@domain-index/contract';

/** `meta` of every successful response. */
export const META: Meta = Object.freeze({ api_version: API_VERSION, index_score: INDEX_SCORE_CAVEAT });
