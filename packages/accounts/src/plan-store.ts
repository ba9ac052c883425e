import { eq, plans, type Database, type PlanRow } from '@domain-index/db';
import { UnknownPlanError } from './key-store';

/** Every plan, by id. */
export function listPlans(database: Database): Promise<PlanRow[]> {
  return database.db.select().from(plans).orderBy(plans.id);
}

/** One plan by its id, if there is one. */
export async function findPlan(database: Database, id: string): Promise<PlanRow | undefined> {
  const [plan] = await database.db.select().from(plans).where(eq(plans.id, id));
  return plan;
}

/** What `updatePlan` may change; what is left out stays. */
export interface PlanChange {
  requestsPerWindow?: number | undefined;
  alertsLimit?: number | undefined;
  watchLimit?: number | undefined;
  description?: string | undefined;
}

/**
 * Changes a plan's limits and returns it as it was and as it is; each instance's plan cache
 * rereads plans at most every 30 s, so a request limit applies within that. Throws
 * UnknownPlanError for a plan that does not exist.
 */
export async function updatePlan(database: Database, id: string, change: PlanChange): Promise<{ before: PlanRow; after: PlanRow }> {
  return database.db.transaction(async (tx) => {
    const [before] = await tx.select().from(plans).where(eq(plans.id, id)).for('update');
    if (before === undefined) throw new UnknownPlanError(id, (await tx.select({ id: plans.id }).from(plans).orderBy(plans.id)).map((row) => row.id));
    const set = {
      ...(change.requestsPerWindow !== undefined && { requestsPerWindow: change.requestsPerWindow }),
      ...(change.alertsLimit !== undefined && { alertsLimit: change.alertsLimit }),
      ...(change.watchLimit !== undefined && { watchLimit: change.watchLimit }),
      ...(change.description !== undefined && { description: change.description }),
    };
    const [after] = await tx.update(plans).set(set).where(eq(plans.id, id)).returning();
    return { before, after: after! };
  });
}
