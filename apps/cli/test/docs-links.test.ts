import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchorsOf, checkLinks, checkRepositoryLinks, linksOf, slugOf } from './support/markdown-links';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The problems of a made-up repository, as `file:line target reason` lines. */
function problemsOf(files: Record<string, string>, others: string[] = []): string[] {
  const paths = new Set([...Object.keys(files), ...others, 'docs', 'bench', 'bench/notes', 'bench/results']);
  return checkLinks(new Map(Object.entries(files)), paths).map((p) => `${p.file}:${p.line} ${p.target} ${p.reason}`);
}

describe('links in the Markdown of the repository', () => {
  it('every link and image resolves inside the repository, anchors included', () => {
    const { markdown, problems } = checkRepositoryLinks(root);
    expect(markdown).toContain('README.md');
    expect(markdown).toContain('docs/api.md');
    expect(problems.map((p) => `${p.file}:${p.line}: (${p.target}) ${p.reason}`)).toEqual([]);
  });

  it('refuses a link that leaves the repository, in any spelling', () => {
    expect(
      problemsOf({
        'README.md': [
          'See [the spec](../shared/spec/api-v1.md), [a site](https://example.com/x),',
          '[no scheme](//example.com), [from the root](/docs/api.md), [mail](mailto:a@example.com),',
          'a bare https://example.com/page, <https://example.com/auto> and <ops@example.com>,',
          '<a href="http://example.com/html">html</a>, and [ref]: https://example.com/ref',
          '',
          '[ref]: https://example.com/ref',
        ].join('\n'),
      }),
    ).toEqual([
      'README.md:1 ../shared/spec/api-v1.md leaves the repository',
      'README.md:1 https://example.com/x points outside the repository: name it in plain text instead',
      'README.md:2 //example.com points outside the repository: name it in plain text instead',
      'README.md:2 /docs/api.md starts at / : write it relative to this file',
      'README.md:2 mailto:a@example.com points outside the repository: name it in plain text instead',
      'README.md:3 https://example.com/page points outside the repository: name it in plain text instead',
      'README.md:3 https://example.com/auto points outside the repository: name it in plain text instead',
      'README.md:3 mailto:ops@example.com points outside the repository: name it in plain text instead',
      'README.md:4 http://example.com/html points outside the repository: name it in plain text instead',
      'README.md:4 https://example.com/ref points outside the repository: name it in plain text instead',
      'README.md:6 https://example.com/ref points outside the repository: name it in plain text instead',
    ]);
  });

  it('refuses a relative path that is not there, and an anchor that is not a heading', () => {
    expect(
      problemsOf({
        'README.md': '[api](docs/api.md) [gone](docs/gone.md) ![shot](docs/missing.png)\n[anchor](docs/api.md#errors) [bad](docs/api.md#no-such-heading) [self](#nowhere)',
        'docs/api.md': '# The API\n\n## Errors\n\n[back](../README.md#the-api) [ok](#the-api) [line](../src/a.ts#L3-L9) [not md](../src/a.ts#top)',
      }, ['src/a.ts']),
    ).toEqual([
      'README.md:1 docs/gone.md names docs/gone.md, which is not in the repository',
      'README.md:1 docs/missing.png names docs/missing.png, which is not in the repository',
      'README.md:2 docs/api.md#no-such-heading has no heading #no-such-heading in docs/api.md',
      'README.md:2 #nowhere has no heading #nowhere in README.md',
      'docs/api.md:5 ../README.md#the-api has no heading #the-api in README.md',
      'docs/api.md:5 ../src/a.ts#top has an anchor, but src/a.ts is not a Markdown file',
    ]);
  });

  it('ignores links in fenced code blocks and code spans', () => {
    expect(
      problemsOf({
        'README.md': [
          '```sh',
          'curl https://example.com/[x](../outside)',
          '```',
          '',
          '~~~',
          '[x](gone.md)',
          '~~~',
          'Run `curl https://example.com` and `[x](gone.md)`, or ``a `[y](gone.md)` b``;',
          'a span `over',
          'two lines https://example.com` too.',
        ].join('\n'),
      }),
    ).toEqual([]);
  });

  it('makes anchors as GitHub does: punctuation dropped, spaces as hyphens, repeats numbered', () => {
    expect(slugOf('The `domain-index` CLI')).toBe('the-domain-index-cli');
    expect(slugOf('Alerts: saved searches delivered by signed webhooks and email')).toBe(
      'alerts-saved-searches-delivered-by-signed-webhooks-and-email',
    );
    expect(slugOf('Search, lookup and stats: the choices (v1)')).toBe('search-lookup-and-stats-the-choices-v1');
    expect(slugOf('`api_key_in_query` and **bold** and [a link](x.md)')).toBe('api_key_in_query-and-bold-and-a-link');
    expect(slugOf('Keys & plans')).toBe('keys--plans');
    expect([...anchorsOf('# Usage\n\n## Usage\n\n### Usage\n\n```\n# Usage\n```\n## Rows/s, 20M')]).toEqual([
      'usage',
      'usage-1',
      'usage-2',
      'rowss-20m',
    ]);
  });

  it('reads bench notes as the parts of BENCHMARKS.md they become: links from the root', () => {
    expect(
      problemsOf(
        {
          'bench/notes/10-a.md': '[raw](bench/results/a.json) [wrong](../results/a.json)',
          'BENCHMARKS.md': '[raw](bench/results/a.json)',
        },
        ['bench/results/a.json'],
      ),
    ).toEqual(['bench/notes/10-a.md:1 ../results/a.json leaves the repository']);
  });

  it('finds each link on its own line of a paragraph, and titles and <...> destinations', () => {
    expect(linksOf('one\n[a](x.md "title") and [b](<y z.md>)\n\n![c](d.png)')).toEqual([
      { line: 2, target: 'x.md' },
      { line: 2, target: 'y z.md' },
      { line: 4, target: 'd.png' },
    ]);
  });
});
