import type { LogFields, Logger } from "../../application/ports/logger.ts";
import { redactFields, redactText } from "./redact.ts";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
const RANK: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

type Sink = (line: string) => void;

/** One JSON object per line, so log shippers parse it without configuration. */
export function createJsonLogger(level: LogLevel, sink: Sink = (line) => console.log(line), base: LogFields = {}): Logger {
  const write = (at: Exclude<LogLevel, "silent">, message: string, fields?: LogFields) => {
    if (RANK[at] < RANK[level]) return;
    const entry = { time: new Date().toISOString(), level: at, msg: redactText(message), ...(redactFields({ ...base, ...fields }) as object) };
    sink(JSON.stringify(entry));
  };
  return Object.freeze({
    debug: (m: string, f?: LogFields) => write("debug", m, f),
    info: (m: string, f?: LogFields) => write("info", m, f),
    warn: (m: string, f?: LogFields) => write("warn", m, f),
    error: (m: string, f?: LogFields) => write("error", m, f),
    child: (fields: LogFields) => createJsonLogger(level, sink, { ...base, ...fields }),
  });
}
