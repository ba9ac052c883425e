import { describe, expect, it } from 'vitest';
import { compileTemplate } from './template';

const render = (source: string, values: Record<string, string>) => {
  const compiled = compileTemplate(source);
  if (!compiled.ok) throw new Error(compiled.reason);
  return compiled.template.render((field) => values[field]);
};

describe('compileTemplate', () => {
  it.each([
    ['https://www.dynadot.com/market/auction/{Domain}', { Domain: 'xoly.ai' }, 'https://www.dynadot.com/market/auction/xoly.ai'],
    ['https://sedo.com/search/details/?domain={domain}', { domain: ' müller.de ' }, 'https://sedo.com/search/details/?domain=m%C3%BCller.de'],
    ['https://m.example/{a}?ref={b}&again={a}', { a: 'x y', b: 'c&d=e/f' }, 'https://m.example/x%20y?ref=c%26d%3De%2Ff&again=x%20y'],
    ['{End Time}', { 'End Time': '22:17 PST' }, '22%3A17%20PST'],
  ])('renders %s', (source, values, expected) => {
    expect(render(source, values)).toBe(expected);
  });

  it('names its fields once each, in order, and renders nothing when one has no value', () => {
    const compiled = compileTemplate('https://m.example/{a}/{b}/{a}');
    expect(compiled.ok && compiled.template.fields).toEqual(['a', 'b']);
    expect(render('https://m.example/{a}/{b}', { a: 'x' })).toBeUndefined();
  });

  it.each([
    ['https://m.example/{Domain', '"{" at 19 is not closed'],
    ['https://m.example/{a{b}}', '"{" at 19 is not closed'],
    ['https://m.example/Domain}', '"}" at 25 closes no "{"'],
    ['https://m.example/{}', '"{}" at 19 names no field'],
    ['https://m.example/{ }', '"{}" at 19 names no field'],
    ['https://m.example/', 'names no {field}; a fixed text is a constant'],
  ])('refuses %s: %s', (source, reason) => {
    expect(compileTemplate(source)).toEqual({ ok: false, reason });
  });
});
