import { logLevel, type logCreator } from 'kafkajs';
import type { Logger } from 'pino';

const levelOf: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** The kafkajs level that lets through exactly what the pino logger would print. */
export function kafkaLogLevel(log: Logger): logLevel {
  switch (log.level) {
    case 'trace':
    case 'debug':
      return logLevel.DEBUG;
    case 'info':
      return logLevel.INFO;
    case 'warn':
      return logLevel.WARN;
    case 'silent':
      return logLevel.NOTHING;
    default:
      return logLevel.ERROR;
  }
}

/**
 * Routes kafkajs log lines to pino. kafkajs puts a caught error under `error` (an Error, or only its
 * message) and the stack under `stack`; pino's error serializer only applies to `err`. Errors of
 * single responses (namespace Connection) are retried by kafkajs itself, so they are warnings:
 * what finally fails surfaces to the caller or as a consumer crash.
 */
export function pinoLogCreator(log: Logger): logCreator {
  return () =>
    ({ namespace, level, log: entry }) => {
      // timestamp duplicates pino's own time field.
      const { message, timestamp: _ts, error, stack, ...fields } = entry;
      const method = namespace === 'Connection' && level === logLevel.ERROR ? 'warn' : (levelOf[level] ?? 'info');
      // An Error carries its own stack; a bare message keeps the stack kafkajs logged beside it.
      const errorFields = error instanceof Error ? { err: error } : { ...(error === undefined ? {} : { error: String(error) }), ...(stack === undefined ? {} : { stack }) };
      log[method]({ kafkajs: namespace, ...fields, ...errorFields }, message);
    };
}
