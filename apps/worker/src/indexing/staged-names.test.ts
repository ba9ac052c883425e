import { describe, expect, it } from 'vitest';
import { nameHash, StagedNames } from './staged-names';

describe('StagedNames', () => {
  it('finds no repeat among distinct names, however many, and finds one added late', () => {
    const names = new StagedNames();
    // past several doublings of its table
    for (let i = 0; i < 300_000; i++) names.addHash(nameHash(`name${i}.com`));
    expect(names.mayRepeat).toBe(false);
    names.add(Float64Array.of(nameHash('name17.com')));
    expect(names.mayRepeat).toBe(true);
  });

  it('treats a hash of 0 like any other', () => {
    const names = new StagedNames();
    names.add([0, 5]);
    expect(names.mayRepeat).toBe(false);
    names.addHash(0);
    expect(names.mayRepeat).toBe(true);
  });
});

describe('nameHash', () => {
  it('is a whole number a double holds exactly, the same for the same name', () => {
    for (const name of ['a.com', 'xn--bcher-kva.de', 'ab', '', 'z'.repeat(253)]) {
      const hash = nameHash(name);
      expect(Number.isSafeInteger(hash) && hash >= 0).toBe(true);
      expect(nameHash(name)).toBe(hash);
    }
  });

  it('tells apart names that differ in one character or by order', () => {
    const hashes = new Set(
      ['ab.com', 'ba.com', 'ac.com', 'ab.co', 'ab.comm', 'a.bcom'].map(nameHash),
    );
    expect(hashes.size).toBe(6);
  });
});
