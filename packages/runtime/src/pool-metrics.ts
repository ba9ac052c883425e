import type { Database } from '@domain-index/db';
import { Gauge, type Registry } from 'prom-client';

/** A database pool the process uses, named as the query metrics name its node. */
export interface NamedPool {
  node: string;
  database: Database;
}

/**
 * The connection-pool gauges of a process, read from the pools when Prometheus scrapes:
 * `domain_index_db_pool_connections{node, state}` (in_use, idle, connecting),
 * `domain_index_db_pool_waiting{node}` (statements waiting for a connection) and
 * `domain_index_db_pool_size{node}`. A pool whose connections are all in use with statements
 * waiting is the API's or the sync's own bottleneck, not the database's; the embedded database
 * has no pool and reports none.
 */
export function registerPoolMetrics(registry: Registry, pools: () => readonly NamedPool[]): void {
  const each = (read: (pool: NamedPool, stats: NonNullable<ReturnType<Database['poolStats']>>) => void) => {
    for (const pool of pools()) {
      const stats = pool.database.poolStats();
      if (stats !== undefined) read(pool, stats);
    }
  };
  new Gauge({
    name: 'domain_index_db_pool_connections',
    help: 'Connections of each database pool, by state: in_use (running statements or holding a transaction), idle, connecting.',
    labelNames: ['node', 'state'],
    registers: [registry],
    // with WORKERS, each worker has pools of its own: the primary reports their sum
    aggregator: 'sum',
    collect() {
      this.reset();
      each(({ node }, stats) => {
        this.set({ node, state: 'in_use' }, stats.inUse);
        this.set({ node, state: 'idle' }, stats.idle);
        this.set({ node, state: 'connecting' }, stats.connecting);
      });
    },
  });
  new Gauge({
    name: 'domain_index_db_pool_waiting',
    help: 'Statements (or transactions) waiting for a connection of each database pool.',
    labelNames: ['node'],
    registers: [registry],
    aggregator: 'sum',
    collect() {
      this.reset();
      each(({ node }, stats) => this.set({ node }, stats.waiting));
    },
  });
  new Gauge({
    name: 'domain_index_db_pool_size',
    help: 'The most connections each database pool opens.',
    labelNames: ['node'],
    registers: [registry],
    aggregator: 'sum',
    collect() {
      this.reset();
      each(({ node }, stats) => this.set({ node }, stats.max));
    },
  });
}
