import { canonical, nameWords, nearStopToken, rejoinedTokens, skeleton, type NameWords } from './normalize.js';
import { phoneticKeys, slipValue, tokenSimilarity } from './similarity.js';
import { align, type Alignment, type PreparedName } from './align.js';

/**
 * Candidate retrieval for name screening. Every indexed name is tokenised once at build time;
 * a query touches only the names that share a token with it, exactly or within one edit
 * (symmetric-delete keys), by sound (Double Metaphone) or by consonant skeleton. Those names get
 * a rarity-weighted vote, and only the best-voted few are aligned in full.
 */

export interface IndexInput {
  text: string;
  /** `nameWords(text)`, when the caller already has them. */
  words?: NameWords;
  /** What the name belongs to (an entity or a relationship mention); names of one ref compete. */
  ref: number;
  /** A weak alias (too common to identify its party alone). */
  weak?: boolean;
}

export interface Hit {
  ref: number;
  /** Index of the winning name in the build input. */
  name: number;
  /** Whether that name is a weak alias. */
  weak: boolean;
  /** The reading of the query that was aligned (the query or its rejoined reading). */
  query: PreparedName;
  alignment: Alignment;
}

export interface SearchOptions {
  /** Names aligned in full after voting. */
  candidates?: number;
  /** Hits under this alignment score are dropped. */
  minScore?: number;
  /** Only refs that pass (e.g. one kind of record) are considered. */
  accept?: (ref: number) => boolean;
  /**
   * Keep a ref's best weak-alias hit apart from its best hit on its other names (two hits per ref at
   * most), so a weak alias that aligns better never hides the names that identify the party.
   */
  weakApart?: boolean;
}

/** Gives the event loop a turn during a long build, so a reload never stalls the screens in service. */
export type Pause = () => Promise<void>;
const noPause: Pause = async () => {};
/** Names interned between two pauses (a few milliseconds of work). */
const CHUNK = 2000;

const MIN_FUZZY_LENGTH = 4;
/** How far below minScore a name's vote share may be and the name still be aligned. */
const VOTE_MARGIN = 0.25;
/** A sound key shared by more tokens than this says little and costs a lot to expand. */
const MAX_KEY_FANOUT = 400;

function deletes(token: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < token.length; i++) out.push(token.slice(0, i) + token.slice(i + 1));
  return out;
}

/** Most keys name one token: a bare number saves an array per key (hundreds of thousands of keys). */
type Ids = number | number[];

function pushTo(map: Map<string, Ids>, key: string, id: number): void {
  const ids = map.get(key);
  if (ids === undefined) map.set(key, id);
  else if (typeof ids === 'number') {
    if (ids !== id) map.set(key, [ids, id]);
  } else if (ids[ids.length - 1] !== id) ids.push(id);
}

/** The most similar token of an expansion, if any is similar at all. */
function nearest(found: Map<number, number>): number | undefined {
  let best: number | undefined;
  let bestSim = 0;
  for (const [id, sim] of found) {
    if (sim > bestSim) {
      best = id;
      bestSim = sim;
    }
  }
  return best;
}

const idsOf = (ids: Ids | undefined): readonly number[] => (ids === undefined ? [] : typeof ids === 'number' ? [ids] : ids);

export class NameIndex {
  private readonly vocab = new Map<string, number>();
  private readonly tokenText: string[] = [];
  private readonly tokenKeys: string[][] = [];
  private idf = new Float64Array(0);
  private postings: Int32Array[] = [];
  private readonly byDelete = new Map<string, Ids>();
  private readonly bySound = new Map<string, Ids>();
  private readonly bySkeleton = new Map<string, Ids>();
  private readonly names: PreparedName[] = [];
  /** The names as written, for reporting which one matched. */
  readonly texts: string[];
  private readonly refs: Int32Array;
  private readonly weak: Uint8Array;
  /** Sum of token weights per name: with the vote, an estimate of the alignment score. */
  private totals = new Float64Array(0);
  private readonly acc: Float64Array;
  private readonly est: Float64Array;
  private readonly stamp: Int32Array;
  private readonly touched: Int32Array;
  private stampSeq = 0;
  private maxIdf = 1;
  private minIdf = 1;

  private constructor(inputs: IndexInput[]) {
    this.refs = new Int32Array(inputs.length);
    this.weak = Uint8Array.from(inputs, (i) => (i.weak ? 1 : 0));
    this.texts = inputs.map((i) => i.text);
    this.acc = new Float64Array(inputs.length);
    this.est = new Float64Array(inputs.length);
    this.stamp = new Int32Array(inputs.length);
    this.touched = new Int32Array(inputs.length);
  }

