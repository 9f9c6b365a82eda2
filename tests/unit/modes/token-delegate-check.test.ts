import { describe, expect, test } from "bun:test";
import { none, some } from "@solana/kit";
import { AccountState, getTokenDecoder, getTokenEncoder, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { TOKEN_2022_PROGRAM_ADDRESS } from "@solana-program/token-2022";
import { isSome, type Address } from "@solana/kit";
import { createTokenAccountViews, toTokenAccountView } from "../../../src/application/payment/token-accounts.ts";
import { checkTokenDelegate, type TokenAccountView, type TokenDelegateUse } from "../../../src/domain/modes/token-delegate-check.ts";
import type { ReasonCode } from "../../../src/domain/reason-codes.ts";
import { PAYER, USDC, testAddress } from "../../modes/support/mode-fixtures.ts";

const FEE_PAYER = testAddress(21);
const SOURCE = testAddress(22);
const use: TokenDelegateUse = { payer: PAYER, asset: USDC, amount: 1_000_000n, feePayers: [testAddress(20), FEE_PAYER] };

function view(overrides: Partial<TokenAccountView> = {}): TokenAccountView {
  return { address: SOURCE, mint: USDC, owner: PAYER, amount: 5_000_000n, delegate: FEE_PAYER, delegatedAmount: 1_000_000n, frozen: false, ...overrides };
}

describe("checkTokenDelegate (pure)", () => {
  test("accepts an allowance to one of our fee payers covering the amount, and names it", () => {
    expect(checkTokenDelegate(view(), use)).toEqual({ sourceTokenAccount: SOURCE, owner: PAYER, delegateAuthority: FEE_PAYER });
  });

  const refusals: [string, TokenAccountView | null, ReasonCode][] = [
    ["no token account", null, "DELEGATION_INVALID"],
    ["another owner's account", view({ owner: testAddress(30) }), "DELEGATION_INVALID"],
    ["an account of another mint", view({ mint: testAddress(31) }), "DELEGATION_INVALID"],
    ["a frozen account", view({ frozen: true }), "DELEGATION_INVALID"],
    ["no delegate", view({ delegate: null, delegatedAmount: 0n }), "DELEGATION_INVALID"],
    ["a delegate that is not our fee payer", view({ delegate: testAddress(32) }), "DELEGATION_INVALID"],
    ["an allowance 1 below the amount", view({ delegatedAmount: 999_999n }), "DELEGATION_BUDGET_EXCEEDED"],
    ["a balance below the amount", view({ amount: 10n, delegatedAmount: 2_000_000n }), "DELEGATION_INSUFFICIENT_FUNDS"],
  ];
  for (const [name, account, reason] of refusals) {
    test(`refuses ${name}: ${reason}`, () => {
      const result = checkTokenDelegate(account, use);
      expect("reason" in result ? result.reason : null).toBe(reason);
    });
  }
});

describe("toTokenAccountView (SPL Token bytes from @solana-program/token's encoder)", () => {
  const bytes = new Uint8Array(
    getTokenEncoder().encode({
      mint: USDC,
      owner: PAYER,
      amount: 7n,
      delegate: some(FEE_PAYER),
      state: AccountState.Frozen,
      isNative: none(),
      delegatedAmount: 3n,
      closeAuthority: none(),
    }),
  );

  test("decodes an SPL Token-owned account", () => {
    const snapshot = { address: SOURCE, owner: TOKEN_PROGRAM_ADDRESS, lamports: 1n, data: bytes, executable: false };
    expect(toTokenAccountView(snapshot)).toEqual({ address: SOURCE, mint: USDC, owner: PAYER, amount: 7n, delegate: FEE_PAYER, delegatedAmount: 3n, frozen: true });
  });

  test("ignores the same bytes under another owner, and missing or short data", () => {
    expect(toTokenAccountView({ address: SOURCE, owner: testAddress(9), lamports: 1n, data: bytes, executable: false })).toBeNull();
    expect(toTokenAccountView({ address: SOURCE, owner: TOKEN_PROGRAM_ADDRESS, lamports: 1n, data: bytes.subarray(0, 100), executable: false })).toBeNull();
    expect(toTokenAccountView(null)).toBeNull();
  });

  test("reads the same fields as @solana-program/token's decoder, for random accounts at any byte offset", () => {
    const random = () => testAddress(1 + Math.floor(Math.random() * 250));
    for (let n = 0; n < 200; n++) {
      const encoded = getTokenEncoder().encode({
        mint: random(),
        owner: random(),
        amount: BigInt(Math.floor(Math.random() * 2 ** 52)) * 4095n, // under 2^64: 4099n overflowed u64 in about one run in seven
        delegate: n % 2 === 0 ? some(random()) : none(),
        state: n % 3 === 0 ? AccountState.Frozen : AccountState.Initialized,
        isNative: n % 5 === 0 ? some(2_039_280n) : none(),
        delegatedAmount: BigInt(n) * 1_000_003n,
        closeAuthority: n % 7 === 0 ? some(random()) : none(),
      });
      // The account inside a larger buffer, as a node's decoded answer can be.
      const buffer = new Uint8Array(encoded.length + 16);
      buffer.set(encoded, 7);
      const data = buffer.subarray(7, 7 + encoded.length);
      const expected = getTokenDecoder().decode(data);
      expect(toTokenAccountView({ address: SOURCE, owner: TOKEN_PROGRAM_ADDRESS, lamports: 1n, data, executable: false })).toEqual({
        address: SOURCE,
        mint: expected.mint,
        owner: expected.owner,
        amount: expected.amount,
        delegate: isSome(expected.delegate) ? (expected.delegate.value as Address) : null,
        delegatedAmount: expected.delegatedAmount,
        frozen: expected.state === AccountState.Frozen,
      });
    }
  });

  test("refuses what the token program's unpack refuses: uninitialized, an unknown state, a COption tag other than 0 or 1", () => {
    const at = (edit: (data: Uint8Array) => void) => {
      const data = new Uint8Array(bytes);
      edit(data);
      return toTokenAccountView({ address: SOURCE, owner: TOKEN_PROGRAM_ADDRESS, lamports: 1n, data, executable: false });
    };
    expect(at(() => {})).not.toBeNull();
    expect(at((d) => void (d[108] = 0))).toBeNull();
    expect(at((d) => void (d[108] = 3))).toBeNull();
    expect(at((d) => void (d[72] = 2))).toBeNull();
    expect(at((d) => void (d[109] = 2))).toBeNull();
    expect(at((d) => void (d[129] = 2))).toBeNull();
  });

  test("SECURITY: refuses the lengths the programs' unpack refuses: an SPL Token account that is not exactly 165 bytes, a 355-byte (multisig-sized) account of either program even with byte 165 = 2", () => {
    const sized = (owner: Address, length: number) => {
      const data = new Uint8Array(length);
      data.set(bytes);
      data[165] = 2;
      return toTokenAccountView({ address: SOURCE, owner, lamports: 1n, data, executable: false });
    };
    expect(sized(TOKEN_PROGRAM_ADDRESS, 165)).not.toBeNull();
    expect(sized(TOKEN_PROGRAM_ADDRESS, 170)).toBeNull();
    expect(sized(TOKEN_PROGRAM_ADDRESS, 355)).toBeNull();
    expect(sized(TOKEN_2022_PROGRAM_ADDRESS, 355)).toBeNull();
    expect(sized(TOKEN_2022_PROGRAM_ADDRESS, 170)).not.toBeNull();
  });

  test("a views cache decodes each snapshot object once; separate caches share nothing", () => {
    const snapshot = { address: SOURCE, owner: TOKEN_PROGRAM_ADDRESS, lamports: 1n, data: bytes, executable: false };
    const views = createTokenAccountViews();
    const first = views.of(snapshot);
    expect(first).toEqual(toTokenAccountView(snapshot));
    expect(views.of(snapshot)).toBe(first);
    expect(createTokenAccountViews().of(snapshot)).not.toBe(first);
    expect(views.of(null)).toBeNull();
  });
});
