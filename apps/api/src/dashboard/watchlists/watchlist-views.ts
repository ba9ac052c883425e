import type { AddedDomains, WatchedDomain } from '@domain-index/contract';
import { html, type SafeHtml } from '@domain-index/html/html';
import { cardTable, cell, count, DASHBOARD, utc } from '../layout';
import { newFormToken } from '../key-reveal';
import { NAMES_PER_FORM } from './name-list';

/** What a form that sent names is told back: the names refused, by the line they were on. */
export interface NamesOutcome {
  added: number;
  alreadyWatched: number;
  refused: AddedDomains['refused'];
  lines: readonly number[];
}

/** The pasted list's field, with how it is read and its bound. */
export function namesField(id: string, value: string): SafeHtml {
  return html`<label for="${id}-domains">Names</label>
    <textarea id="${id}-domains" name="domains" rows="8" aria-describedby="${id}-domains-hint">${value}</textarea>
    <span class="hint" id="${id}-domains-hint"
      >One a line, or separated by commas or spaces, in ASCII (punycode); at most ${count(NAMES_PER_FORM)} at a time. Names already on the list are
      left as they are.</span
    >`;
}

/** What adding names did, and each refused name with its line and why. */
export function outcomeNotice(outcome: NamesOutcome): SafeHtml {
  const summary = `${count(outcome.added)} ${outcome.added === 1 ? 'name' : 'names'} added, ${count(outcome.alreadyWatched)} already on the list, ${count(outcome.refused.length)} refused.`;
  if (outcome.refused.length === 0) return html`<p class="notice info" role="status">${summary}</p>`;
  return html`<div class="notice error" role="alert">
      <p>${summary} The refused names are not valid domain names: fix them and add them again.</p>
    </div>
    ${cardTable({
      label: 'Refused names',
      columns: [{ title: 'Line', className: 'num' }, { title: 'Name' }, { title: 'Why' }],
      rows: outcome.refused.map(
        (refused) => html`<tr role="row">
          ${cell('Line', outcome.lines[refused.index] ?? refused.index + 1, 'num')} ${cell('Name', html`<code class="wrap">${refused.domain}</code>`)}
          ${cell('Why', refused.message)}
        </tr>`,
      ),
      empty: '',
    })}`;
}

/** A price as listed: two decimals at most. */
const price = (value: number | null) => (value === null ? html`<span class="detail">none listed</span>` : value.toLocaleString('en-US', { maximumFractionDigits: 2 }));

/** One watched name's row, with its remove button. */
export function watchedRow(watchlistId: string, domain: WatchedDomain): SafeHtml {
  const expected = domain.expected_drop_at === null ? html`<span class="detail">not known</span>` : utc(new Date(domain.expected_drop_at));
  return html`<tr role="row">
    ${cell('Name', html`<strong class="wrap">${domain.domain_name}</strong>`)}
    ${cell('Phase', domain.phase === null ? html`<span class="detail">not checked yet</span>` : domain.phase.replaceAll('_', ' '))}
    ${cell('Expected drop', expected, 'time')} ${cell('Listings now', domain.listings_count, 'num')} ${cell('Lowest price', price(domain.lowest_price), 'num')}
    ${cell('Next check', domain.next_check_at === null ? html`<span class="detail">not scheduled</span>` : utc(new Date(domain.next_check_at)), 'time')}
    ${cell(
      'Actions',
      html`<form class="inline" method="post" action="${DASHBOARD}/watchlists/${watchlistId}/remove">
        <input type="hidden" name="form_token" value="${newFormToken()}" />
        <input type="hidden" name="domain" value="${domain.domain_name}" />
        <button type="submit" class="quiet small" aria-label="Remove ${domain.domain_name}">Remove</button>
      </form>`,
    )}
  </tr>`;
}
