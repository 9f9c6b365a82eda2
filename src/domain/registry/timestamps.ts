/** The largest |milliseconds| a JavaScript Date holds (±100,000,000 days around 1970). */
const MAX_DATE_MS = 8_640_000_000_000_000n;

/**
 * An on-chain `i64` Unix-seconds timestamp as ISO-8601 UTC with milliseconds
 * (`2023-11-14T22:13:20.000Z`), the way the x84 SDK's registry client types `createdAt`.
 * Accounts come from the network and may hold any i64: values beyond what a Date can show
 * (about ±275,000 years) are clamped to its limits instead of throwing.
 *
 * @example unixSecondsToIso(1_700_000_000n) // "2023-11-14T22:13:20.000Z"
 */
export function unixSecondsToIso(seconds: bigint): string {
  let ms = seconds * 1000n;
  if (ms > MAX_DATE_MS) ms = MAX_DATE_MS;
  if (ms < -MAX_DATE_MS) ms = -MAX_DATE_MS;
  return new Date(Number(ms)).toISOString();
}
