import { hash, verify } from '@node-rs/argon2';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/** Bounds of a password: long enough to resist guessing, short enough to hash quickly. */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;
/**
 * The least zxcvbn score a new password needs: 3 is "safely unguessable" (about 10^8 guesses at
 * the least), which a word from the leaked-password lists with digits or a symbol added is not.
 */
const MIN_SCORE = 3;
/** Characters of a password that the guessability check reads: it is quadratic, and this is plenty. */
const CHECKED_LENGTH = 100;

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

let estimator: Promise<ZxcvbnFactory> | undefined;

/**
 * zxcvbn-ts with its common dictionaries (49,000 passwords from leaked lists, the diceware
 * words, keyboard layouts), offline. Loaded on the first check, not at start-up: its dictionaries
 * take about 100 ms to build, and no CLI command but `serve` needs them.
 */
function guessability(): Promise<ZxcvbnFactory> {
  estimator ??= Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common')]).then(
    ([core, common]) =>
      // Levenshtein matching off: it multiplied the time of a check by up to 100 (0.5 s of a
      // blocked event loop for "123456789012") and changed no score on the passwords we tried.
      new core.ZxcvbnFactory({ dictionary: common.dictionary, graphs: common.adjacencyGraphs, useLevenshteinDistance: false, maxLength: CHECKED_LENGTH }),
  );
  return estimator;
}

/**
 * Why a new password is refused, or undefined when it is acceptable: its length, then whether it
 * is common or easy to guess (a leaked password, a keyboard walk, a repeat, a date, the email
 * itself). `context` holds what the password must not be built from: the account's email.
 */
export async function passwordProblem(password: string, context: readonly string[] = []): Promise<string | undefined> {
  if (password.length < PASSWORD_MIN_LENGTH) return `The password needs at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `The password can have at most ${PASSWORD_MAX_LENGTH} characters.`;
  const userInputs = context.flatMap((value) => [value, ...value.split(/[@.+_-]/).filter((part) => part.length >= 3)]);
  const { score } = (await guessability()).check(password, [...userInputs, 'domain index', 'domainindex', 'dashboard']);
  if (score < MIN_SCORE) {
    return 'This password is too common or too easy to guess: it is in lists of leaked passwords, or close to one, or follows a pattern (a keyboard row, a repeat, your email). A few unrelated words make a strong one.';
  }
  return undefined;
}