  /** Builds the index, pausing every few thousand names. */
  static async build(inputs: IndexInput[], pause: Pause = noPause): Promise<NameIndex> {
    const index = new NameIndex(inputs);
    const nameTokenIds: number[][] = [];
    const nameSpellings: string[][] = [];
    const postingLists: number[][] = [];
    for (let nameId = 0; nameId < inputs.length; nameId++) {
      const input = inputs[nameId]!;
      index.refs[nameId] = input.ref;
      const words = input.words ?? nameWords(input.text);
      const ids = words.tokens.map((t) => index.intern(t, postingLists));
      nameTokenIds.push(ids);
      nameSpellings.push(words.spellings);
      for (const id of new Set(ids)) postingLists[id]!.push(nameId);
      if (nameId % CHUNK === CHUNK - 1) await pause();
    }
    const total = inputs.length;
    index.idf = new Float64Array(index.tokenText.length);
    postingLists.forEach((list, id) => {
      index.idf[id] = Math.log(1 + total / list.length);
    });
    index.maxIdf = Math.log(1 + total);
    index.minIdf = index.idf.reduce((a, b) => Math.min(a, b), index.maxIdf);
    index.postings = postingLists.map((l) => Int32Array.from(l));
    await pause();
    for (const [n, ids] of nameTokenIds.entries()) {
      index.names.push({ tokens: ids.map((id) => index.tokenText[id]!), spellings: nameSpellings[n]!, keys: ids.map((id) => index.tokenKeys[id]!), weights: ids.map((id) => index.idf[id]!) });
    }
    index.totals = Float64Array.from(index.names, (n) => n.weights.reduce((a, b) => a + b, 0));
    return index;
  }

  /** Indexed name `nameId` as tokens, spellings and weights (the candidate side of an alignment). */
  prepared(nameId: number): PreparedName {
    return this.names[nameId]!;
  }

  get size(): number {
    return this.names.length;
  }

  get vocabularySize(): number {
    return this.tokenText.length;
  }

  private intern(token: string, postingLists: number[][]): number {
    let id = this.vocab.get(token);
    if (id !== undefined) return id;
    id = this.tokenText.length;
    this.vocab.set(token, id);
    this.tokenText.push(token);
    const keys = phoneticKeys(token);
    this.tokenKeys.push(keys);
    postingLists.push([]);
    if (token.length >= MIN_FUZZY_LENGTH) {
      pushTo(this.byDelete, token, id);
      for (const d of deletes(token)) pushTo(this.byDelete, d, id);
    }
    for (const k of keys) if (k.length >= 2) pushTo(this.bySound, k, id);
    const sk = skeleton(token);
    if (sk.length >= 3) pushTo(this.bySkeleton, sk, id);
    return id;
  }

  /** Prepares a query name against this index's rarity weights. */
  prepare(text: string): PreparedName {
    const prepared = this.weigh(nameWords(text));
    const rejoined = rejoinedTokens(text, (t) => this.vocab.has(t));
    if (rejoined) prepared.alternative = this.weigh(rejoined);
    return prepared;
  }

  private weigh({ tokens, spellings }: NameWords): PreparedName {
    const keys = tokens.map(phoneticKeys);
    // A word the lists never use weighs like the commonest word when it is a slip of a legal form
    // or title (`JOSC`, `GPBH`) or a number, which in a name the lists never spell says nothing of
    // who it is; otherwise like its nearest listed spelling (a typo of a common word stays
    // common), and with no near spelling at all like the rarest word.
    const weights = tokens.map((t, i) => {
      const exact = this.vocab.get(t);
      if (exact !== undefined) return this.idf[exact]!;
      if (/^\d+$/.test(t) || nearStopToken(t)) return this.minIdf;
      const near = nearest(this.expand(t, keys[i]!, spellings[i]!));
      return near !== undefined ? this.idf[near]! : this.maxIdf;
    });
    return { tokens, spellings, keys, weights };
  }

  /** Vocabulary tokens close to `q` (written `written`), each with its similarity (0: not close). */
  private expand(q: string, qKeys: string[], written: string): Map<number, number> {
    const found = new Map<number, number>();
    const consider = (id: number) => {
      if (found.has(id)) return;
      found.set(id, tokenSimilarity(q, this.tokenText[id]!, qKeys, this.tokenKeys[id]!));
    };
    const exact = this.vocab.get(q);
    if (exact !== undefined) found.set(exact, 1);
    if (q.length >= MIN_FUZZY_LENGTH - 1) {
      for (const key of [q, ...deletes(q)]) for (const id of idsOf(this.byDelete.get(key))) consider(id);
    }
    // A slip in the written word that canonical spelling turns into two edits (`Kghodr`, `Hesonx`)
    // or hides (`Slaa` is `sla`): the written word, or it less one letter as written or spelled
    // canonically, is a listed token or one of its deletes.
    if (written.length >= MIN_FUZZY_LENGTH - 1) {
      const keys = new Set([written, ...deletes(written).flatMap((d) => [d, canonical(d)])]);
      keys.delete(q);
      for (const key of keys) {
        for (const id of idsOf(this.byDelete.get(key))) {
          consider(id);
          found.set(id, Math.max(found.get(id)!, slipValue(written, this.tokenText[id]!)));
        }
      }
    }
    for (const k of qKeys) {
      const ids = idsOf(k.length >= 2 ? this.bySound.get(k) : undefined);
      if (ids.length <= MAX_KEY_FANOUT) for (const id of ids) consider(id);
    }
    if (q.length >= 3 && !/[aeiou]/.test(q)) for (const id of idsOf(this.bySkeleton.get(skeleton(q)))) consider(id);
    return found;
  }

