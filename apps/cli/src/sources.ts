import { readFileSync } from 'node:fs';
import { DEFAULT_SOURCES, parseSources, type SourceConfig } from '@domain-index/indexer';
import { ConfigError } from '@domain-index/config/config';

/** The configured marketplaces: SOURCES_FILE when set, else the five defaults. */
export function loadSources(sourcesFile: string | undefined): readonly SourceConfig[] {
  if (sourcesFile === undefined) return DEFAULT_SOURCES;
  let text: string;
  try {
    text = readFileSync(sourcesFile, 'utf8');
  } catch {
    throw new ConfigError(`invalid environment variable SOURCES_FILE: cannot read ${sourcesFile}`);
  }
  const result = parseSources(text);
  if (!result.ok) throw new ConfigError(`invalid environment variable SOURCES_FILE: ${sourcesFile}: ${result.reason}`);
  return result.sources;
}
