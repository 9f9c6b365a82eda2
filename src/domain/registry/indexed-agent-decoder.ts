import type { Address, ReadonlyUint8Array } from "@solana/kit";
import { base58Text } from "@x84/solana-wire";
import { AGENT_IDENTITY_DISCRIMINATOR } from "./agent-identity.ts";
import { hasDiscriminator } from "./borsh-codecs.ts";
import type { DecodeResult } from "./decode-result.ts";
import { indexedAgentFromScratch, word, type IndexedAgent, type IndexedAgentFields } from "./indexed-agent.ts";
import { sharedTagsAt } from "./shared-values.ts";

/** SECURITY: an address that does not pack (packed-key.ts) would come back as other text. */
const ADDRESS_TEXT = /^[1-9A-HJ-NP-Za-km-z]{1,44}$/;
const utf8 = new TextDecoder("utf-8");
const TWO_32 = 4_294_967_296;

/**
 * Account bytes (+ the account's address) → the index's agent, straight from the Borsh fields:
 * the one way an AgentIdentity account enters the index (the ledger's full reads, pushed writes,
 * the store at start-up). kit's struct codec built an identity object, its strings, byte arrays
 * and bigints, which the compact agent then copied: three quarters of what a load allocated was
 * garbage at once, and eden collections of it landed inside the index's slices. Gives exactly what
 * `new IndexedAgent(address, decodeAgentIdentity(data).value)` gives (tests/unit/registry
 * compares them on random accounts), and fails where that decode fails. `size` is the bytes the
 * fields took, as the codec's.
 */
export function decodeIndexedAgent(address: Address, data: ReadonlyUint8Array): DecodeResult<IndexedAgent> {
  if (!hasDiscriminator(data, AGENT_IDENTITY_DISCRIMINATOR)) {
    return { ok: false, reason: "wrong-discriminator", detail: "data does not start with the account discriminator" };
  }
  if (!ADDRESS_TEXT.test(address)) return malformed(`account address does not pack: ${address.slice(0, 60)}`);
  const bytes = data as Uint8Array;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.length;
  // nft_mint 32, owner 32, owner_version 8, feedback_authority 32, then metadata_uri's length.
  if (end < 8 + 32 + 32 + 8 + 32 + 4) return malformed("account too short");
  const uriLength = view.getUint32(112, true);
  const uriEnd = 116 + uriLength;
  // metadata_hash 32, tags' count 4.
  if (uriEnd + 36 > end) return malformed("metadata uri past the end of the account");
  const tagCount = view.getUint32(uriEnd + 32, true);
  const tagsAt = uriEnd + 36;
  // active 1, created_at and updated_at 16, six counters 48, bump 1.
  const size = tagsAt + tagCount * 32 + 66;
  if (size > end) return malformed("fields past the end of the account");
  const record = indexedAgentFromScratch((f: IndexedAgentFields) => {
    f.address = address;
    f.mint = base58Text(bytes, 8, 32);
    f.owner = base58Text(bytes, 40, 32);
    f.ownerVersion = u64At(view, 72);
    f.authority = base58Text(bytes, 80, 32);
    f.uri = uriOf(bytes, 116, uriEnd);
    for (let i = 0; i < 8; i++) f.hash[i] = word(bytes, uriEnd + i * 4);
    f.tags = sharedTagsAt(bytes, tagsAt, tagCount);
    let at = tagsAt + tagCount * 32;
    // kit's bool: true only for 1.
    f.active = bytes[at] === 1;
    f.created = i64At(view, at + 1);
    f.updated = i64At(view, at + 9);
    at += 17;
    for (let i = 0; i < 6; i++) f.counters[i] = u64At(view, at + i * 8);
    f.bump = bytes[at + 48] as number;
  });
  return { ok: true, value: record, size };
}

function malformed(detail: string): DecodeResult<never> {
  return { ok: false, reason: "malformed", detail };
}

/** As kit's UTF-8 decoder: replacement characters for bad sequences, a leading BOM and NULs dropped. */
function uriOf(bytes: Uint8Array, from: number, to: number): string {
  let ascii = true;
  for (let i = from; i < to; i++) {
    const b = bytes[i] as number;
    if (b === 0 || b > 127) {
      ascii = false;
      break;
    }
  }
  // Plain ASCII (nearly every URI): latin1 and UTF-8 agree, and no BOM or NUL to drop.
  if (ascii) return to - from <= 4096 ? String.fromCharCode.apply(null, bytes.subarray(from, to) as unknown as number[]) : utf8.decode(bytes.subarray(from, to));
  const text = utf8.decode(bytes.subarray(from, to));
  return text.includes("\u0000") ? text.replace(/\u0000/g, "") : text;
}

/** u64 as a double when exact, else a bigint (indexed-agent.ts keeps both the same way). */
function u64At(view: DataView, at: number): number | bigint {
  const value = view.getUint32(at + 4, true) * TWO_32 + view.getUint32(at, true);
  return Number.isSafeInteger(value) ? value : view.getBigUint64(at, true);
}

function i64At(view: DataView, at: number): number | bigint {
  // High word times 2^32 is exact; adding the low word rounds only past 2^53, which the check sees.
  const value = view.getInt32(at + 4, true) * TWO_32 + view.getUint32(at, true);
  return Number.isSafeInteger(value) ? value : view.getBigInt64(at, true);
}
