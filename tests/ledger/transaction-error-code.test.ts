// The mapping from a Solana RPC transaction error (JSON) to the port's structured code: the pure
// function on literal JSON (as a validator writes it, and as kit parses it with bigints), then the
// real kit RPC adapter reading JSON-RPC error responses from small local Bun.serve stubs (a real
// validator's refusals we cannot produce on the embedded ledger, and a node whose message lies).
import { afterAll, describe, expect, it } from "bun:test";
import { LedgerError, type TransactionErrorCode } from "../../src/application/ports/ledger.ts";
import { createRpcLedger } from "../../src/infrastructure/ledger/rpc-ledger.ts";
import { transactionErrorCodeOf, transactionErrorCodeOfData } from "../../src/infrastructure/ledger/transaction-error-code.ts";

const unit = (name: string): TransactionErrorCode => ({ name, instructionIndex: null, detail: null });

describe("transactionErrorCodeOf (RPC error JSON -> structured code)", () => {
  it("names unit variants by their string", () => {
    expect(transactionErrorCodeOf("AlreadyProcessed")).toEqual(unit("AlreadyProcessed"));
    expect(transactionErrorCodeOf("BlockhashNotFound")).toEqual(unit("BlockhashNotFound"));
    expect(transactionErrorCodeOf("InsufficientFundsForFee")).toEqual(unit("InsufficientFundsForFee"));
  });

  it("keeps InstructionError's index and inner error structured", () => {
    expect(transactionErrorCodeOf({ InstructionError: [1, { Custom: 1 }] })).toEqual({ name: "InstructionError", instructionIndex: 1, detail: { Custom: 1 } });
    expect(transactionErrorCodeOf({ InstructionError: [3, "InvalidAccountData"] })).toEqual({
      name: "InstructionError",
      instructionIndex: 3,
      detail: "InvalidAccountData",
    });
  });

  it("reads kit's bigint-parsed JSON as the same code as plain JSON", () => {
    const plain = transactionErrorCodeOf(JSON.parse('{"InstructionError":[2,{"Custom":17}]}'));
    expect(transactionErrorCodeOf({ InstructionError: [2n, { Custom: 17n }] })).toEqual(plain);
    expect(transactionErrorCodeOf({ InsufficientFundsForRent: { account_index: 1n } })).toEqual({
      name: "InsufficientFundsForRent",
      instructionIndex: null,
      detail: { account_index: 1 },
    });
  });

  it("keeps the payload of other variants as their detail", () => {
    expect(transactionErrorCodeOf({ DuplicateInstruction: 0 })).toEqual({ name: "DuplicateInstruction", instructionIndex: null, detail: 0 });
  });

  it("gives no code for anything not shaped as a transaction error", () => {
    for (const odd of [null, undefined, 42, true, [], {}, { A: 1, B: 2 }, "already processed", "", "lowercase", { InstructionError: "x" }, { InstructionError: [-1, "GenericError"] }, { InstructionError: [0] }]) {
      expect(transactionErrorCodeOf(odd)).toBeNull();
    }
  });

  it("reads a JSON-RPC error's data by its err member only, never its logs", () => {
    const data = { err: { InstructionError: [1, { Custom: 1 }] }, logs: ['Program log: Memo (len 16): "AlreadyProcessed"'] };
    expect(transactionErrorCodeOfData(data)?.name).toBe("InstructionError");
    expect(transactionErrorCodeOfData({ err: null, logs: ["AlreadyProcessed"] })).toBeNull();
    expect(transactionErrorCodeOfData({ logs: ["AlreadyProcessed"] })).toBeNull();
    expect(transactionErrorCodeOfData("AlreadyProcessed")).toBeNull();
    expect(transactionErrorCodeOfData(null)).toBeNull();
  });
});

const stubs: { stop(force?: boolean): unknown }[] = [];
afterAll(async () => {
  for (const stub of stubs) await stub.stop(true);
});

/** A node answering every call with this JSON-RPC error. */
function erroringNode(error: Readonly<{ code: number; message: string; data?: unknown }>): string {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const { id } = (await request.json()) as { id: unknown };
      return Response.json({ jsonrpc: "2.0", id, error });
    },
  });
  stubs.push(server);
  return `http://127.0.0.1:${server.port}`;
}

async function sendFailure(url: string): Promise<LedgerError> {
  const error = await createRpcLedger({ url }).sendTransaction(new Uint8Array([1, 2, 3])).then(() => null, (e: unknown) => e);
  if (!(error instanceof LedgerError)) throw new Error(`expected LedgerError, got ${String(error)}`);
  return error;
}

/** A preflight failure as a validator answers it: -32002, the simulation result as data. */
function preflightFailure(message: string, err: unknown, logs: readonly string[] = []) {
  return { code: -32002, message, data: { accounts: null, err, innerInstructions: null, logs, replacementBlockhash: null, returnData: null, unitsConsumed: 0 } };
}

describe("rpc ledger: transactionError from JSON-RPC errors (kit client, local Bun.serve stubs)", () => {
  it("a -32002 preflight failure gives data.err's code", async () => {
    const error = await sendFailure(erroringNode(preflightFailure("Transaction simulation failed: Blockhash not found", "BlockhashNotFound")));
    expect(error.kind).toBe("rejected");
    expect(error.transactionError).toEqual(unit("BlockhashNotFound"));
  });

  it("an already-processed resend gives AlreadyProcessed", async () => {
    const error = await sendFailure(erroringNode(preflightFailure("Transaction simulation failed: This transaction has already been processed", "AlreadyProcessed")));
    expect(error.transactionError).toEqual(unit("AlreadyProcessed"));
  });

  it("SECURITY: a message and logs saying 'already processed' do not override data.err", async () => {
    const memo = 'Program log: Memo (len 34): "already processed AlreadyProcessed"';
    const node = erroringNode(preflightFailure("Transaction simulation failed: This transaction has already been processed", { InstructionError: [1, { Custom: 1 }] }, [memo]));
    const error = await sendFailure(node);
    expect(error.message).toContain("already processed AlreadyProcessed");
    expect(error.transactionError).toEqual({ name: "InstructionError", instructionIndex: 1, detail: { Custom: 1 } });
  });

  it("codes other than -32002 carry no transaction error, whatever their data says", async () => {
    const unhealthy = await sendFailure(erroringNode({ code: -32005, message: "Node is unhealthy", data: { err: "AlreadyProcessed" } }));
    expect(unhealthy.kind).toBe("unavailable");
    expect(unhealthy.transactionError).toBeNull();
    const signature = await sendFailure(erroringNode({ code: -32003, message: "Transaction signature verification failure" }));
    expect(signature.kind).toBe("rejected");
    expect(signature.transactionError).toBeNull();
  });

  it("a -32002 without a usable data.err has no code", async () => {
    const error = await sendFailure(erroringNode({ code: -32002, message: "Transaction simulation failed: AlreadyProcessed" }));
    expect(error.kind).toBe("rejected");
    expect(error.transactionError).toBeNull();
  });
});
