import type { CatalogueLimits, DiscoveryStore } from "../ports/discovery-store.ts";
import type { DeclarationReader } from "../ports/discovery-declarations.ts";
import type { Logger } from "../ports/logger.ts";

/** A /verify or /settle answer, told to the catalogue after it was given. */
export type PaymentAnswer = Readonly<{ kind: "verify" | "settle"; body: unknown; ok: boolean }>;

/** What became of one declaration (the `outcome` label of x402_discovery_declarations_total). */
export type DeclarationOutcome = "recorded" | "refreshed" | "unlisted" | "invalid" | "too_large" | "limited" | "dropped" | "error";

export type DiscoveryRecorderDeps = Readonly<{
  /** The reader, or a loader for it (the Bazaar validators take ~200 ms to import: loaded at the first declaration, not at start-up). */
  read: DeclarationReader | (() => Promise<DeclarationReader>);
  store: DiscoveryStore;
  limits: CatalogueLimits & Readonly<{ maxEntryBytes: number }>;
  logger: Logger;
  count(outcome: DeclarationOutcome): void;
  /** Answers waiting to be catalogued at most; past it new ones are dropped (and counted). Default 256. */
  maxQueued?: number;
}>;

export type DiscoveryRecorder = Readonly<{
  /** Never throws, never waits: queues the answer for the catalogue. */
  observe(answer: PaymentAnswer): void;
  /** Resolves once everything queued so far was catalogued (tests, shutdown). */
  idle(): Promise<void>;
}>;

const encoder = new TextEncoder();

/**
 * The catalogue's side of the payment pipeline. It runs after the answer, one declaration at a
 * time, from a bounded queue: a slow or failing store, or a costly declaration, never delays or
 * fails a payment; it only loses (and counts) catalogue updates.
 *
 * SECURITY: an entry is created or changed only by a successful settlement (a real payment to its
 * payTo); a valid /verify only extends the expiry of an entry a settlement created, so unpaid
 * requests cannot write.
 */
export function createDiscoveryRecorder(deps: DiscoveryRecorderDeps): DiscoveryRecorder {
  const maxQueued = deps.maxQueued ?? 256;
  const queue: PaymentAnswer[] = [];
  let running: Promise<void> | null = null;

  let reader: DeclarationReader | null = typeof deps.read === "function" ? null : deps.read;

  async function catalogue(answer: PaymentAnswer): Promise<void> {
    const read = (reader ??= await (deps.read as () => Promise<DeclarationReader>)());
    if (answer.kind === "verify") {
      // SECURITY: a /verify costs the caller nothing, so it gets no schema check (milliseconds of
      // CPU each) and writes no declaration: it only keeps alive an entry a settlement created.
      const locator = read.locate(answer.body);
      if (!locator) return;
      return deps.count((await deps.store.refreshSeen(locator, deps.limits)) ? "refreshed" : "unlisted");
    }
    const reading = await read.read(answer.body);
    if (reading.kind === "absent") return;
    if (reading.kind === "dropped") return deps.count("dropped");
    if (reading.kind === "invalid") {
      deps.logger.debug("bazaar declaration ignored", { reason: reading.reason.slice(0, 300) });
      return deps.count("invalid");
    }
    const { declaration } = reading;
    // SECURITY: the size is bounded before the write, so no payee stores more than this per entry.
    if (encoder.encode(JSON.stringify(declaration)).length > deps.limits.maxEntryBytes) return deps.count("too_large");
    return deps.count(await deps.store.recordSettled(declaration, deps.limits));
  }

  async function drain(): Promise<void> {
    // Starts after the current turn of the event loop: the answer is on its way first.
    await new Promise((resolve) => setTimeout(resolve, 0));
    for (let answer = queue.shift(); answer; answer = queue.shift()) {
      try {
        await catalogue(answer);
      } catch (error) {
        deps.count("error");
        deps.logger.warn("discovery catalogue update failed", { error: error instanceof Error ? error.message : String(error) });
      }
    }
    running = null;
  }

  return Object.freeze({
    observe(answer: PaymentAnswer): void {
      if (!answer.ok) return;
      if (queue.length >= maxQueued) return deps.count("dropped");
      queue.push(answer);
      running ??= drain();
    },
    idle: async () => {
      while (running) await running;
    },
  });
}
