import pino from "pino";
import type { LogFields, Logger } from "../../application/ports/logger.ts";
import { currentLogContext } from "./log-context.ts";
import { redactFields, redactText } from "./redact.ts";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

type Sink = (line: string) => void;

/**
 * The process's logger: pino writing one JSON object per line, so log shippers parse it without
 * configuration. Every line is `{"level":"info","time":"<ISO-8601>", ...fields, "msg":"..."}`:
 * the request's fields from the log context (`requestId`, see log-context.ts), then the logger's
 * own (`child`), then the call's, later ones winning. Fields and message pass through the one
 * redaction list (redact.ts) before pino sees them.
 *
 * Writes are synchronous, so a line logged just before `process.exit` (a refused start-up, a
 * port already in use) is never lost. `sink` replaces stdout (tests).
 */
export function createJsonLogger(level: LogLevel, sink?: Sink): Logger {
  const root = pino(
    {
      level,
      base: null,
      messageKey: "msg",
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        // The log context goes in through the mixin; it is redacted with the rest.
        log: (object) => redactFields(object) as Record<string, unknown>,
      },
      mixin: () => ({ ...currentLogContext() }),
    },
    sink ? lineStream(sink) : pino.destination({ dest: 1, sync: true }),
  );
  return loggerOver(root, {});
}

/**
 * Bindings are merged here rather than with pino's `child`, which would repeat a key given both
 * to the child and to a call; the Logger port promises one value per field.
 */
function loggerOver(root: pino.Logger, base: LogFields): Logger {
  const write = (at: Exclude<LogLevel, "silent">, message: string, fields?: LogFields) => {
    if (!root.isLevelEnabled(at)) return;
    root[at]({ ...base, ...fields }, redactText(message));
  };
  return Object.freeze({
    debug: (m: string, f?: LogFields) => write("debug", m, f),
    info: (m: string, f?: LogFields) => write("info", m, f),
    warn: (m: string, f?: LogFields) => write("warn", m, f),
    error: (m: string, f?: LogFields) => write("error", m, f),
    child: (fields: LogFields) => loggerOver(root, { ...base, ...fields }),
  });
}

function lineStream(sink: Sink): pino.DestinationStream {
  return { write: (chunk: string) => sink(chunk.endsWith("\n") ? chunk.slice(0, -1) : chunk) };
}
