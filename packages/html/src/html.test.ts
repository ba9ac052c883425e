import { describe, expect, it } from 'vitest';
import { html } from './html';

describe('html templates', () => {
  it('escapes every interpolated value, nested templates excepted', () => {
    const name = `<script>alert("x")</script> & 'quotes'`;
    expect(html`<td title="${name}">${name}</td>`.text).toBe(
      '<td title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;</td>',
    );
    expect(html`<ul>${['<a>', html`<li>${'<b>'}</li>`]}</ul>`.text).toBe('<ul>&lt;a&gt;<li>&lt;b&gt;</li></ul>');
    expect(html`${null}${undefined}${false}${0}`.text).toBe('0');
  });
});
