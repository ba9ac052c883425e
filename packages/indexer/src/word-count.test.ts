import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wordCount } from './word-count';

describe('wordCount', () => {
  it('returns 0 for an empty brand', () => {
    expect(wordCount('')).toBe(0);
  });

  it('counts a single word as 1', () => {
    for (const brand of ['car', 'therapist', 'online', 'website', 'mom', 'color', 'colour']) {
      expect(wordCount(brand)).toBe(1);
    }
  });

  it('counts the fewest words that cover the brand', () => {
    expect(wordCount('bestcar')).toBe(2);
    expect(wordCount('webhosting')).toBe(2);
    expect(wordCount('bestcardeals')).toBe(3);
    expect(wordCount('thequickbrown')).toBe(3);
    // "therapist" beats "the" + "rapist".
    expect(wordCount('therapist')).toBe(1);
  });

  it('returns 0 for four or more words', () => {
    expect(wordCount('bestcardealsnow')).toBe(0);
    expect(wordCount('thequickbrownfox')).toBe(0);
  });

  it('returns 0 for letters that no words cover', () => {
    for (const brand of ['qwrtz', 'xkcd', 'zzz', 'bcdfg', 'carx']) expect(wordCount(brand)).toBe(0);
  });

  it('counts only "a" and "i" as single letters', () => {
    expect(wordCount('a')).toBe(1);
    expect(wordCount('i')).toBe(1);
    expect(wordCount('abook')).toBe(2);
    for (const letter of ['b', 'c', 'x', 'z']) expect(wordCount(letter)).toBe(0);
    expect(wordCount('carx')).toBe(0);
  });

  it('counts only real 2-letter words, not abbreviations in the list', () => {
    for (const word of ['an', 'go', 'my', 'up', 'we']) expect(wordCount(word)).toBe(1);
    for (const junk of ['cs', 're', 'ms', 'pi', 'em', 'ha', 'uh']) expect(wordCount(junk)).toBe(0);
    expect(wordCount('gohome')).toBe(2);
  });

  it('does not count proper nouns', () => {
    expect(wordCount('london')).toBe(0);
    expect(wordCount('texas')).toBe(0);
  });

  it('returns 0 when the brand contains a digit', () => {
    expect(wordCount('car4sale')).toBe(0);
    expect(wordCount('365')).toBe(0);
    expect(wordCount('cars-2')).toBe(0);
  });

  it('counts hyphen-separated parts and adds them up', () => {
    expect(wordCount('best-car')).toBe(2);
    expect(wordCount('best-cardeals')).toBe(3);
    expect(wordCount('best-car-deals')).toBe(3);
    expect(wordCount('best-car-deals-now')).toBe(0);
    expect(wordCount('bestcar-dealsnow')).toBe(0);
    expect(wordCount('best-qwrtz')).toBe(0);
  });

  it('returns 0 for empty hyphen parts and punycode', () => {
    for (const brand of ['-', 'car-', '-car', 'car--deals', 'xn--bcher-kva']) {
      expect(wordCount(brand)).toBe(0);
    }
  });

  it('always returns 0-3 and never throws', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (brand) => {
        expect([0, 1, 2, 3]).toContain(wordCount(brand));
      }),
    );
  });

  it('adds the counts of concatenated words up to 3', () => {
    const word = fc.constantFrom('car', 'home', 'shop', 'cloud', 'green', 'energy', 'kitchen');
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), (words) => {
        const count = wordCount(words.join(''));
        if (words.length > 3) expect(count).toBe(0);
        else expect(count).toBeGreaterThanOrEqual(1);
        expect(count).toBeLessThanOrEqual(words.length);
        expect(wordCount(words.join('-'))).toBe(words.length > 3 ? 0 : words.length);
      }),
    );
  });
});
