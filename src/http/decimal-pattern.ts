/**
 * A regular expression (JSON Schema `pattern`, ECMA-262) matching exactly the canonical decimal
 * strings of the integers 0..max: no sign, no leading zero. It lets a schema state a u64 bound
 * on a string amount, which JSON Schema's `maximum` cannot (it applies to numbers only).
 *
 * @example decimalAtMostPattern(255n) // "^(?:0|[1-9][0-9]{0,1}|1[0-9]{2}|2[0-4][0-9]{1}|25[0-4]|255)$"
 */
export function decimalAtMostPattern(max: bigint): string {
  if (max < 10n) return `^[0-${max}]$`;
  const digits = max.toString();
  const shorter = `0|[1-9][0-9]{0,${digits.length - 2}}`;
  const sameLength: string[] = [];
  for (let i = 0; i < digits.length; i++) {
    const digit = Number(digits[i]);
    const lowest = i === 0 ? 1 : 0;
    const rest = digits.length - i - 1;
    if (digit > lowest) {
      const range = digit - 1 === lowest ? `${lowest}` : `[${lowest}-${digit - 1}]`;
      sameLength.push(`${digits.slice(0, i)}${range}${rest > 0 ? `[0-9]{${rest}}` : ""}`);
    }
  }
  sameLength.push(digits);
  return `^(?:${[shorter, ...sameLength].join("|")})$`;
}
