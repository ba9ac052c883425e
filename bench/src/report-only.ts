// Rewrites BENCHMARKS.md and the chart from bench/results/ (after editing ANALYSIS.md or notes/).
import { fileURLToPath } from 'node:url';
import { writeReport } from './report';

writeReport(fileURLToPath(new URL('../results/', import.meta.url)));