  /** Names matching the query (or its rejoined reading, whichever aligns better per ref), best first. */
  search(query: PreparedName, opts: SearchOptions = {}): Hit[] {
    const hits = this.searchOne(query, opts);
    if (!query.alternative) return hits;
    const keyOf = (h: Hit) => (opts.weakApart && h.weak ? -1 - h.ref : h.ref);
    const best = new Map(hits.map((h) => [keyOf(h), h]));
    for (const h of this.searchOne(query.alternative, opts)) {
      const prev = best.get(keyOf(h));
      if (!prev || h.alignment.score > prev.alignment.score) best.set(keyOf(h), h);
    }
    return [...best.values()].sort((a, b) => b.alignment.score - a.alignment.score);
  }

  private searchOne(query: PreparedName, opts: SearchOptions): Hit[] {
    return this.score(query, this.retrieve(query, opts), opts);
  }

  /** Candidate generation: the names worth aligning in full, best-voted first (at most `candidates`). */
  retrieve(query: PreparedName, opts: SearchOptions = {}): number[] {
    const limit = opts.candidates ?? 40;
    const minScore = opts.minScore ?? 0;
    // Reused across searches: a common word touches thousands of names, and an array of them per
    // search was most of what a screen allocated (young-generation collections in the tail).
    const touched = this.touched;
    let count = 0;
    const base = this.stampSeq;
    query.tokens.forEach((q, i) => {
      const mark = base + i + 1;
      // Best first: a name takes the vote of the spelling closest to the query word.
      const near = [...this.expand(q, query.keys[i]!, query.spellings[i]!)].filter(([, sim]) => sim > 0).sort((a, b) => b[1] - a[1]);
      for (const [id, sim] of near) {
        // A near spelling votes with the query word's weight: a common word does not gain weight
        // by resembling a rare one.
        const vote = sim * Math.min(query.weights[i]!, this.idf[id]!);
        for (const nameId of this.postings[id]!) {
          if (this.stamp[nameId] === mark) continue;
          if (this.stamp[nameId]! <= base) {
            this.acc[nameId] = 0;
            touched[count++] = nameId;
          }
          this.stamp[nameId] = mark;
          this.acc[nameId] = this.acc[nameId]! + vote;
        }
      }
    });
    this.stampSeq = base + query.tokens.length + 1;
    if (this.stampSeq > 2 ** 30) {
      this.stamp.fill(0);
      this.stampSeq = 0;
    }
    // A name whose vote covers little of the query cannot align above minScore: the margin allows
    // for votes that undercount (a rare query word matching a commoner spelling).
    let queryTotal = 0;
    for (const w of query.weights) queryTotal += w;
    const floor = queryTotal * Math.max(0, minScore - VOTE_MARGIN);
    const pool: number[] = [];
    for (let k = 0; k < count; k++) {
      const id = touched[k]!;
      if (this.acc[id]! < floor || (opts.accept && !opts.accept(this.refs[id]!))) continue;
      // Rank by the score the vote implies: among names sharing the query's words, those with
      // fewer other words (the likelier matches) are aligned first.
      this.est[id] = this.acc[id]! * (1 + this.acc[id]! / this.totals[id]!);
      pool.push(id);
    }
    return pool.length > limit ? pool.sort((a, b) => this.est[b]! - this.est[a]!).slice(0, limit) : pool;
  }

  /** Scoring: each retrieved name aligned in full, the best name per ref kept, best first. */
  score(query: PreparedName, names: readonly number[], opts: SearchOptions = {}): Hit[] {
    const minScore = opts.minScore ?? 0;
    const best = new Map<number, Hit>();
    for (const nameId of names) {
      const alignment = align(query, this.names[nameId]!);
      if (alignment.score < minScore) continue;
      const ref = this.refs[nameId]!;
      const weak = this.weak[nameId] === 1;
      const key = opts.weakApart && weak ? -1 - ref : ref;
      const prev = best.get(key);
      if (!prev || alignment.score > prev.alignment.score) best.set(key, { ref, name: nameId, weak, query, alignment });
    }
    return [...best.values()].sort((a, b) => b.alignment.score - a.alignment.score);
  }
}
