/**
 * The SQL sign-in store (auth_nonces, users) against embedded PGlite and a real PostgreSQL server
 * (two client pools standing for two replicas). PostgreSQL is skipped with a printed reason when
 * unreachable, and required under CI=true.
 */
import { describe, test } from "bun:test";
import { openStore } from "../../src/infrastructure/store/index.ts";
import { failWhenRequired } from "../../fixtures/gate.ts";
import { type TestDatabase, postgresGate, useTestDatabase } from "../support/postgres.ts";
import { describeSignInStoreContract } from "./sign-in-store-contract.ts";

describeSignInStoreContract("PGlite (in memory)", { open: () => openStore({ inMemory: true }), replicas: false });

const gate = await postgresGate("tests/auth");
describe("SignInStore contract: PostgreSQL (real server)", () => failWhenRequired(gate, "PostgreSQL must be reachable in CI"));
if (gate.run) {
  const database = useTestDatabase();
  describeSignInStoreContract("PostgreSQL (real server, two client pools)", {
    open: () => openStore({ databaseUrl: database().url, maxConnections: 8 }),
    replicas: true,
  });
}
