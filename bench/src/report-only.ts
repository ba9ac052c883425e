// Rewrites BENCHMARKS.md and the chart from bench/results/results.json (after editing ANALYSIS.md).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { writeReport, type Results } from './report';

const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
writeReport(JSON.parse(readFileSync(`${resultsDir}results.json`, 'utf8')) as Results, resultsDir);
