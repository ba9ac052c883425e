/** The time source of the service; tests pass their own to move time without sleeping. */
export interface Clock {
  now(): Date;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => new Date() };
