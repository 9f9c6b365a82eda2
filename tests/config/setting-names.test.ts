// Settings that fail silently: a NODE_ENV other than the three it knows, and a variable spelled
// almost like a setting (FACILITATOR_API_KEY_FILE for FACILITATOR_API_KEYS_FILE left the
// facilitator open to anyone). Pure checks, then main.ts as a real child process.
import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { parseAppConfig } from "../../src/infrastructure/config/app-config.ts";
import { productionProblems } from "../../src/infrastructure/config/production-guard.ts";
import { KNOWN_SETTINGS, editDistance, misspelledSettings } from "../../src/infrastructure/config/setting-names.ts";

const ROOT = resolve(import.meta.dir, "../..");

/** What a container, a CI runner, npm, Bun and Kubernetes put in the environment: none of it ours. */
const FOREIGN_ENVIRONMENT: Record<string, string> = {
  PATH: "/usr/bin", HOME: "/root", CI: "true", TERM: "xterm", SHLVL: "1", PWD: "/app", OLDPWD: "/", LANG: "C.UTF-8", LC_ALL: "C", TZ: "UTC",
  HOSTNAME: "facilitator-7c9d", COLORTERM: "truecolor", TERM_PROGRAM: "vscode", SSH_AUTH_SOCK: "/tmp/ssh", XDG_RUNTIME_DIR: "/run/user/0",
  npm_config_cache: "/root/.npm", npm_lifecycle_event: "start", npm_package_name: "agent-registry-facilitator", npm_config_nodedir: "/usr",
  BUN_INSTALL: "/root/.bun", BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0", DENO_NO_UPDATE_CHECK: "1", DENO_DIR: "/deno",
  NODE_OPTIONS: "--max-old-space-size=512", NODE_VERSION: "22.1.0", NODE_PATH: "/usr/lib/node", NODE_EXTRA_CA_CERTS: "/ca.pem", YARN_VERSION: "1.22.19",
  KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443", KUBERNETES_PORT_443_TCP: "tcp://10.0.0.1:443",
  // Kubernetes service links for Services named redis, facilitator and registry.
  REDIS_PORT: "tcp://10.0.0.9:6379", REDIS_PORT_6379_TCP: "tcp://10.0.0.9:6379", REDIS_SERVICE_HOST: "10.0.0.9", REDIS_SERVICE_PORT: "6379",
  FACILITATOR_SERVICE_HOST: "10.0.0.7", FACILITATOR_SERVICE_PORT: "4020", FACILITATOR_PORT_4020_TCP_ADDR: "10.0.0.7",
  REGISTRY_SERVICE_HOST: "10.0.0.8", REGISTRY_SERVICE_PORT_HTTP: "3000",
  AWS_ACCESS_KEY_ID: "AKIA", AWS_SECRET_ACCESS_KEY: "s", AWS_SESSION_TOKEN: "t", AWS_PROFILE: "p", AWS_DEFAULT_REGION: "eu-west-1",
  AWS_ROLE_ARN: "arn", AWS_WEB_IDENTITY_TOKEN_FILE: "/var/run/token", AWS_STS_REGIONAL_ENDPOINTS: "regional",
  PGHOST: "db", PGPASSWORD: "pw", HTTP_PROXY: "http://proxy", HTTPS_PROXY: "http://proxy", NO_PROXY: "localhost",
  GITHUB_ACTIONS: "true", GITHUB_SHA: "abc", RUNNER_OS: "Linux", SOFTHSM2_CONF: "/etc/softhsm2.conf",
};

describe("NODE_ENV accepts development, test and production only", () => {
  for (const value of ["Production", "prod", "PRODUCTION", "staging", "dev"]) {
    test(`NODE_ENV=${value} is refused, naming the three values`, () => {
      const parsed = parseAppConfig({ NODE_ENV: value });
      expect(parsed.ok).toBe(false);
      expect(parsed.ok ? [] : parsed.errors).toEqual(["NODE_ENV: expected one of development, test, production"]);
    });
  }

  test("the three values, and unset or empty, are accepted", () => {
    for (const value of ["development", "test", "production", "", undefined]) expect(parseAppConfig({ NODE_ENV: value }).ok).toBe(true);
  });

  test("other settings that take a few words say which (no value echoed)", () => {
    const parsed = parseAppConfig({ ROLE: "both", LOG_LEVEL: "verbose" });
    expect(parsed.ok ? [] : parsed.errors).toEqual(["ROLE: expected one of all, registry, facilitator", "LOG_LEVEL: expected one of debug, info, warn, error, silent"]);
  });
});

