import type { Response, Router } from 'express';
import { strictRouter } from '../http/strict-router';
import { routesUnder } from '../ops/request-metrics';
import { DASHBOARD } from './layout';

/**
 * The dashboard's only stylesheet, small screens first. Lists are tables on a wide screen and a
 * card per row below 760 px (layout.ts cardTable), so no column, and no action, is ever off-screen.
 */
const CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f6f7f9}
header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.6rem 1rem;background:#14213d;color:#fff}
header a{color:#fff;text-decoration:none}
header a[aria-current=page]{text-decoration:underline;text-underline-offset:.3rem;font-weight:600}
.brand{font-weight:700}
nav{display:flex;flex-wrap:wrap;gap:.35rem 1rem;align-items:center}
nav form{margin:0}
.who{opacity:.8;font-size:.9rem;overflow-wrap:anywhere}
main{max-width:76rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
p{overflow-wrap:anywhere}
a{color:#1d4ed8}
form.stack{display:grid;gap:.75rem;max-width:26rem;background:#fff;padding:1rem;border-radius:.5rem;border:1px solid #d8dde3}
form.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:end;margin:0 0 1rem}
form.filters label{flex:1 1 14rem;max-width:24rem}
form.filters input,form.filters select{height:2.6rem}
label{display:grid;gap:.25rem;font-weight:600}
input,select,textarea{font:inherit;font-weight:400;padding:.5rem;border:1px solid #aab3bd;border-radius:.35rem;width:100%;background:#fff}
button{font:inherit;padding:.45rem .9rem;border-radius:.35rem;border:1px solid #14213d;background:#14213d;color:#fff;cursor:pointer}
button.danger{background:#b42318;border-color:#b42318}
button.quiet{background:#fff;color:#14213d}
button.small{padding:.2rem .6rem;font-size:.9rem}
a.button{display:inline-block;padding:.25rem .6rem;border:1px solid #aab3bd;border-radius:.35rem;background:#fff;color:#14213d;text-decoration:none;font-size:.9rem;white-space:nowrap}
a.button:hover{border-color:#14213d}
a.button.danger{color:#b42318;border-color:#e4a9a3}
.actions{display:flex;flex-wrap:wrap;gap:.4rem}
@media (min-width:761px){table.cards .actions{flex-wrap:nowrap}}
.notice{padding:.6rem .8rem;border-radius:.35rem}
.notice.error{background:#fdecea;border:1px solid #f5c2bd}
.notice.info{background:#eaf4fd;border:1px solid #b9d8f5}
.secret{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center;background:#fff8e1;border:1px solid #f0d78c;padding:.75rem;border-radius:.5rem}
.secret input{flex:1 1 20rem;font-family:ui-monospace,monospace}
table.cards{border-collapse:separate;border-spacing:0;width:100%;font-size:.95rem;background:#fff;border:1px solid #d8dde3;border-radius:.5rem}
table.cards th,table.cards td{text-align:left;padding:.5rem .6rem;border-bottom:1px solid #e6e9ed;vertical-align:top}
table.cards tbody tr:last-child td{border-bottom:0}
table.cards th{font-size:.85rem;color:#4a5563;font-weight:600;white-space:nowrap}
table.cards .num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.cards .time{white-space:nowrap}
table.cards .wrap{overflow-wrap:anywhere;word-break:break-word}
table.cards td.empty{color:#4a5563}
table.compact{border-collapse:collapse;width:100%;font-size:.9rem;background:#fff;border:1px solid #d8dde3}
table.compact th,table.compact td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #e6e9ed;white-space:nowrap}
table.compact th{font-size:.85rem;color:#4a5563}
table.compact .num{text-align:right;font-variant-numeric:tabular-nums}
.detail{display:block;font-size:.85rem;color:#4a5563}
.status{font-weight:600}
.status-active,.status-ok{color:#067647}
.status-rotated,.status-client{color:#8a4b00}
.status-revoked,.status-expired,.status-server{color:#b42318}
.status-limited{color:#6b21a8}
code{font-family:ui-monospace,monospace;font-size:.9em}
ul.sessions{list-style:none;margin:0;padding:0;display:grid;gap:.5rem}
ul.sessions li{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;background:#fff;border:1px solid #d8dde3;border-radius:.5rem;padding:.6rem .8rem}
ul.sessions form{margin:0}
.tabs{display:flex;flex-wrap:wrap;gap:.4rem;margin:0 0 1rem;padding:0;list-style:none}
.tabs a{display:inline-block;padding:.3rem .75rem;border:1px solid #aab3bd;border-radius:1rem;text-decoration:none;color:#14213d;background:#fff}
.tabs a[aria-current=page]{background:#14213d;color:#fff;border-color:#14213d}
.totals{display:grid;grid-template-columns:repeat(auto-fit,minmax(6.5rem,1fr));gap:.5rem;margin:0 0 1rem;padding:0;list-style:none}
.totals li{background:#fff;border:1px solid #d8dde3;border-radius:.5rem;padding:.5rem .75rem}
.totals strong{display:block;font-size:1.25rem;font-variant-numeric:tabular-nums}
.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:.15rem;margin-right:.35rem;vertical-align:-.05rem}
.chart-box{background:#fff;border:1px solid #d8dde3;border-radius:.5rem;padding:.5rem .75rem}
svg.chart{display:block;width:100%;height:220px;overflow:hidden}
svg.chart text{font-size:12px;fill:#4a5563}
svg.chart .grid{stroke:#e6e9ed}
svg.chart .axis{stroke:#aab3bd}
svg.chart .limit{stroke:#b42318;stroke-dasharray:6 4}
svg.chart text.limit-label{fill:#b42318;stroke:#fff;stroke-width:3px;paint-order:stroke}
.o-ok{fill:#2f855a;background:#2f855a}
.o-clientErrors{fill:#d69e2e;background:#d69e2e}
.o-rateLimited{fill:#805ad5;background:#805ad5}
.o-serverErrors{fill:#c53030;background:#c53030}
.o-unsplit{fill:#a0aec0;background:#a0aec0}
.limit-swatch{height:.2rem;width:1.2rem;background:#b42318;border-radius:0}
.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:.5rem 0 0;padding:0;list-style:none;font-size:.9rem}
form.stack.wide{max-width:40rem}
form.inline{display:inline;margin:0}
textarea{resize:vertical;font-family:ui-monospace,monospace;font-size:.9rem}
.hint{font-weight:400;font-size:.85rem;color:#4a5563;margin:0}
.field-error{font-weight:600;font-size:.9rem;color:#b42318}
[aria-invalid=true]{border-color:#b42318;outline:1px solid #b42318}
label.check{display:flex;gap:.5rem;align-items:center}
label.check input{width:auto}
.toolbar{margin:1rem 0}
.toolbar a.button{font-size:1rem;padding:.45rem .9rem}
div.notice{margin:0 0 1rem}
.notice p{margin:.25rem 0}
.filter code{overflow-wrap:anywhere}
dl.facts{display:grid;grid-template-columns:9rem minmax(0,1fr);gap:.4rem 1rem;margin:0 0 1rem;padding:.75rem 1rem;background:#fff;border:1px solid #d8dde3;border-radius:.5rem}
dl.facts dt{font-weight:600;color:#4a5563}
dl.facts dd{margin:0;overflow-wrap:anywhere;min-width:0}
table.cards td.response{max-width:20rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:760px){
  main{padding:.75rem}
  table.cards,table.cards tbody,table.cards tr,table.cards td{display:block;width:100%}
  table.cards{background:none;border:0}
  table.cards thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
  table.cards tr{background:#fff;border:1px solid #d8dde3;border-radius:.5rem;padding:.35rem .75rem;margin:0 0 .6rem}
  table.cards td{display:grid;grid-template-columns:6.5rem minmax(0,1fr);gap:.5rem;border:0;padding:.3rem 0}
  table.cards td::before{content:attr(data-label);font-size:.85rem;font-weight:600;color:#4a5563}
  table.cards td.empty{display:block}
  table.cards td.blank{display:none}
  table.cards .num{text-align:left}
  table.cards .time{white-space:normal}
  dl.facts{grid-template-columns:6.5rem minmax(0,1fr);gap:.3rem .5rem;padding:.6rem .75rem}
  table.cards td.response{max-width:none}
  table.compact{font-size:.85rem}
  table.compact th,table.compact td{padding:.3rem .35rem}
}
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
 * the dashboard's `Cache-Control: no-store` like every dashboard response: they are 7 kB.
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
