/**
 * `npm run api-key:new -- <name>`: makes a random API key, prints it once for the resource server,
 * and prints the entry to append to FACILITATOR_API_KEYS_FILE (its SHA-256, never the key).
 */
export {};
const keyName = process.argv[2] ?? "resource-server";
const bytes = crypto.getRandomValues(new Uint8Array(32));
const key = `x402_${Buffer.from(bytes).toString("base64url")}`;
const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
const sha256 = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
console.log(`API key (give it to the resource server; it is not stored anywhere): ${key}`);
console.log(`Entry for FACILITATOR_API_KEYS_FILE: ${JSON.stringify({ name: keyName, sha256 })}`);
