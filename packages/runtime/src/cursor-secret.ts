import { randomBytes } from 'node:crypto';
import { eq, serviceSecrets, type Database } from '@domain-index/db';

const NAME = 'cursor-signing-key';

/**
 * The key that signs cursors, shared by every instance through the database: the first
 * instance creates it, the others read it, so a cursor from one instance works on any other.
 */
export async function loadCursorSecret(database: Database): Promise<Buffer> {
  await database.db
    .insert(serviceSecrets)
    .values({ name: NAME, value: randomBytes(32).toString('base64url') })
    .onConflictDoNothing();
  const [row] = await database.db.select().from(serviceSecrets).where(eq(serviceSecrets.name, NAME));
  if (row === undefined) throw new Error('the cursor signing key could not be created');
  return Buffer.from(row.value, 'base64url');
}
