/**
 * Errors the way a ClickHouse server answers them over HTTP: the body `Code: N. DB::Exception:
 * message. (TYPE)`, the code in `X-ClickHouse-Exception-Code`, and the status ClickHouse gives
 * that type, so clients parse them as they parse a server's.
 */
export class ClickHouseHttpError extends Error {
  constructor(
    readonly code: number,
    readonly type: string,
    readonly text: string,
  ) {
    super(text);
  }
}

/** An error the interface raises itself, worded as ClickHouse words its own. */
export const ownError = (code: number, type: string, message: string): ClickHouseHttpError =>
  new ClickHouseHttpError(code, type, `Code: ${code}. DB::Exception: ${message}. (${type})`);

export const authenticationFailed = (user: string): ClickHouseHttpError =>
  ownError(516, 'AUTHENTICATION_FAILED', `${user}: Authentication failed: password is incorrect, or there is no user with such name`);

export const badArguments = (message: string): ClickHouseHttpError => ownError(36, 'BAD_ARGUMENTS', message);

const ENGINE_ERROR = /^Code: (\d+)\..*\(([A-Z0-9_]+)\)/s;
const QUOTED = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\\n]|\\.)*`/g;
const WORDS = /[A-Za-z_][A-Za-z0-9_.]*/g;
const MAX_MESSAGE = 1000;

/**
 * An engine message cleaned of anything the client did not send: only its first line (the lines
 * after it are where the engine prints parsed templates, files and blocks of rows), and every
 * quoted piece that is neither a literal nor a word of the client's own SQL replaced by '…' (a
 * value the engine quotes from a table or a file). What the analyst wrote is still named.
 */
function cleaned(text: string, sql: string): string {
  const words = new Set(sql.match(WORDS) ?? []);
  const firstLine = text.split('\n', 1)[0]!.replace(QUOTED, (q) => {
    const inner = q.slice(1, -1);
    return sql.includes(q) || words.has(inner) ? q : `${q[0]}…${q[0]}`;
  });
  return firstLine.length > MAX_MESSAGE ? `${firstLine.slice(0, MAX_MESSAGE)}…` : firstLine;
}

/**
 * The engine's own error (chDB reports it in ClickHouse's words), cleaned as above and worded as a
 * server's; anything else is a 500 without detail.
 */
export function fromEngine(err: unknown, sql: string): ClickHouseHttpError {
  const text = err instanceof Error ? err.message : String(err);
  const m = ENGINE_ERROR.exec(text);
  if (!m) return ownError(1002, 'UNKNOWN_EXCEPTION', 'the query failed inside the engine');
  const message = cleaned(text.trim(), sql).replace(/^(Code: \d+\. DB::Exception: )+/, '').replace(/(\. )?\([A-Z0-9_]+\)( \(version [^)]*\))?\.?$/, '');
  return ownError(Number(m[1]), m[2]!, message);
}

const FORBIDDEN = new Set(['UNKNOWN_USER', 'WRONG_PASSWORD', 'AUTHENTICATION_FAILED', 'SET_NON_GRANTED_ROLE', 'ACCESS_DENIED']);
const BAD_REQUEST = new Set([
  'BAD_ARGUMENTS', 'SYNTAX_ERROR', 'CANNOT_COMPILE_REGEXP', 'DUPLICATE_COLUMN', 'ILLEGAL_COLUMN', 'THERE_IS_NO_COLUMN',
  'UNKNOWN_ELEMENT_IN_AST', 'UNKNOWN_TYPE_OF_AST_NODE', 'TOO_DEEP_AST', 'TOO_BIG_AST', 'UNEXPECTED_AST_STRUCTURE',
  'INCORRECT_DATA', 'TYPE_MISMATCH', 'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE', 'INVALID_TEMPLATE_FORMAT',
]);
/** A limit of the session (the server's, or one the analyst lowered) that the query went past: the query's fault, not the server's. */
const OVER_LIMIT = new Set([
  'TOO_MANY_ROWS_OR_BYTES', 'TOO_MANY_ROWS', 'TOO_MANY_BYTES', 'TOO_MANY_COLUMNS', 'TOO_DEEP_SUBQUERIES',
  'TOO_MANY_TEMPORARY_COLUMNS', 'TOO_MANY_TEMPORARY_NON_CONST_COLUMNS', 'MEMORY_LIMIT_EXCEEDED',
]);
const NOT_FOUND = new Set([
  'UNKNOWN_TABLE', 'UNKNOWN_FUNCTION', 'UNKNOWN_IDENTIFIER', 'UNKNOWN_TYPE', 'UNKNOWN_STORAGE', 'UNKNOWN_DATABASE',
  'UNKNOWN_SETTING', 'UNKNOWN_DIRECTION_OF_SORTING', 'UNKNOWN_AGGREGATE_FUNCTION', 'UNKNOWN_FORMAT',
  'UNKNOWN_DATABASE_ENGINE', 'UNKNOWN_TYPE_OF_QUERY', 'UNKNOWN_ROLE',
]);

/** The HTTP status a ClickHouse server answers an error type with (its exceptionCodeToHTTPStatus). */
export function httpStatusOf(type: string): number {
  if (type === 'REQUIRED_PASSWORD') return 401;
  if (FORBIDDEN.has(type)) return 403;
  if (BAD_REQUEST.has(type) || OVER_LIMIT.has(type) || type.startsWith('CANNOT_PARSE_')) return 400;
  if (NOT_FOUND.has(type)) return 404;
  if (type === 'QUERY_IS_TOO_LARGE') return 413;
  if (type === 'NOT_IMPLEMENTED') return 501;
  if (type === 'TIMEOUT_EXCEEDED') return 408;
  if (type === 'TOO_MANY_SIMULTANEOUS_QUERIES') return 503;
  return 500;
}
