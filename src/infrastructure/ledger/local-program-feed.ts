import type { EmbeddedLedger } from "@x84/embedded-ledger";
import type { ProgramAccountFeed } from "../../application/ports/program-account-feed.ts";

/**
 * The embedded ledger's own programSubscribe, in process: the notices its WebSocket pubsub sends,
 * without the socket. The subscription is live at once and never drops.
 */
export function createLocalProgramFeed(ledger: Pick<EmbeddedLedger, "subscribeProgramAccounts">): ProgramAccountFeed {
  return Object.freeze({
    subscribe(program, filters, handlers) {
      const unsubscribe = ledger.subscribeProgramAccounts(program, filters, (notice) =>
        handlers.change({ address: notice.address, owner: notice.owner, lamports: notice.lamports, data: notice.data, slot: notice.slot }),
      );
      queueMicrotask(() => handlers.status("live"));
      return Object.freeze({ close: unsubscribe });
    },
  });
}
