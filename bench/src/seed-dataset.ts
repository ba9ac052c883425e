// Prepares the benchmark dataset on its own (the full run does this first as well).
import { ensureDataset } from './dataset';
import { BENCH } from './settings';

const dataset = await ensureDataset(BENCH.databaseUrl, BENCH.rows, BENCH.seed);
console.log(JSON.stringify(dataset));
