/** One check of the health report, as draft-inadmissible-rest-api-health-check words it. */
export interface HealthCheck {
  componentType: 'datastore' | 'component';
  status: HealthStatus;
  observedValue?: number | string;
  observedUnit?: string;
  output?: string;
  time: string;
}

/** `pass`, `warn` (serving, but look) or `fail` (not serving as it should). */
export type HealthStatus = 'pass' | 'warn' | 'fail';

/** The body of GET /health, `application/health+json`. */
export interface HealthReport {
  status: HealthStatus;
  serviceId: 'domain-index';
  /** The product version (`domain-index --version`). */
  version: string;
  description: string;
  checks: Record<string, HealthCheck[]>;
}
