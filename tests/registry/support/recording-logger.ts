import type { LogFields, Logger } from "../../../src/application/ports/logger.ts";

export type LogLine = Readonly<{ level: string; message: string; fields: LogFields }>;

/** Logger mock that keeps lines in memory so tests can assert what was logged. */
export function createRecordingLogger(lines: LogLine[] = [], base: LogFields = {}): Logger & { lines: LogLine[] } {
  const at = (level: string) => (message: string, fields: LogFields = {}) => {
    lines.push({ level, message, fields: { ...base, ...fields } });
  };
  return {
    lines,
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: (fields: LogFields) => createRecordingLogger(lines, { ...base, ...fields }),
  };
}
