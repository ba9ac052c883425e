import { OUTCOME_LABELS, OUTCOMES, type Outcome } from '../usage/outcome';
import type { UsageBucket } from '../usage/usage-query';
import { html, type SafeHtml } from '@domain-index/html/html';
import { count } from './layout';

const HEIGHT = 220;
const TOP = 22;
const BOTTOM = 22;
const PLOT = HEIGHT - TOP - BOTTOM;
/** The stacking order of a bar, from the bottom; `unsplit` is what was counted before outcomes were. */
const LAYERS: readonly (Outcome | 'unsplit')[] = [...OUTCOMES, 'unsplit'];
const LAYER_LABELS: Readonly<Record<Outcome | 'unsplit', string>> = {
  ...OUTCOME_LABELS,
  unsplit: 'not split',
};

const pct = (value: number) => `${value.toFixed(3)}%`;

/**
 * Requests per bucket as bars stacked by outcome, drawn on the server (no script, nothing from
 * another host), with the plan's limit for a bucket as a dashed line. Horizontal positions are
 * percentages and there is no viewBox, so the chart fills any width while its text keeps its
 * size: legible at 390 px as at 1280. The limit is drawn when the bars come within a quarter of
 * it; otherwise the scale follows the bars and the limit is written in the corner.
 */
export function usageChart(options: {
  buckets: readonly UsageBucket[];
  /** What the chart shows, for screen readers: "Requests per hour over the last 24 hours". */
  title: string;
  /** The label under a bucket, or undefined for none. */
  tick: (bucket: UsageBucket, index: number) => string | undefined;
  /** The plan's limit for one bucket, and how to say it ("1,000 per hour"). */
  limit: { perBucket: number; text: string } | undefined;
  /** How a bucket's time is said in its tooltip. */
  when: (bucket: UsageBucket) => string;
}): SafeHtml {
  const { buckets, limit } = options;
  const most = Math.max(0, ...buckets.map((bucket) => bucket.requests));
  const limitDrawn = limit !== undefined && most >= limit.perBucket / 4;
  const scale = Math.max(1, most, limitDrawn ? limit.perBucket * 1.1 : 0);
  const y = (value: number) => TOP + PLOT - (value / scale) * PLOT;
  const slot = 100 / buckets.length;
  const totals = Object.fromEntries(
    LAYERS.map((layer) => [layer, buckets.reduce((sum, bucket) => sum + bucket[layer], 0)]),
  ) as Record<Outcome | 'unsplit', number>;
  const all = buckets.reduce((sum, bucket) => sum + bucket.requests, 0);
  const bars = buckets.map((bucket, i) => {
    let base = 0;
    const layers = LAYERS.filter((layer) => bucket[layer] > 0).map((layer) => {
      const top = base + bucket[layer];
      const rect = html`<rect
        class="o-${layer}"
        x="${pct(i * slot + slot * 0.12)}"
        width="${pct(slot * 0.76)}"
        y="${y(top).toFixed(1)}"
        height="${Math.max(1, y(base) - y(top)).toFixed(1)}"
      ></rect>`;
      base = top;
      return rect;
    });
    const split = LAYERS.filter((layer) => bucket[layer] > 0).map(
      (layer) => `${count(bucket[layer])} ${LAYER_LABELS[layer]}`,
    );
    const tick = options.tick(bucket, i);
    const tip = `${options.when(bucket)}: ${count(bucket.requests)} requests${split.length > 0 ? ` (${split.join(', ')})` : ''}, ${count(bucket.rows)} rows`;
    const label =
      tick === undefined
        ? ''
        : html`<text x="${pct(i * slot + slot * 0.12)}" y="${HEIGHT - 6}">${tick}</text>`;
    return html`<g><title>${tip}</title>${layers}</g>${label}`;
  });
  const limitLine = !limitDrawn
    ? limit === undefined
      ? ''
      : html`<text class="limit-label" x="100%" y="${TOP - 6}" text-anchor="end"
          >limit ${limit.text}: far above</text
        >`
    : html`<line
          class="limit"
          x1="0"
          x2="100%"
          y1="${y(limit.perBucket).toFixed(1)}"
          y2="${y(limit.perBucket).toFixed(1)}"
        ></line>
        <text class="limit-label" x="0.5%" y="${(y(limit.perBucket) - 5).toFixed(1)}"
          >limit ${limit.text}</text
        >`;
  const summary = OUTCOMES.map(
    (outcome) => `${count(totals[outcome])} ${OUTCOME_LABELS[outcome]}`,
  ).join(', ');
  const label = `${options.title}: ${count(all)} in all (${summary}${totals.unsplit > 0 ? `, ${count(totals.unsplit)} not split` : ''}); at most ${count(most)} in one bar${limit === undefined ? '' : `; limit ${limit.text}`}`;
  // the limit after the bars, its label with a halo: legible where it crosses a bar
  return html`<div class="chart-box">
    <svg class="chart" role="img" aria-label="${label}">
      <line class="grid" x1="0" x2="100%" y1="${TOP}" y2="${TOP}"></line>
      <text x="0" y="${TOP - 6}">${count(Math.round(scale))}</text>
      <line class="axis" x1="0" x2="100%" y1="${TOP + PLOT}" y2="${TOP + PLOT}"></line>
      ${bars} ${limitLine}
    </svg>
    <ul class="legend">
      ${LAYERS.filter((layer) => layer !== 'unsplit' || totals.unsplit > 0).map(
        (layer) =>
          html`<li>
            <span class="swatch o-${layer}"></span>${LAYER_LABELS[layer]}: ${count(totals[layer])}
          </li>`,
      )}${limit === undefined ? '' : html`<li><span class="swatch limit-swatch"></span>limit ${limit.text}</li>`}
    </ul>
  </div>`;
}
