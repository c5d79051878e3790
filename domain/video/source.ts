/**
 * A long-form source (a recording a user uploads or names by address) and what preprocessing
 * derives from it. Times are seconds from the start of the media. What preprocessing could not
 * find is a diagnostic, never an invented value: a field is absent rather than guessed.
 */

export const SOURCE_STATUSES = ['registered', 'preprocessing', 'ready', 'failed'] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];

export const PREPROCESS_STATUSES = ['none', 'queued', 'running', 'complete', 'failed'] as const;
export type PreprocessStatus = (typeof PREPROCESS_STATUSES)[number];

export interface SourceDiagnostic {
  level: 'error' | 'warning' | 'info';
  code: string;
  message: string;
}

export interface TranscriptWord {
  start: number;
  end: number;
  word: string;
}

export interface TranscriptChunk {
  start: number;
  end: number;
  text: string;
  /** Word timings, when the transcript came from speech recognition. */
  words?: TranscriptWord[];
}

/** A run of frames between two scene cuts; its thumbnail is a frame from inside it. */
export interface Shot {
  index: number;
  start: number;
  end: number;
  thumbnailId: string;
}

export interface Thumbnail {
  id: string;
  time: number;
}

export interface Silence {
  start: number;
  end: number;
}

/** EBU R128 figures of the whole programme. */
export interface Loudness {
  integratedLufs: number;
  rangeLu: number;
  truePeakDbfs?: number;
}

/** One stream of the media as ffprobe reads it at registration. */
export interface MediaStream {
  index: number;
  type: 'video' | 'audio' | 'subtitle' | 'other';
  codec: string;
  width?: number;
  height?: number;
  fps?: number;
  sampleRate?: number;
  channels?: number;
  language?: string;
}

/** What a source is stored as: the API adds its public addresses. */
export interface SourceRecord {
  id: string;
  orgId: string;
  name: string;
  status: SourceStatus;
  mimetype: string;
  sizeBytes: number;
  durationSeconds: number | null;
  width: number | null;
  height: number | null;
  /** From ffprobe at registration (absent on records made before it probed). */
  streams?: MediaStream[];
  /** Whether a sidecar SRT/VTT came with the upload. */
  hasSubtitles: boolean;
  /** `jobId` names the latest preprocessing job: a redelivered older one does nothing. */
  preprocess: { status: PreprocessStatus; progress: number; jobId?: string };
  transcript: TranscriptChunk[];
  shots: Shot[];
  thumbnails: Thumbnail[];
  silences: Silence[];
  loudness?: Loudness;
  diagnostics: SourceDiagnostic[];
  createdAt: string;
  updatedAt: string;
}

/** What the clips side reads of a source: only the organization's own. */
export interface SourceReader {
  /** null when the organization has no source of that id. */
  get(orgId: string, id: string): Promise<SourceRecord | null>;
}
