import { describe, expect, test } from "bun:test";
import { MODE_EXTENSION_IDS, MODE_POLICIES, canonicalModeName } from "../../../src/application/modes/mode-table.ts";
import { MODE_NAMES } from "../../../src/domain/settlement/settlement-mode.ts";

describe("the mode table (pure)", () => {
  test("one policy per mode name, registered under its own id", () => {
    expect(Object.keys(MODE_POLICIES).sort()).toEqual([...MODE_NAMES].sort());
    for (const name of MODE_NAMES) expect(MODE_POLICIES[name].id).toBe(name);
  });

  test("/supported advertises each mode's first alias, in the documented order", () => {
    expect(MODE_EXTENSION_IDS).toEqual(["svc-atomic", "svc-attestation", "svc-delegated"]);
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

  test("only delegated payments may be answered from a record before they are checked again", () => {
    const extensions = { mode: "delegated", paymentId: new Uint8Array(32), paymentIdHex: "00".repeat(32), payer: undefined } as const;
    expect(MODE_POLICIES.delegated.replayKey({ ...extensions, mode: "delegated" })).toMatch(/^[0-9a-f]{64}$/);
    expect(MODE_POLICIES.atomic.replayKey({ ...extensions, mode: "atomic" })).toBeNull();
    expect(MODE_POLICIES.attestation.replayKey({ ...extensions, mode: "attestation" })).toBeNull();
  });
});
