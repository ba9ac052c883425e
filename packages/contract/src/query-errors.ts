import { z } from 'zod';
import type { ApiErrorBody } from './errors';

/**
 * Turns the validation failure of a query into the one error the client sees: an unknown
 * parameter first (400 `unknown_parameter`), else the first unusable value
 * (400 `invalid_parameter`), always naming the parameter.
 */
export function queryErrorToApiError(error: z.ZodError): ApiErrorBody {
  let firstUnknown: string | undefined;
  for (const issue of error.issues) {
    if (issue.code === z.ZodIssueCode.unrecognized_keys) {
      firstUnknown = issue.keys[0];
      break;
    }
  }
  if (firstUnknown !== undefined) {
    return {
      code: 'unknown_parameter',
      message: `${firstUnknown} is not a parameter of this endpoint`,
      param: firstUnknown,
    };
  }
  const issue = error.issues[0];
  const param = issue?.path[0];
  if (issue === undefined || typeof param !== 'string') {
    return { code: 'invalid_parameter', message: 'the query is not valid', param: '' };
  }
  return { code: 'invalid_parameter', message: `${param} ${issue.message}`, param };
}
