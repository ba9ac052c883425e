import { hash, verify } from '@node-rs/argon2';

/** Bounds of a password: long enough to resist guessing, short enough to hash quickly. */
export const PASSWORD_MIN_LENGTH = 12;
const PASSWORD_MAX_LENGTH = 256;

/**
 * Argon2id, the library's default algorithm, with its default cost (19 MiB, 2 passes: OWASP's
 * baseline); the stored PHC string starts `$argon2id$`. @node-rs/argon2 ships prebuilt binaries
 * as optional dependencies, so it installs without a build or an install script.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/** Whether `password` matches a stored hash; false for a malformed hash, never a throw. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** Hashing and checking passwords: the costly step that the dashboard's limits protect. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(stored: string, password: string): Promise<boolean>;
}

/** The hasher of the service: Argon2id as above. */
export const argon2Passwords: PasswordHasher = { hash: hashPassword, verify: verifyPassword };

/**
 * A fixed hash to verify against when the email is unknown, so that an unknown email and a
 * wrong password cost the same time and get the same answer.
 */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword('decoy password that matches nothing');
  return decoy;
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `The password needs at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `The password can have at most ${PASSWORD_MAX_LENGTH} characters.`;
  return undefined;
}
