import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findProgram, repoRoot, requireTool } from './support/tools';

// deploy/systemd's units as shipped. systemd-analyze verify reads them without systemd as
// PID 1: it checks every directive and that ExecStart's program (/usr/bin/node) exists.
const analyze = findProgram('systemd-analyze');
const runs = requireTool('systemd-analyze (Debian package systemd)', analyze !== undefined);
const unitsDir = join(repoRoot, 'deploy/systemd');
const units = [
  'domain-index-migrate.service',
  'domain-index-serve@.service',
  'domain-index-sync.service',
];

/** The unit's settings, as `key: values in order` (a key may repeat). */
function settings(unit: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const line of readFileSync(join(unitsDir, unit), 'utf8').split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (match) map.set(match[1]!, [...(map.get(match[1]!) ?? []), match[2]!]);
  }
  return map;
}

describe.skipIf(!runs)('deploy/systemd units', () => {
  const dir = mkdtempSync(join(tmpdir(), 'di-systemd-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('pass systemd-analyze verify without a single warning (two serve instances, the worker, migrate)', () => {
    for (const unit of units) copyFileSync(join(unitsDir, unit), join(dir, unit));
    symlinkSync('domain-index-serve@.service', join(dir, 'domain-index-serve@3001.service'));
    symlinkSync('domain-index-serve@.service', join(dir, 'domain-index-serve@3002.service'));
    const result = spawnSync(
      analyze!,
      [
        'verify',
        'domain-index-migrate.service',
        'domain-index-serve@3001.service',
        'domain-index-serve@3002.service',
        'domain-index-sync.service',
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('run migrate once, before the API and the worker, which need it to have succeeded', () => {
    expect(settings('domain-index-migrate.service').get('Type')).toEqual(['oneshot']);
    expect(settings('domain-index-migrate.service').get('RemainAfterExit')).toEqual(['yes']);
    for (const unit of ['domain-index-serve@.service', 'domain-index-sync.service']) {
      expect(settings(unit).get('Requires')).toEqual(['domain-index-migrate.service']);
      expect(settings(unit).get('After')?.join(' ')).toContain('domain-index-migrate.service');
    }
    expect(settings('domain-index-serve@.service').get('Environment')).toContain('PORT=%i');
  });

  it('give a stop more time than SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS, so the drain is never killed', () => {
    const defaults = 5 + 10; // seconds: packages/config's defaults with DATABASE_URL
    for (const unit of ['domain-index-serve@.service', 'domain-index-sync.service']) {
      const stop = Number(settings(unit).get('TimeoutStopSec')?.[0]);
      expect(stop).toBeGreaterThan(defaults);
      expect(settings(unit).get('KillSignal')).toEqual(['SIGTERM']);
    }
  });

  it('run unprivileged on a read-only system, secrets only from the environment file', () => {
    for (const unit of units) {
      const s = settings(unit);
      expect(s.get('DynamicUser')).toEqual(['yes']);
      expect(s.get('ProtectSystem')).toEqual(['strict']);
      expect(s.get('NoNewPrivileges')).toEqual(['yes']);
      expect(s.get('CapabilityBoundingSet')).toEqual(['']);
      expect(s.get('EnvironmentFile')?.[0]).toBe('/etc/domain-index/domain-index.env');
      expect(
        [...s.keys()]
          .filter((k) => k === 'Environment')
          .flatMap((k) => s.get(k)!)
          .join(' '),
      ).not.toMatch(/DATABASE_URL|PASSWORD|SECRET/);
      // V8 compiles to executable memory: this setting would crash Node
      expect(s.has('MemoryDenyWriteExecute')).toBe(false);
    }
  });
});
