import type { Ledger } from "../../src/application/ports/ledger.ts";

const LEDGER_METHODS = [
  "getLatestBlockhash", "isBlockhashValid", "getBlockHeight", "getAccount", "getMultipleAccounts", "getProgramAccounts",
  "simulateTransaction", "sendTransaction", "getSignatureStatuses", "getTransactionEffects", "ping", "getGenesisHash",
] as const satisfies readonly (keyof Ledger)[];
// A method added to the port and missing above is a type error here, not an undefined method at run time.
const EVERY_METHOD_LISTED: [Exclude<keyof Ledger, (typeof LEDGER_METHODS)[number]>] extends [never] ? true : never = true;
void EVERY_METHOD_LISTED;

/**
 * The one fake Ledger port of the unit tests: the methods a test gives answer as it scripts them;
 * every other method rejects naming itself (with `refusal`'s error: a plain Error, or the
 * LedgerError a caller is meant to survive), so a code path that reaches the ledger unexpectedly
 * fails loudly. The area fakes (verification, modes, registry) are this plus their own state.
 */
export function fakeLedger(methods: Partial<Ledger>, purpose = "this test", refusal: (message: string) => Error = (message) => new Error(message)): Ledger {
  const unused = (name: keyof Ledger) => () => Promise.reject(refusal(`fake ledger: ${name} is not used by ${purpose}`));
  const ledger = Object.fromEntries(LEDGER_METHODS.map((name) => [name, methods[name] ?? unused(name)]));
  return Object.freeze(ledger as Ledger);
}
