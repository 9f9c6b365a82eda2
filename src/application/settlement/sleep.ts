/** A timer-based pause; web-standard so the application layer also runs on Deno. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
