import { pino, type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'weir', pid: process.pid },
    redact: { paths: ['*.apiKey', '*.api_key', '*.secret', '*.password', '*.token'], censor: '[redacted]' },
  });
}
