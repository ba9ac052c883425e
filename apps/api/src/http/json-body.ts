import { ALERT_LIMITS } from '@domain-index/contract';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { ApiError } from '@domain-index/api-errors/api-error';

/**
 * Reads the JSON body of the API's writing endpoints (alerts), up to 16 KB. What cannot be read
 * is a 400 naming `body` in the error envelope: a body that is not JSON, one too large, or one
 * sent as something else than application/json.
 */
export function jsonBody(): [RequestHandler, ErrorRequestHandler] {
  const parse: RequestHandler = express.json({ limit: ALERT_LIMITS.bodyMaxBytes, strict: true, type: () => true });
  const onlyJson: RequestHandler = (req, res, next) => {
    const length = Number(req.get('content-length') ?? 0);
    const hasBody = length > 0 || req.get('transfer-encoding') !== undefined;
    if (!hasBody) {
      next();
      return;
    }
    const type = req.get('content-type') ?? '';
    if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
      next(new ApiError('invalid_parameter', 'body: send the body as JSON, with Content-Type: application/json', 'body'));
      return;
    }
    parse(req, res, next);
  };
  const refused: ErrorRequestHandler = (error: unknown, _req, _res, next) => {
    const type = (error as { type?: unknown }).type;
    if (type === 'entity.too.large') next(new ApiError('invalid_parameter', `body: larger than ${ALERT_LIMITS.bodyMaxBytes / 1024} KB`, 'body'));
    else if (type === 'entity.parse.failed') next(new ApiError('invalid_parameter', 'body: not valid JSON', 'body'));
    else if (type === 'encoding.unsupported' || type === 'charset.unsupported') next(new ApiError('invalid_parameter', 'body: send it as UTF-8 JSON', 'body'));
    else next(error);
  };
  // A request without a body (every GET, the hot path) never reaches the parser: it costs a
  // lookup two header reads, not body-parser's work (issue 37).
  return [onlyJson, refused];
}
