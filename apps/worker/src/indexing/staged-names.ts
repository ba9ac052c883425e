/**
 * Whether a batch's staged names may repeat, known without asking the database: the SQL that
 * drops duplicate names sorts every staged row (2 s of a 1,000,000-row first load) and almost
 * every feed lists each name once. Every staged row's name is hashed where it is staged (in a
 * staging worker or this thread), and the hashes are collected here. A repeated name always
 * gives a repeated hash, so `mayRepeat` false proves there is no duplicate; two names sharing a
 * hash only make `mayRepeat` true, and the SQL then decides, as it did for every batch before.
 */
export class StagedNames {
  /** Open addressing, linear probing; 0 marks an empty slot (a hash of 0 is stored as 1). */
  private slots = new Float64Array(1 << 16);
  private count = 0;
  private repeated = false;

  /** True once two staged names share a hash: the batch may list a name twice. */
  get mayRepeat(): boolean {
    return this.repeated;
  }

  /** Adds the hashes (nameHash) of rows that went to the staging table. */
  add(hashes: ArrayLike<number>): void {
    for (let i = 0; i < hashes.length; i++) this.addHash(hashes[i]!);
  }

  /** Adds the hash (nameHash) of one row's name. */
  addHash(hash: number): void {
    // once two hashes repeat the answer is known: the statement will run
    if (!this.repeated) this.insert(hash === 0 ? 1 : hash);
  }

  private insert(hash: number): void {
    // Three quarters full at most: 1,000,000 names take 16 MiB, 5,000,000 take 64 MiB (half as
    // much again while the table doubles, the old one still held).
    if ((this.count + 1) * 4 > this.slots.length * 3) this.grow();
    const mask = this.slots.length - 1;
    for (let slot = hash % this.slots.length; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot]!;
      if (held === 0) {
        this.slots[slot] = hash;
        this.count += 1;
        return;
      }
      if (held === hash) {
        this.repeated = true;
        return;
      }
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Float64Array(old.length * 2);
    this.count = 0;
    for (const hash of old) if (hash !== 0) this.insert(hash);
  }
}

/** 2^21: the second hash's share of the 53 bits a double holds exactly. */
const LOW_BITS = 2_097_152;

/**
 * A 53-bit hash of a name: a 32-bit FNV-1a hash of its UTF-16 code units, and the low 21 bits
 * of a second FNV-style hash with another offset and an extra shift-xor per unit; a whole
 * number a Float64Array holds exactly. Among 1,000,000 distinct names two share one with a
 * probability of about 1 in 18,000 (if the bits are independent).
 */
export function nameHash(name: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x01000193);
    b ^= b >>> 15;
  }
  return (a >>> 0) * LOW_BITS + ((b >>> 0) % LOW_BITS);
}
