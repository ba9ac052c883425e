const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';

/** The three HTTP-date forms of RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime. */
const IMF_FIXDATE = new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`);
const RFC_850 = new RegExp(`^${LONG_DAY}, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`);
const ASCTIME = new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`);

/**
 * The seconds a response's `Retry-After` asks to wait before the next request: its delay in
 * whole seconds, or the time until its HTTP date (0 when that date has passed). Undefined when
 * the header is absent or unreadable, so a malformed value simply leaves the schedule in charge.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  let at: number;
  if (IMF_FIXDATE.test(text) || RFC_850.test(text)) at = Date.parse(text);
  // asctime carries no zone, and Date.parse would read it as local time: it is GMT.
  else if (ASCTIME.test(text)) at = Date.parse(`${text} GMT`);
  else return undefined;
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
