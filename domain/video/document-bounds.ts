/** Bounds of persisted script documents: every input and every list has one. */

/** Longest script a document holds, in characters. */
export const MAX_DOCUMENT_SOURCE_CHARS = 200_000;
/** Largest metadata object, as JSON characters. */
export const MAX_DOCUMENT_METADATA_CHARS = 16_000;
export const MAX_DOCUMENT_NAME_CHARS = 200;
/** Operations in one structured edit. */
export const MAX_EDIT_OPS = 100;
/** Annotations a document keeps (replies and resolved ones count). */
export const MAX_ANNOTATIONS = 500;
export const MAX_ANNOTATION_CHARS = 4_000;
/** Most items of one page of documents or versions, and the default. */
export const MAX_PAGE = 100;
export const DEFAULT_PAGE = 50;
/** An edit lock lasts this long unless asked otherwise, and between these bounds. */
export const DEFAULT_LOCK_SECONDS = 120;
export const MIN_LOCK_SECONDS = 5;
export const MAX_LOCK_SECONDS = 3_600;
