import type { Address } from "@solana/kit";
import { LedgerError, type ProgramAccountFilter } from "../../application/ports/ledger.ts";
import { toBase64 } from "../../domain/codecs/base64.ts";
import { scrubUrlSecrets } from "../logging/redact.ts";
import { backgroundTurn } from "./event-loop-turns.ts";
import type { ReadReply, ReadRequest } from "./program-account-read-worker.ts";

/** What the index reads of a program's accounts: an account's address, owner and bytes. */
export type ProgramAccountData = Readonly<{ address: Address; owner: Address; data: Uint8Array }>;

/** Reads all of a program's accounts that pass the filters (the index's full reads). */
export type ProgramAccountReader = (program: Address, filters: readonly ProgramAccountFilter[]) => Promise<readonly ProgramAccountData[]>;

export type RpcProgramAccountReaderOptions = Readonly<{
  url: string;
  /** For the whole call, download included; default 60 s (a large registry is a large answer). */
  timeoutMs?: number;
  /**
   * For the node to start answering (LEDGER_RPC_TIMEOUT_MS; default 3 s). A read that waits for the
   * index (its first load) then gets its 503 before the HTTP idle timeout resets the connection.
   */
  answerTimeoutMs?: number;
}>;

/** Building the result objects pauses after this long, so requests are served in between. */
const SLICE_MS = 4;

/**
 * getProgramAccounts over JSON-RPC with the answer parsed in a Worker. Through kit's client the
 * reading process's event loop was held for the whole parse (its JSON parser keeps large integers
 * exact, in JS): measured 0.4-0.5 s at 10,000 agents and ~4 s at 100,000, every refresh, during
 * which no request was answered. Here the Worker fetches, parses and decodes the base64, and sends
 * one buffer of bytes and the addresses as text; this side only builds the result objects, in
 * slices. Failures are `unavailable` LedgerErrors whose text never holds the URL's secrets.
 * Lamports and the executable flag are not read (the index does not use them).
 */
export function createRpcProgramAccountReader(options: RpcProgramAccountReaderOptions): ProgramAccountReader {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const answerTimeoutMs = Math.min(options.answerTimeoutMs ?? 3_000, timeoutMs);
  const pending = new Map<number, (reply: ReadReply) => void>();
  let worker: Worker | null = null;
  let nextId = 0;

  function failAll(message: string): void {
    for (const [id, settle] of pending) settle({ id, ok: false, message });
    pending.clear();
  }

  function started(): Worker {
    if (worker) return worker;
    const created = new Worker(new URL("./program-account-read-worker.ts", import.meta.url).href, { type: "module" });
    // Bun and Node let a worker not hold the process open; elsewhere the service exits explicitly.
    if ("unref" in created && typeof created.unref === "function") created.unref();
    created.onmessage = (event: MessageEvent<ReadReply>) => {
      pending.get(event.data.id)?.(event.data);
      pending.delete(event.data.id);
    };
    created.onerror = (event) => {
      event.preventDefault?.();
      worker = null;
      created.terminate();
      failAll(`getProgramAccounts: the reader worker failed (${event.message})`);
    };
    worker = created;
    return created;
  }

  return async (program, filters) => {
    const id = ++nextId;
    const request: ReadRequest = { id, url: options.url, program, filters: filters.map(filterOf), timeoutMs, answerTimeoutMs };
    const reply = await new Promise<ReadReply>((resolve) => {
      pending.set(id, resolve);
      started().postMessage(request);
    });
    // SECURITY: fetch and node errors may echo the URL with its API key.
    if (!reply.ok) throw new LedgerError("unavailable", scrubUrlSecrets(reply.message, options.url));
    return unpack(program, reply);
  };
}

async function unpack(program: Address, reply: Extract<ReadReply, { ok: true }>): Promise<ProgramAccountData[]> {
  const bytes = new Uint8Array(reply.data);
  const count = reply.ends.length;
  const out: ProgramAccountData[] = [];
  // The texts are cut one line at a time (a split of 100,000 addresses held the loop for ~10-20 ms).
  const addresses = lines(reply.addresses);
  const owners = reply.owners === "" ? null : lines(reply.owners);
  let start = 0;
  // Built in turns of the process's queue, the first one too (the answer arrives beside other work).
  await backgroundTurn();
  let sliceStart = performance.now();
  for (let i = 0; i < count; i++) {
    const end = reply.ends[i] as number;
    const owner = owners ? (owners.next().value as Address) : program;
    out.push({ address: addresses.next().value as Address, owner, data: bytes.subarray(start, end) });
    start = end;
    if ((i & 255) === 255 && performance.now() - sliceStart > SLICE_MS) {
      await backgroundTurn();
      sliceStart = performance.now();
    }
  }
  return out;
}

/** The lines of `text` ("\n"-separated), one at a time. */
function* lines(text: string): Generator<string, undefined, void> {
  let from = 0;
  while (from <= text.length) {
    const newline = text.indexOf("\n", from);
    const to = newline < 0 ? text.length : newline;
    yield text.slice(from, to);
    from = to + 1;
  }
  return undefined;
}

/** The JSON-RPC form of a filter, as the JSON-RPC ledger sends it (memcmp bytes in base64). */
function filterOf(filter: ProgramAccountFilter): unknown {
  if ("dataSize" in filter) return { dataSize: filter.dataSize };
  return { memcmp: { offset: filter.memcmp.offset, bytes: toBase64(filter.memcmp.bytes), encoding: "base64" } };
}
