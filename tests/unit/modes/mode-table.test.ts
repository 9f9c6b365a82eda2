import { describe, expect, test } from "bun:test";
import { MODE_EXTENSION_IDS, MODE_POLICIES, canonicalModeName } from "../../../src/application/payment/mode-table.ts";
import { MODE_NAMES, SETTLEMENT_MODES } from "../../../src/domain/settlement/settlement-mode.ts";
import { createActors, paymentRequest, requirementsFor } from "../../../fixtures/payment-builder.ts";
import { verifyDeps } from "../../../fixtures/verify-deps.ts";

describe("the mode table (pure)", () => {
  test("one policy per settlement mode, standard included, registered under its own id", () => {
    expect(Object.keys(MODE_POLICIES).sort()).toEqual([...SETTLEMENT_MODES].sort());
    for (const name of SETTLEMENT_MODES) expect(MODE_POLICIES[name].id).toBe(name);
    expect(MODE_POLICIES.standard.aliases).toEqual([]);
  });

  test("/supported advertises every alias: the spec's svc-* ids, then the x84 docs' x84-* ids (issue 25)", () => {
    expect(MODE_EXTENSION_IDS).toEqual(["svc-atomic", "svc-attestation", "svc-delegated", "x84-atomic", "x84-attestation", "x84-delegated"]);
    // Each advertised id is accepted, and names the mode it says.
    for (const id of MODE_EXTENSION_IDS) expect(canonicalModeName(id)).toBe(id.slice(4));
  });

  test("aliases map to the spec's names; the names themselves and anything else pass through", () => {
    expect(canonicalModeName("svc-delegated")).toBe("delegated");
    expect(canonicalModeName("x84-attestation")).toBe("attestation");
    expect(canonicalModeName("atomic")).toBe("atomic");
    expect(canonicalModeName("toString")).toBe("toString");
    expect(canonicalModeName(7)).toBe(7);
  });

  test("no alias names two modes", () => {
    const aliases = MODE_NAMES.flatMap((name) => MODE_POLICIES[name].aliases);
    expect(new Set(aliases).size).toBe(aliases.length);
  });

  test("only delegated payments may be answered from a record before they are checked again", async () => {
    const actors = await createActors();
    const deps = verifyDeps(actors);
    const request = (mode: string) =>
      paymentRequest(null, requirementsFor(actors), { extensions: { mode, paymentId: "00".repeat(32), payer: actors.payer.address } });
    expect(MODE_POLICIES.delegated.replayKey(request("delegated"), deps)).toMatch(/^[0-9a-f]{64}$/);
    expect(MODE_POLICIES.atomic.replayKey(request("atomic"), deps)).toBeNull();
    expect(MODE_POLICIES.attestation.replayKey(request("attestation"), deps)).toBeNull();
    expect(MODE_POLICIES.standard.replayKey(paymentRequest(null, requirementsFor(actors)), deps)).toBeNull();
    // A request that fails the requirement checks is never answered from a record.
    expect(MODE_POLICIES.delegated.replayKey(paymentRequest(null, requirementsFor(actors, { scheme: "upto" }), { extensions: { mode: "delegated", paymentId: "00".repeat(32), payer: actors.payer.address } }), deps)).toBeNull();
  });
});