describe("misspelledSettings: a variable within two edits of a setting", () => {
  test("FACILITATOR_API_KEY_FILE is FACILITATOR_API_KEYS_FILE misspelled", () => {
    expect(misspelledSettings({ FACILITATOR_API_KEY_FILE: "/etc/keys.json" })).toEqual([{ name: "FACILITATOR_API_KEY_FILE", meant: "FACILITATOR_API_KEYS_FILE" }]);
  });

  test("other real slips: a swapped pair, a missing or extra letter, a wrong one; signer settings too", () => {
    const env = { NODE_EVN: "production", DATABASE_URI: "x", AUTH_URL: "x", FEE_PAYER_SINGER: "x", PAYTO_POLICIY: "x", FEE_PAYER_PKCS11_PIN_FILES: "x", CONFIG_AUTHORITY_KMS_KEYID: "x" };
    expect(misspelledSettings(env)).toEqual([
      { name: "AUTH_URL", meant: "AUTH_URI" },
      { name: "CONFIG_AUTHORITY_KMS_KEYID", meant: "CONFIG_AUTHORITY_KMS_KEY_ID" },
      { name: "DATABASE_URI", meant: "DATABASE_URL" },
      { name: "FEE_PAYER_PKCS11_PIN_FILES", meant: "FEE_PAYER_PKCS11_PIN_FILE" },
      { name: "FEE_PAYER_SINGER", meant: "FEE_PAYER_SIGNER" },
      { name: "NODE_EVN", meant: "NODE_ENV" },
      { name: "PAYTO_POLICIY", meant: "PAYTO_POLICY" },
    ]);
  });

  test("what other programs put in the environment never counts, nor does this process's own environment", () => {
    expect(misspelledSettings(FOREIGN_ENVIRONMENT)).toEqual([]);
    expect(misspelledSettings(process.env)).toEqual([]);
  });

  test("every setting is known, and only names shaped like ours are compared", () => {
    expect(misspelledSettings(Object.fromEntries([...KNOWN_SETTINGS].map((name) => [name, "x"])))).toEqual([]);
    expect(KNOWN_SETTINGS.has("FACILITATOR_API_KEYS_FILE") && KNOWN_SETTINGS.has("FEE_PAYER_PKCS11_PIN") && KNOWN_SETTINGS.has("AWS_REGION")).toBe(true);
    // Lowercase, one word, or three edits away: not ours, or not close enough to be a slip.
    expect(misspelledSettings({ facilitator_api_key_file: "x", HOTS: "x", LOG_LEVL_X: "x", REDIS_HOST: "x" })).toEqual([]);
  });

  test("edit distance: a swap of neighbours is one edit", () => {
    expect(editDistance("SINGER", "SIGNER")).toBe(1);
    expect(editDistance("KEY", "KEYS")).toBe(1);
    expect(editDistance("", "ABC")).toBe(3);
    expect(editDistance("PORT", "URL")).toBe(3); // so REDIS_PORT (a Kubernetes service link) is not REDIS_URL
  });
});

describe("a misspelled setting refuses production and warns elsewhere", () => {
  const production = {
    NODE_ENV: "production",
    SOLANA_RPC_URL: "https://rpc.example",
    DATABASE_URL: "postgres://app@db/facilitator",
    FEE_PAYER_SIGNER: "aws-kms",
    AUTH_JWT_PRIVATE_KEY_FILE: "/etc/jwt.json",
    AUTH_DOMAIN: "registry.example.com",
    AUTH_URI: "https://registry.example.com",
  };
  const guard = (env: Record<string, string>) => {
    const parsed = parseAppConfig(env);
    if (!parsed.ok) throw new Error(parsed.errors.join());
    return productionProblems(parsed.config, env);
  };

  test("the production guard names the variable and the setting it resembles, never the value", () => {
    expect(guard(production)).toEqual([]);
    const problems = guard({ ...production, FACILITATOR_API_KEY_FILE: "/etc/secret-keys-path.json" });
    expect(problems).toEqual(["FACILITATOR_API_KEY_FILE: not a setting; did you mean FACILITATOR_API_KEYS_FILE? (the service ignores FACILITATOR_API_KEY_FILE)"]);
    expect(guard({ FACILITATOR_API_KEY_FILE: "/etc/keys.json" })).toEqual([]);
  });

  test("bun src/main.ts: NODE_ENV=prod exits 1 naming NODE_ENV; a misspelling in production exits 1 naming it", () => {
    const run = (env: Record<string, string>) => {
      const result = Bun.spawnSync([process.execPath, "src/main.ts"], { cwd: ROOT, env: { PATH: process.env["PATH"] ?? "", DATA_DIR: "/tmp/never-used-setting-names-test", ...env } });
      return { code: result.exitCode, output: result.stdout.toString() + result.stderr.toString() };
    };
    const prod = run({ NODE_ENV: "prod" });
    expect(prod.code).toBe(1);
    expect(prod.output).toContain("NODE_ENV: expected one of development, test, production");
    expect(prod.output).not.toContain('"ready"');
    const misspelled = run({ ...production, FACILITATOR_API_KEY_FILE: "/etc/keys.json" });
    expect(misspelled.code).toBe(1);
    expect(misspelled.output).toContain("did you mean FACILITATOR_API_KEYS_FILE");
    expect(misspelled.output).not.toContain("/etc/keys.json");
  });

  test("bun src/main.ts outside production: one warning line naming the misspelling, then the boot goes on", () => {
    // SEED_SAMPLE_AGENTS=true with SOLANA_RPC_URL stops the boot right after the warning, before anything is reached.
    const result = Bun.spawnSync([process.execPath, "src/main.ts"], {
      cwd: ROOT,
      env: { PATH: process.env["PATH"] ?? "", DATA_DIR: "/tmp/never-used-setting-names-test", FACILITATOR_API_KEY_FILE: "/etc/keys.json", SOLANA_RPC_URL: "http://127.0.0.1:1", SEED_SAMPLE_AGENTS: "true" },
    });
    const lines = result.stdout.toString().trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ level: "warn", msg: "unknown setting", problem: expect.stringContaining("did you mean FACILITATOR_API_KEYS_FILE") });
    expect(lines.some((line) => line["msg"] === "start-up failed")).toBe(true);
  });
});
