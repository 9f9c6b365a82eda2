// The embedded ledger package's test fixtures, shared so both suites build wallets and transfers
// the same way. Its USDC is the devnet mint the facilitator's local ledger creates at boot.
export {
  fundWallets,
  malformedVariants,
  manualClock,
  transferWire,
  USDC,
  type ManualClock,
  type TransferSpec,
  type Wallets,
} from "../../packages/embedded-ledger/tests/support/fixtures.ts";
