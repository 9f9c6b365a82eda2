/** The service's "ready" log line: one JSON object with `"msg":"ready"` and the URLs it serves. */
export type ReadyLine = Readonly<Record<string, unknown>>;

export type ReadyWatch = Readonly<{
  /** The parsed "ready" line; null when the output ended or `timeoutMs` passed first. */
  ready: Promise<ReadyLine | null>;
  /** Everything the process wrote so far: the stream is drained to its end so it never blocks on a full pipe. */
  output: () => string;
}>;

/**
 * Reads a child's stdout (a web stream from Bun.spawn or a Node Readable) until the "ready" line of a started service, and keeps draining it afterwards.
 */
export function watchForReadyLine(stdout: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>, timeoutMs: number): ReadyWatch {
  let output = "";
  let settled = false;
  let settle: (line: ReadyLine | null) => void = () => undefined;
  const ready = new Promise<ReadyLine | null>((resolve) => (settle = resolve));
  const finish = (line: ReadyLine | null) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    settle(line);
  };
  const timer = setTimeout(() => finish(null), timeoutMs);
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for await (const chunk of chunksOf(stdout)) {
        output += decoder.decode(chunk, { stream: true });
        // Only whole lines: a line still being written is not JSON yet.
        const line = settled ? undefined : output.split("\n").slice(0, -1).find((l) => l.includes('"msg":"ready"'));
        if (line !== undefined) finish(JSON.parse(line) as ReadyLine);
      }
    } catch {
      // The pipe closed under us (the child was killed): what was read is all there is.
    }
    finish(null);
  })();
  return { ready, output: () => output };
}

async function* chunksOf(stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  if (!("getReader" in stream)) return yield* stream;
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    yield value;
  }
}
