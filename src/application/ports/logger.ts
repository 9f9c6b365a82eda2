export type LogFields = Readonly<Record<string, unknown>>;

/** Structured logger. Implementations redact secrets; callers still never pass keys. */
export type Logger = Readonly<{
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}>;

export const silentLogger: Logger = Object.freeze({
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
});
