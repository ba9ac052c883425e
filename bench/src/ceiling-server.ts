// The HTTP ceiling of the benchmark: Express 4, one GET handler, a fixed JSON body of the same
// size as the API's answer. Nothing the API does beyond HTTP and routing happens here.
import { readFileSync } from 'node:fs';
import express from 'express';

const body = readFileSync(process.env.BODY_FILE ?? '', 'utf8');
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('*', (_req, res) => {
  res.type('application/json').send(body);
});
app.listen(Number(process.env.PORT), '127.0.0.1', () => {
  process.stdout.write('ceiling listening\n');
});
