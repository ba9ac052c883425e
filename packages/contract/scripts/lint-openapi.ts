// Lints an OpenAPI document (a file or a URL; default dist/openapi.json) with Redocly's
// recommended ruleset and fails on any problem, warnings included (Redocly itself exits 0 on
// warnings). Offline: no telemetry, no update check. Prints the problems, then one JSON line
// with the totals.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

interface Report {
  totals: { errors: number; warnings: number; ignored: number };
  problems: {
    ruleId: string;
    severity: string;
    message: string;
    location?: { pointer?: string }[];
  }[];
}

const target = process.argv[2] ?? fileURLToPath(new URL('../dist/openapi.json', import.meta.url));
const redocly = fileURLToPath(new URL('../node_modules/.bin/redocly', import.meta.url));
const result = spawnSync(
  redocly,
  ['lint', '--extends', 'recommended', '--format', 'json', target],
  {
    env: {
      ...process.env,
      REDOCLY_TELEMETRY: 'off',
      REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
      NO_COLOR: '1',
    },
    encoding: 'utf8',
  },
);
let report: Report;
try {
  report = JSON.parse(result.stdout) as Report;
} catch {
  process.stderr.write(
    `redocly gave no report (exit ${String(result.status)}):\n${result.stderr}\n`,
  );
  process.exit(2);
}
for (const problem of report.problems) {
  process.stderr.write(
    `${problem.severity} ${problem.ruleId} at ${problem.location?.[0]?.pointer ?? '?'}: ${problem.message}\n`,
  );
}
console.log(JSON.stringify(report.totals));
process.exit(report.totals.errors + report.totals.warnings === 0 ? 0 : 1);
