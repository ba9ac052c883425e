import type { UsageHour } from '../usage/usage-query';
import { html, type SafeHtml } from './html';

const WIDTH = 720;
const HEIGHT = 220;
const LEFT = 44;
const BOTTOM = 28;
const TOP = 12;

/** Requests per hour as bars, drawn on the server: no script, nothing from another host. */
export function usageChart(hours: readonly UsageHour[]): SafeHtml {
  const most = Math.max(1, ...hours.map((hour) => hour.requests));
  const plotWidth = WIDTH - LEFT - 8;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / hours.length;
  const total = hours.reduce((sum, hour) => sum + hour.requests, 0);
  const bars = hours.map((hour, i) => {
    const height = (hour.requests / most) * plotHeight;
    const x = LEFT + i * slot + 2;
    const label = `${hour.hour.toISOString().slice(11, 16)} UTC`;
    return html`<rect class="bar" x="${x.toFixed(1)}" y="${(TOP + plotHeight - height).toFixed(1)}" width="${(slot - 4).toFixed(1)}" height="${height.toFixed(1)}"><title>${label}: ${hour.requests} requests, ${hour.rows} rows</title></rect>
      ${i % 6 === 0 ? html`<text x="${x.toFixed(1)}" y="${HEIGHT - 8}">${label.slice(0, 5)}</text>` : ''}`;
  });
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="Requests per hour over the last 24 hours: ${total} in all, at most ${most === 1 && total === 0 ? 0 : most} in one hour">
    <line x1="${LEFT}" y1="${TOP + plotHeight}" x2="${WIDTH - 8}" y2="${TOP + plotHeight}" stroke="#aab3bd"/>
    <text x="4" y="${TOP + 10}">${most}</text><text x="4" y="${TOP + plotHeight}">0</text>
    ${bars}
  </svg>`;
}
