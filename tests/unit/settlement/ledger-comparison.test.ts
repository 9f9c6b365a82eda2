/**
 * Issue 23 §5: the one comparison of a settlement record with the ledger (shared by the
 * reconciler's correction and `settlements:audit`), every record state against every status; and
 * the audit tool's reading of `--since` and its usage errors (exit code 2, before any dependency).
 */
import { describe, expect, test } from "bun:test";
import type { SignatureStatus } from "../../../src/application/ports/ledger.ts";
import type { SettlementState } from "../../../src/application/ports/settlement-store.ts";
import { compareWithLedger, ledgerFateOf } from "../../../src/application/settlement/ledger-comparison.ts";
import { AUDIT_EXIT, parseSince, runSettlementsAudit } from "../../../src/tools/settlements-audit.ts";

const status = (confirmationStatus: SignatureStatus["confirmationStatus"], err: string | null = null): SignatureStatus => ({ slot: 42n, confirmationStatus, err });

const STATUSES: Readonly<Record<string, SignatureStatus | null>> = {
  unknown: null,
  processed: status("processed"),
  confirmed: status("confirmed"),
  finalized: status("finalized"),
  "failed on chain": status("confirmed", '{"InstructionError":[2,{"Custom":1}]}'),
};

/** record state -> the ledger's answer -> the verdict, and the kind when they disagree. */
const EXPECTED: Readonly<Record<SettlementState, Readonly<Record<string, string>>>> = {
  settled: { unknown: "settled-not-landed", processed: "settled-not-landed", confirmed: "agree", finalized: "agree", "failed on chain": "settled-failed-on-chain" },
  failed: { unknown: "agree", processed: "agree", confirmed: "failed-but-landed", finalized: "failed-but-landed", "failed on chain": "agree" },
  pending: { unknown: "open", processed: "open", confirmed: "open", finalized: "open", "failed on chain": "open" },
  submitted: { unknown: "open", processed: "open", confirmed: "open", finalized: "open", "failed on chain": "open" },
};

describe("compareWithLedger: a record against its transaction's status", () => {
  test("every record state against every status", () => {
    for (const [state, row] of Object.entries(EXPECTED)) {
      for (const [name, expected] of Object.entries(row)) {
        const comparison = compareWithLedger({ state: state as SettlementState, error: "blockhash expired before the transaction landed" }, STATUSES[name] ?? null);
        const got: string = comparison.verdict === "disagree" ? comparison.kind : comparison.verdict;
        expect({ state, ledger: name, got }).toEqual({ state, ledger: name, got: expected });
      }
    }
  });

  test("a disagreement says what each side holds", () => {
    const corrected = compareWithLedger({ state: "failed", error: "blockhash expired before the transaction landed" }, status("finalized"));
    expect(corrected).toMatchObject({ verdict: "disagree", kind: "failed-but-landed" });
    if (corrected.verdict === "disagree") expect(corrected.detail).toBe("the record says failed (blockhash expired before the transaction landed), but the ledger shows the transaction landed without error (finalized at slot 42)");
    const onChain = compareWithLedger({ state: "settled", error: null }, STATUSES["failed on chain"] ?? null);
    if (onChain.verdict === "disagree") expect(onChain.detail).toContain('failed on the ledger: {"InstructionError"');
    const missing = compareWithLedger({ state: "settled", error: null }, null);
    if (missing.verdict === "disagree") expect(missing.detail).toBe("the record says settled, but the ledger does not know the transaction");
  });

  test("the ledger's fate of a status: only confirmed or finalized without error is landed", () => {
    expect([null, status("processed"), status("confirmed"), status("finalized"), status("processed", "x")].map(ledgerFateOf)).toEqual([
      "not-landed",
      "not-landed",
      "landed",
      "landed",
      "failed-on-chain",
    ]);
  });
});

describe("settlements:audit arguments", () => {
  const now = new Date("2026-11-27T12:00:00.000Z");

  test("--since takes a date (UTC midnight), a date-time with its zone, or a duration back from now", () => {
    expect(parseSince("2026-11-27", now)).toEqual(new Date("2026-11-27T00:00:00.000Z"));
    expect(parseSince("2026-11-27T08:30:00Z", now)).toEqual(new Date("2026-11-27T08:30:00.000Z"));
    expect(parseSince("2026-11-27T08:30:00.250+01:00", now)).toEqual(new Date("2026-11-27T07:30:00.250Z"));
    expect(parseSince("90s", now)).toEqual(new Date("2026-11-27T11:58:30.000Z"));
    expect(parseSince("30m", now)).toEqual(new Date("2026-11-27T11:30:00.000Z"));
    expect(parseSince("24h", now)).toEqual(new Date("2026-11-26T12:00:00.000Z"));
    expect(parseSince("7d", now)).toEqual(new Date("2026-11-20T12:00:00.000Z"));
  });

  test("anything else is a usage problem naming the accepted forms (a date-time without a zone is ambiguous)", () => {
    for (const value of ["yesterday", "2026-11-27T08:30:00", "2026-13-45", "2026-02-30", "24", "-1h", "1w", ""]) {
      expect(String(parseSince(value, now))).toContain("is not a time: give an ISO 8601 date");
    }
  });

  test("usage errors exit 2 before any dependency is reached; --help exits 0", async () => {
    const cases: [readonly string[], string][] = [
      [[], "FAIL --since is required"],
      [["--since"], "FAIL --since needs a value"],
      [["--since", "24h", "--verbose"], 'FAIL unknown argument "--verbose"'],
      [["--since", "soon"], 'FAIL --since "soon" is not a time'],
      [["--since=24h"], "FAIL SOLANA_RPC_URL: required"],
    ];
    for (const [argv, expected] of cases) {
      const lines: string[] = [];
      const code = await runSettlementsAudit(argv, { NODE_ENV: "test" }, (line) => lines.push(line), () => now);
      expect({ argv, code, first: lines[0]?.slice(0, expected.length) }).toEqual({ argv, code: AUDIT_EXIT.usage, first: expected });
    }
    const lines: string[] = [];
    expect(await runSettlementsAudit(["--help"], {}, (line) => lines.push(line))).toBe(AUDIT_EXIT.agree);
    expect(lines[0]).toStartWith("usage: npm run settlements:audit -- --since <time>");
  });
});
