import type { Response, Router } from 'express';
import { strictRouter } from '../http/strict-router';
import { routesUnder } from '../ops/request-metrics';
import { DASHBOARD } from './layout';

/** The dashboard's only stylesheet: small screens first, a table that scrolls sideways when narrow. */
const CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f6f7f9}
header{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;justify-content:space-between;padding:.75rem 1rem;background:#14213d;color:#fff}
header a{color:#fff;text-decoration:none}
.brand{font-weight:700}
nav{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center}
nav form{margin:0}
.who{opacity:.8;font-size:.9rem}
main{max-width:76rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
form.stack{display:grid;gap:.75rem;max-width:26rem;background:#fff;padding:1rem;border-radius:.5rem;border:1px solid #d8dde3}
label{display:grid;gap:.25rem;font-weight:600}
input,select{font:inherit;padding:.5rem;border:1px solid #aab3bd;border-radius:.35rem;width:100%}
button{font:inherit;padding:.45rem .9rem;border-radius:.35rem;border:1px solid #14213d;background:#14213d;color:#fff;cursor:pointer}
button.danger{background:#b42318;border-color:#b42318}
button.quiet{background:#fff;color:#14213d}
.notice{padding:.6rem .8rem;border-radius:.35rem}
.notice.error{background:#fdecea;border:1px solid #f5c2bd}
.notice.info{background:#eaf4fd;border:1px solid #b9d8f5}
.secret{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center;background:#fff8e1;border:1px solid #f0d78c;padding:.75rem;border-radius:.5rem}
.secret input{flex:1 1 20rem;font-family:ui-monospace,monospace}
.scroll{overflow-x:auto;background:#fff;border:1px solid #d8dde3;border-radius:.5rem}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:.5rem .6rem;border-bottom:1px solid #e6e9ed;white-space:nowrap}
td.actions{display:flex;gap:.5rem}
ul.sessions{list-style:none;margin:0;padding:0;display:grid;gap:.5rem}
ul.sessions li{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;background:#fff;border:1px solid #d8dde3;border-radius:.5rem;padding:.6rem .8rem}
ul.sessions form{margin:0}
.detail{display:block;font-size:.85rem;color:#4a5563}
.status-active{color:#067647}.status-revoked,.status-expired{color:#b42318}
code{font-family:ui-monospace,monospace}
svg.chart{width:100%;height:auto;background:#fff;border:1px solid #d8dde3;border-radius:.5rem}
svg.chart .bar{fill:#3b6fd4}
svg.chart text{font-size:11px;fill:#4a5563}
`;

/** The copy button: progressive enhancement, since the key sits in a selectable field anyway. */
const COPY_JS = `
document.addEventListener('click', function (event) {
  var button = event.target.closest('[data-copy]');
  if (!button) return;
  var field = document.getElementById(button.getAttribute('data-copy'));
  if (!field) return;
  field.select();
  var done = function () { button.textContent = 'Copied'; };
  if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand('copy'); done(); });
  else { document.execCommand('copy'); done(); }
});
`;

/**
 * Serves the stylesheet and script from the service's own origin (CSP default-src 'self'), with
 * the dashboard's `Cache-Control: no-store` like every dashboard response: they are 3 kB.
 */
export function dashboardAssets(): Router {
  const router = strictRouter();
  router.use(routesUnder(`${DASHBOARD}/assets`));
  const send = (type: string, body: string) => (_req: unknown, res: Response) => {
    res.setHeader('Content-Type', type);
    res.send(body);
  };
  router.get('/dashboard.css', send('text/css; charset=utf-8', CSS));
  router.get('/copy.js', send('text/javascript; charset=utf-8', COPY_JS));
  return router;
}
