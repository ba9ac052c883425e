/** The most a dashboard form may send: ours send a few short fields. */
export const FORM_LIMITS = { bytes: 16 * 1024, namesBytes: 256 * 1024, fields: 20 } as const;

/** A request refused as the client's mistake: its status, and what the person can do about it. */
export interface Refusal {
  status: number;
  title: string;
  fix: string;
}

/** What body-parser and Express raise for a request they cannot read: http-errors with a 4xx status. */
interface HttpError {
  status: number;
  type?: unknown;
}

function isClientError(error: unknown): error is HttpError {
  if (typeof error !== 'object' || error === null || !('status' in error)) return false;
  return typeof error.status === 'number' && error.status >= 400 && error.status < 500;
}

/**
 * The 4xx answer to an error that is the request's fault (a form too large, too many fields, a
 * charset other than UTF-8, a path that is not valid percent-encoding), or undefined for a
 * failure of ours. body-parser answers too many fields with 413; it is a malformed form, so 400.
 */
export function requestRefusal(error: unknown): Refusal | undefined {
  if (!isClientError(error)) return undefined;
  switch (error.type) {
    case 'entity.too.large':
      return {
        status: 413,
        title: 'The form is too large',
        fix: `A form may send at most ${FORM_LIMITS.bytes / 1024} kB. Shorten what you typed and send it again.`,
      };
    case 'parameters.too.many':
      return {
        status: 400,
        title: 'The form has too many fields',
        fix: `A form may send at most ${FORM_LIMITS.fields} fields. Reload the page and use its form as it is.`,
      };
    case 'charset.unsupported':
      return {
        status: 415,
        title: 'The form is not in UTF-8',
        fix: 'Send the form as application/x-www-form-urlencoded in UTF-8, as browsers do with these pages.',
      };
    case 'encoding.unsupported':
      return {
        status: 415,
        title: 'The form is compressed in a way not supported',
        fix: 'Send the form uncompressed (or with gzip or deflate).',
      };
    default:
      return {
        status: error.status,
        title: 'The request could not be read',
        fix: 'Reload the page and try again.',
      };
  }
}
