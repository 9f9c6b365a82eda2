/**
 * `npm run settlements:audit -- --since <time>` (in the container: `bun src/tools/settlements-audit.ts
 * --since <time>`): compares every settlement record of NETWORK claimed or written since <time>
 * with the ledger, through the comparison the reconciler corrects by
 * (application/settlement/ledger-comparison.ts), and prints one `DISAGREE` line per record the
 * ledger contradicts, then a summary. Reads only: it corrects nothing.
 *
 * <time>: an ISO 8601 date (`2026-11-27`, UTC midnight) or date-time with its zone
 * (`2026-11-27T08:00:00Z`, `...+01:00`), or a duration back from now (`90s`, `30m`, `24h`, `7d`).
 *
 * Settings, as the service reads them: DATABASE_URL (or DATA_DIR's embedded database, which a
 * running service holds locked), SOLANA_RPC_URL (required: the embedded ledger lives inside the
 * service's process; run `npm run ledger` to share one), NETWORK (checked against the ledger's
 * genesis hash first: audited against another cluster, every settled record would look missing),
 * LEDGER_RPC_TIMEOUT_MS.
 *
 * Exit codes: 0 every record agrees (open ones are counted, not judged), 1 at least one
 * disagreement, 2 a usage or settings error, 3 the audit could not run to the end (the store or
 * the ledger did not answer, or the ledger is another network).
 */
import { checkLedgerNetwork, describeNetworkMismatch } from "../application/ledger-network.ts";
import { type AuditDisagreement, type AuditSummary, MAX_SIGNATURES_PER_STATUS_READ, auditSettlements } from "../application/settlement/audit-settlements.ts";
import { DISAGREEMENT_KINDS } from "../application/settlement/ledger-comparison.ts";
import { parseAppConfig } from "../infrastructure/config/app-config.ts";
import { createRpcLedger } from "../infrastructure/ledger/rpc-ledger.ts";
import { messageOf, openToolDatabase } from "./tool-database.ts";
import { createSqlSettlementHistory } from "../infrastructure/store/sql-settlement-history.ts";

type Env = Readonly<Record<string, string | undefined>>;
type Print = (line: string) => void;

export const AUDIT_EXIT = Object.freeze({ agree: 0, disagree: 1, usage: 2, incomplete: 3 });

