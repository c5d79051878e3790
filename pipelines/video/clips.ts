import { clipCandidates, type CandidateResult } from '../../domain/video/clips/candidates.js';
import { clipAspect, clipScript } from '../../domain/video/clips/clip-script.js';
import { clipMaterial, round3, type ClipMaterial } from '../../domain/video/clips/material.js';
import { refineWindow, type Refined } from '../../domain/video/clips/refine.js';
import { compile, type CompileResult } from '../../domain/video/compile.js';
import { MAX_SCENE_SECONDS } from '../../domain/video/directives.js';
import type { SourceReader, SourceRecord } from '../../domain/video/source.js';
import type { Caller, Documents, DocumentView, Precondition } from './documents.js';

/**
 * Clips of long-form sources: candidates for a goal, windows refined to the source's sentences
 * and cuts, and clip documents, whose script plays the window with its transcript as captions
 * (docs/video-clips.md). Everything reads the caller's organization's preprocessed source only.
 */

export type ClipRefusalKind = 'source_not_found' | 'not_preprocessed' | 'bad_window' | 'not_a_clip' | 'no_candidates';

/** Why a clip call did nothing; api/video/clips.ts turns it into HTTP. */
export class ClipRefusal extends Error {
  constructor(
    readonly kind: ClipRefusalKind,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface ClipWindow {
  sourceId: string;
  start: number;
  end: number;
}

/** Seconds a window may reach past the media's end: the duration ffprobe reports is rounded. */
const END_SLACK = 0.05;

export type Clips = ReturnType<typeof createClips>;

export function createClips(deps: { sources: SourceReader; documents: Documents }) {
  const { sources, documents } = deps;

  async function preprocessed(orgId: string, sourceId: string): Promise<{ source: SourceRecord; material: ClipMaterial }> {
    const source = await sources.get(orgId, sourceId);
    if (!source) throw new ClipRefusal('source_not_found', `sourceId: the organization has no source ${sourceId}`);
    if (source.preprocess.status !== 'complete') {
      const status = source.preprocess.status;
      const state = status === 'none' ? 'has not been preprocessed' : status === 'failed' ? 'is not preprocessed (its preprocessing failed)' : `is still being preprocessed (${status})`;
      throw new ClipRefusal('not_preprocessed', `source ${sourceId} ${state}; POST /api/sources/${sourceId}/preprocess and wait for it to complete`, { preprocess: source.preprocess.status });
    }
    return { source, material: clipMaterial(source) };
  }

  function checkWindow(m: ClipMaterial, w: { start: number; end: number }): void {
    if (w.end <= w.start) throw new ClipRefusal('bad_window', `end: ${w.end} s must be after start ${w.start} s`);
    if (w.end - w.start > MAX_SCENE_SECONDS) throw new ClipRefusal('bad_window', `end: a clip lasts at most ${MAX_SCENE_SECONDS} s (one scene); this window lasts ${round3(w.end - w.start)} s`);
    if (w.end > m.duration + END_SLACK) throw new ClipRefusal('bad_window', `end: ${w.end} s is past the end of the source (${m.duration} s)`);
  }

  /** The clip's script for a window of a source, its captions the sentences said in it, its frame shaped like the footage. */
  const scriptOf = (source: SourceRecord, material: ClipMaterial, w: ClipWindow, name: string) =>
    clipScript({ ...w, name, sentences: material.sentences, aspect: clipAspect(source.width, source.height) });

  async function windowFor(c: Caller, from: ClipWindow, change: { start?: number; end?: number; goal?: string }): Promise<{ window: ClipWindow; source: SourceRecord; material: ClipMaterial }> {
    const { source, material } = await preprocessed(c.orgId, from.sourceId);
    let window = { ...from, ...(change.start === undefined ? {} : { start: change.start }), ...(change.end === undefined ? {} : { end: change.end }) };
    if (change.goal !== undefined) {
      const found = clipCandidates(material, change.goal, { maxCandidates: 1 });
      const best = found.candidates[0];
      if (!best) throw new ClipRefusal('no_candidates', `goal: ${found.reason ?? 'no candidate'}`, { reason: found.reason });
      // The best candidate with clean edges, as a user would refine it before keeping it.
      const refined = refineWindow(material, best);
      window = { sourceId: from.sourceId, start: refined.start, end: refined.end };
    }
    checkWindow(material, window);
    return { window, source, material };
  }

  return {
    async candidates(orgId: string, body: { sourceId: string; goal: string; maxCandidates: number }): Promise<CandidateResult> {
      const { material } = await preprocessed(orgId, body.sourceId);
      return clipCandidates(material, body.goal, { maxCandidates: body.maxCandidates });
    },

    async refine(orgId: string, body: ClipWindow): Promise<Refined> {
      const { material } = await preprocessed(orgId, body.sourceId);
      checkWindow(material, body);
      return refineWindow(material, body);
    },

    /** A clip's script and its compiled graph, stored nowhere. */
    async draft(orgId: string, body: ClipWindow & { name?: string }): Promise<{ source: string } & CompileResult> {
      const { source, material } = await preprocessed(orgId, body.sourceId);
      checkWindow(material, body);
      const script = scriptOf(source, material, body, body.name ?? `Clip of ${source.name}`);
      return { source: script, ...compile(script) };
    },

    /** A clip document: version 1 holds the clip's script, `metadata.clip` its window. */
    async createDocument(c: Caller, body: ClipWindow & { name: string }, idempotencyKey?: string): Promise<{ document: DocumentView; created: boolean }> {
      const { source, material } = await preprocessed(c.orgId, body.sourceId);
      checkWindow(material, body);
      const window = { sourceId: body.sourceId, start: body.start, end: body.end };
      return documents.create(c, { name: body.name, source: scriptOf(source, material, window, body.name), metadata: { clip: window } }, idempotencyKey);
    },

    /** A new version of a clip document for a new window, or the best window for a new goal; the script is drafted anew. */
    async redraft(c: Caller, id: string, change: { start?: number; end?: number; goal?: string }, precondition: Precondition): Promise<DocumentView> {
      const doc = await documents.get(c, id);
      const from = clipOf(doc);
      const { window, source, material } = await windowFor(c, from, change);
      return documents.put(c, id, { source: scriptOf(source, material, window, doc.name), metadata: { ...doc.metadata, clip: window } }, precondition);
    },

    /** The clip document, for export; a document that is no clip is refused. */
    async exported(c: Caller, id: string): Promise<DocumentView> {
      const doc = await documents.get(c, id);
      clipOf(doc);
      return doc;
    },
  };
}

/** The window a clip document cuts, from its metadata. */
function clipOf(doc: DocumentView): ClipWindow {
  const clip = doc.metadata.clip as Partial<ClipWindow> | undefined;
  if (!clip || typeof clip.sourceId !== 'string' || typeof clip.start !== 'number' || typeof clip.end !== 'number') {
    throw new ClipRefusal('not_a_clip', `document ${doc.id} is not a clip document (its metadata has no clip {sourceId, start, end}); make one with POST /api/clips/documents`);
  }
  return { sourceId: clip.sourceId, start: clip.start, end: clip.end };
}
