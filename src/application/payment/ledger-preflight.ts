import { type Address, type Transaction, getTransactionEncoder } from "@solana/kit";
import type { PaymentRequirements } from "../../domain/payment/payment-request.ts";
import type { TransferChecked } from "../../domain/transaction/transaction-view.ts";
import { checkDestinationAccount, checkSourceFunds, checkSourceNotPayee } from "../../domain/verification/funds-check.ts";
import { reject, type Rejection } from "../../domain/rejection.ts";
import { type TokenAccountViews, toTokenAccountView } from "./token-accounts.ts";
import { type Ledger, type SimulationOutcome, isLedgerRefusal } from "../ports/ledger.ts";

/**
 * What the ledger says of a payment transaction as it is now, before our key signs it: /verify
 * reports it, /settle refuses to sign without it.
 */
export type LedgerPreflight = Readonly<{
  /** Why the ledger would refuse the transaction (a funds reason when the accounts say why, else SIMULATION_FAILED); null: it would land. */
  rejection: Rejection | null;
  /**
   * The owner of the transfer's source token account, as the ledger has it: whose fee budget a
   * settlement is charged to (a delegate spends its owner's budget). Null when the source is not a
   * token account.
   */
  sourceOwner: Address | null;
  /** Units the simulation consumed, when it succeeded. */
  unitsConsumed?: bigint;
}>;

/**
 * Simulates the transaction (fee-payer slot empty, `sigVerify: false`: the payer's signatures are
 * verified by us) and returns the source's post-simulation state with it. A successful simulation
 * settles every funds rule but SELF_PAYMENT, which that state answers (see
 * fundsSettledBySimulation); a failed one reads the accounts to say why, so a payer learns
 * INSUFFICIENT_FUNDS rather than the runtime's error. Throws only when the ledger is unreachable.
 */
export async function preflightPayment(
  ledger: Ledger,
  wire: Uint8Array,
  transfers: readonly TransferChecked[],
  requirements: PaymentRequirements,
  views: TokenAccountViews = UNCACHED_VIEWS,
): Promise<LedgerPreflight> {
  const [first] = transfers;
  if (!first) return { rejection: reject("TRANSFER_INSTRUCTION_COUNT", "the transaction holds no TransferChecked"), sourceOwner: null };
  const simulation = await simulateOrRejected(ledger, wire, first.source);
  if (simulation.ok) {
    const source = toTokenAccountView(simulation.accounts?.[0] ?? null);
    // Post-simulation snapshots are new objects each time: a cache would never hit.
    if (source !== null && source.mint === first.mint) {
      return { rejection: checkSourceNotPayee(source, first, requirements), sourceOwner: source.owner as Address, unitsConsumed: simulation.unitsConsumed };
    }
  }
  // The slow path (honest payments simulate fine): the accounts as they are, to say why.
  const explained = await checkTransferAccounts(ledger, transfers, requirements, views);
  if (explained.rejection) return explained;
  if (!simulation.ok) return { rejection: reject("SIMULATION_FAILED", `simulation failed: ${simulation.error}`), sourceOwner: explained.sourceOwner };
  return { rejection: null, sourceOwner: explained.sourceOwner, unitsConsumed: simulation.unitsConsumed };
}

/**
 * The preflight of a transaction the facilitator built itself (a delegated payment): its
 * simulation alone, charged to `owner`, whose tokens it moves. Throws only when the ledger is
 * unreachable.
 */
export async function preflightTransaction(ledger: Ledger, transaction: Transaction, owner: Address): Promise<LedgerPreflight> {
  const wire = new Uint8Array(getTransactionEncoder().encode(transaction));
  let simulation: SimulationOutcome;
  try {
    simulation = await ledger.simulateTransaction(wire, { sigVerify: false });
  } catch (error) {
    if (!isLedgerRefusal(error)) throw error;
    simulation = { ok: false, error: error.message, logs: [] };
  }
  if (!simulation.ok) return { rejection: reject("SIMULATION_FAILED", `simulation failed: ${simulation.error}`), sourceOwner: owner };
  return { rejection: null, sourceOwner: owner, unitsConsumed: simulation.unitsConsumed };
}

/**
 * The transfer's two token accounts as the ledger has them now, in one read: the source can pay
 * (and is not the payee's), the destination can receive. See domain/verification/funds-check.ts.
 */
async function checkTransferAccounts(
  ledger: Ledger,
  transfers: readonly TransferChecked[],
  requirements: PaymentRequirements,
  views: TokenAccountViews = UNCACHED_VIEWS,
): Promise<Readonly<{ rejection: Rejection | null; sourceOwner: Address | null }>> {
  const [first] = transfers;
  if (!first) return { rejection: null, sourceOwner: null };
  // All transfers share the source (checked with the split); each has its own destination.
  const [sourceAccount = null, ...destinations] = await ledger.getMultipleAccounts([first.source, ...transfers.map((t) => t.destination)]);
  const source = views.of(sourceAccount);
  const total = transfers.reduce((sum, t) => sum + t.amount, 0n);
  const rejection =
    checkSourceFunds(source, first, requirements, total) ??
    transfers.reduce<Rejection | null>((found, t, i) => found ?? checkDestinationAccount(views.of(destinations[i] ?? null), t), null);
  return { rejection, sourceOwner: (source?.owner as Address | undefined) ?? null };
}

/*
 * SECURITY: why a successful simulation answers every funds rule but SELF_PAYMENT without a second
 * ledger read. The transaction holds only TransferChecked (SPL Token), ComputeBudget and Memo
 * instructions (transaction-checks.ts), and a TransferChecked that succeeds proves, rule by rule
 * of funds-check.ts:
 * - source is an SPL token account: the token program unpacks it (initialized, 165 bytes) and
 *   writes it, which only the owning program may;
 * - source mint: it must equal the instruction's mint account (MintMismatch otherwise);
 * - source frozen: AccountFrozen otherwise;
 * - authority is the owner or the delegate: OwnerMismatch otherwise (the program takes the
 *   delegate path first, so a success never allows more than funds-check's `spendableBy`);
 * - balance, or allowance, covers the total: the transfers run in order from the same source, so
 *   InsufficientFunds is raised as soon as the sum exceeds either;
 * - each destination is an initialized token account of the mint, not frozen: unpacked, mint
 *   compared and frozen checked by each TransferChecked.
 * Only SELF_PAYMENT is left, the source owner against payTo: read from the source's
 * post-simulation state, whose owner a transfer never changes (SetAuthority is refused). Without
 * that state (a ledger that did not return it), the accounts are read as when simulation fails.
 */

const UNCACHED_VIEWS: TokenAccountViews = Object.freeze({ of: toTokenAccountView });

/** A ledger that refuses the bytes outright is a failed simulation; an unreachable one throws on. */
async function simulateOrRejected(ledger: Ledger, wire: Uint8Array, source: Address): Promise<SimulationOutcome | Readonly<{ ok: false; error: string }>> {
  try {
    return await ledger.simulateTransaction(wire, { sigVerify: false, accounts: [source] });
  } catch (error) {
    if (isLedgerRefusal(error)) return { ok: false, error: error.message };
    throw error;
  }
}
