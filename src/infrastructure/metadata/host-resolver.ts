import { lookup } from "node:dns/promises";

export type ResolvedAddress = Readonly<{ address: string; family: 4 | 6 }>;

/**
 * Every address a host name resolves to. Injected so tests can map names such as
 * `agents.example.com` to chosen addresses without the public network. Rejects with an error
 * carrying a DNS `code` (`ENOTFOUND`, `EAI_AGAIN`, ...) when resolution fails.
 */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** `dns.lookup(host, { all: true })`: the same answers (hosts file included) the OS would connect to. */
export const systemHostResolver: HostResolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.flatMap((answer) =>
    answer.family === 4 || answer.family === 6 ? [Object.freeze({ address: answer.address, family: answer.family })] : [],
  );
};

/**
 * A resolver over a fixed table, for tests and for pinning a host in development.
 *
 * @example
 * const resolver = staticHostResolver({ "agents.example.com": ["93.184.216.34"] });
 */
export function staticHostResolver(table: Readonly<Record<string, readonly string[]>>): HostResolver {
  return async (hostname) => {
    const addresses = table[hostname.toLowerCase().replace(/\.$/, "")];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => Object.freeze({ address, family: address.includes(":") ? 6 : 4 }));
  };
}