export const AUDIT_USAGE =
  "usage: npm run settlements:audit -- --since <time>   (<time>: 2026-11-27, 2026-11-27T08:00:00Z, or 90s / 30m / 24h / 7d back from now)";

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const DURATION = /^(\d{1,9})(s|m|h|d)$/;
const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`'s value as an instant, or the problem to print. */
export function parseSince(value: string, now: Date): Date | string {
  const duration = DURATION.exec(value);
  if (duration) return new Date(now.getTime() - Number(duration[1]) * (UNIT_MS[duration[2] ?? "s"] ?? 1_000));
  if (DATE.test(value) || DATE_TIME_WITH_ZONE.test(value)) {
    const ms = Date.parse(DATE.test(value) ? `${value}T00:00:00Z` : value);
    // A day that does not exist (2026-02-30) must not roll over into the next month.
    if (Number.isFinite(ms) && (!DATE.test(value) || new Date(ms).toISOString().startsWith(value))) return new Date(ms);
  }
  return `--since ${JSON.stringify(value)} is not a time: give an ISO 8601 date (2026-11-27), a date-time with its zone (2026-11-27T08:00:00Z) or a duration back from now (24h)`;
}

type Arguments = Readonly<{ kind: "help" }> | Readonly<{ kind: "since"; value: string }> | Readonly<{ kind: "error"; problem: string }>;

function parseArguments(argv: readonly string[]): Arguments {
  let since: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--help" || arg === "-h") return { kind: "help" };
    if (arg === "--since" || arg.startsWith("--since=")) {
      const value = arg === "--since" ? argv[++i] : arg.slice("--since=".length);
      if (value === undefined || value === "") return { kind: "error", problem: "--since needs a value" };
      since = value;
      continue;
    }
    return { kind: "error", problem: `unknown argument ${JSON.stringify(arg)}` };
  }
  return since === null ? { kind: "error", problem: "--since is required" } : { kind: "since", value: since };
}

export async function runSettlementsAudit(argv: readonly string[], env: Env, print: Print, now: () => Date = () => new Date()): Promise<number> {
  const args = parseArguments(argv);
  if (args.kind === "help") {
    print(AUDIT_USAGE);
    return AUDIT_EXIT.agree;
  }
  if (args.kind === "error") {
    print(`FAIL ${args.problem}`);
    print(AUDIT_USAGE);
    return AUDIT_EXIT.usage;
  }
  const since = parseSince(args.value, now());
  if (typeof since === "string") {
    print(`FAIL ${since}`);
    return AUDIT_EXIT.usage;
  }
  const parsed = parseAppConfig(env);
  if (!parsed.ok) {
    for (const error of parsed.errors) print(`FAIL settings: ${error}`);
    return AUDIT_EXIT.usage;
  }
  const config = parsed.config;
  if (!config.SOLANA_RPC_URL) {
    print("FAIL SOLANA_RPC_URL: required; the embedded ledger lives inside the service's process (run `npm run ledger` and point the service and this audit at it)");
    return AUDIT_EXIT.usage;
  }

  const ledger = createRpcLedger({ url: config.SOLANA_RPC_URL, timeoutMs: config.LEDGER_RPC_TIMEOUT_MS });
  const network = await checkLedgerNetwork(ledger, config.NETWORK);
  if (network.kind === "mismatch") {
    print(`FAIL ledger: ${describeNetworkMismatch(config.NETWORK, network)}`);
    return AUDIT_EXIT.incomplete;
  }
  if (network.kind === "unreachable") {
    print(`FAIL ledger: its network could not be checked (${network.error})`);
    return AUDIT_EXIT.incomplete;
  }

  const opened = await openToolDatabase(config, print);
  if (opened === null) return AUDIT_EXIT.incomplete;
  const { executor, target } = opened;
  try {
    const summary = await auditSettlements({ history: createSqlSettlementHistory(executor), ledger, network: config.NETWORK }, since, (found) => print(disagreementLine(found)));
    print(summaryLine(summary));
    return summary.disagree > 0 ? AUDIT_EXIT.disagree : AUDIT_EXIT.agree;
  } catch (error) {
    // The ledger adapter scrubs its URL from messages; the store's error names no connection string.
    print(`FAIL audit of ${target} did not finish: ${messageOf(error)}`);
    return AUDIT_EXIT.incomplete;
  } finally {
    await executor.close().catch(() => undefined);
  }
}

/** One line per disagreement: its kind first (to grep for), every field an operator needs to look the payment up. */
export function disagreementLine({ record, comparison }: AuditDisagreement): string {
  const fields = [
    `signature=${record.signature}`,
    `key=${record.key}`,
    `state=${record.state}`,
    `mode=${record.mode}`,
    `payer=${record.payer}`,
    `payTo=${record.payTo}`,
    `asset=${record.asset}`,
    `amount=${record.amount}`,
    `paymentId=${record.paymentId ?? "-"}`,
    `created=${record.createdAt.toISOString()}`,
    `updated=${record.updatedAt.toISOString()}`,
  ];
  return `DISAGREE ${comparison.kind} ${fields.join(" ")}: ${comparison.detail}`;
}

export function summaryLine(summary: AuditSummary): string {
  const kinds = DISAGREEMENT_KINDS.filter((kind) => summary.byKind[kind] > 0).map((kind) => `${kind} ${summary.byKind[kind]}`);
  return (
    `summary: ${summary.examined} record(s) of ${summary.network} written since ${summary.since.toISOString()}: ` +
    `${summary.agree} agree, ${summary.open} open (left to the reconciler), ${summary.disagree} disagree${kinds.length > 0 ? ` (${kinds.join(", ")})` : ""}; ` +
    `${summary.statusReads} getSignatureStatuses read(s) of at most ${MAX_SIGNATURES_PER_STATUS_READ} signatures`
  );
}


if (import.meta.main) {
  process.exit(await runSettlementsAudit(process.argv.slice(2), process.env, (line) => console.log(line)));
}
