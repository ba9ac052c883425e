/**
 * What a failed statement says about the database. `unavailable`: it could not serve the
 * statement now (gone, unreachable, out of time or resources, a conflict that a retry resolves),
 * so a retry is worthwhile. `defect`: the database refused the statement itself (bad data for a
 * type, a syntax or type error, a missing relation), so the same request fails again however
 * often it is retried: the statement we built is at fault.
 */
export type FailureKind = 'unavailable' | 'defect';

/** A failure of a database call, classified, with what an operator's log may show of it. */
export interface DatabaseFailure {
  kind: FailureKind;
  /** The SQLSTATE, when the database raised the error (not for a lost connection). */
  sqlstate: string | undefined;
  /** PostgreSQL's source routine that raised it, when known: a pointer for the operator. */
  routine: string | undefined;
  /** The message, with quoted values removed where they may come from a request (class 22). */
  message: string;
}

/**
 * SQLSTATE classes whose errors pass: 08 connection exception, 40 transaction rollback (a
 * deadlock, or a replica's recovery conflict), 53 insufficient resources, 57 operator
 * intervention (57014 is a statement timeout or cancel, 57P01 a shutdown), 58 system error (I/O).
 */
const PASSING_CLASSES = new Set(['08', '40', '53', '57', '58']);
/** Single codes outside those classes that pass too: a lock not granted within its timeout. */
const PASSING_CODES = new Set(['55P03']);
/** The class letters of SQLSTATE (digits, or F0, HV, P0, XX): tells "EPIPE" from a SQLSTATE. */
const SQLSTATE = /^(?:\d\d|F0|HV|P0|XX)[0-9A-Z]{3}$/;
/**
 * postgres.js's own codes for a connection that was lost, ended or never made, and ours for a
 * statement abandoned at its deadline (deadline.ts): the database did not answer in time.
 */
const CONNECTION_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT', 'DEADLINE_EXCEEDED']);
/** Node's own network error codes (ECONNREFUSED, ECONNRESET, ETIMEDOUT, ENOTFOUND, EPIPE ...). */
const NETWORK_CODE = /^E[A-Z0-9]+$/;
/** What PGlite throws once it has been closed. */
const PGLITE_CLOSED = 'PGlite is closed';

/** Classifies an error thrown by a database call (postgres.js or PGlite). */
export function classifyDatabaseFailure(thrown: unknown): DatabaseFailure {
  const error = driverError(thrown);
  const fields = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const code = typeof fields.code === 'string' ? fields.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  const routine = typeof fields.routine === 'string' ? fields.routine : undefined;
  if (code !== undefined && SQLSTATE.test(code)) {
    const passing = PASSING_CLASSES.has(code.slice(0, 2)) || PASSING_CODES.has(code);
    // A data exception quotes the offending value, and that value came from a request.
    const shown = code.startsWith('22') ? message.replace(/"[^"]*"/g, '"…"') : message;
    return { kind: passing ? 'unavailable' : 'defect', sqlstate: code, routine, message: shown };
  }
  const lostConnection =
    (code !== undefined && (CONNECTION_CODES.has(code) || NETWORK_CODE.test(code))) ||
    // Node's network errors name their syscall; a host with several addresses (IPv4 and IPv6)
    // fails with an AggregateError of one such error per address, whose own syscall is unset.
    typeof fields.syscall === 'string' ||
    (Array.isArray(fields.errors) && fields.errors.length > 0 && fields.errors.every((inner) => classifyDatabaseFailure(inner).kind === 'unavailable')) ||
    message === PGLITE_CLOSED;
  return { kind: lostConnection ? 'unavailable' : 'defect', sqlstate: undefined, routine, message };
}

/**
 * The driver's own error: Drizzle wraps it (DrizzleQueryError, whose message holds the SQL) and
 * keeps it as `cause`, so the first error down the cause chain that carries a code is the one
 * that says what happened; without one, the deepest.
 */
function driverError(thrown: unknown): unknown {
  let current = thrown;
  for (let depth = 0; depth < 5; depth += 1) {
    if (typeof current !== 'object' || current === null) return current;
    if (typeof (current as { code?: unknown }).code === 'string') return current;
    const cause = (current as { cause?: unknown }).cause;
    if (cause === undefined) return current;
    current = cause;
  }
  return current;
}
