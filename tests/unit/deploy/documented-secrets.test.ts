// The deploy tests learn the out-of-band Secrets from docs/deploy.md's `kubectl create secret
// generic` commands; the reader must split them as a shell does, or a check would pass on a
// misread command.
import { expect, test } from "bun:test";
import { documentedSecrets } from "../../deploy/documented-secrets.ts";

const fence = (body: string) => `text\n\n\`\`\`sh\n${body}\n\`\`\`\n`;

test("literals (quoted or not, with = and blanks inside quotes), files with and without a key name, continuation lines, comments", () => {
  const secrets = documentedSecrets(fence([
    "# a comment line is dropped",
    "kubectl create secret generic database \\",
    "  --from-literal=DATABASE_URL='postgres://app:p w@db:5432/x?a=b' \\",
    '  --from-literal=REDIS_URL="rediss://r:6380"',
    "kubectl create secret generic keys --from-file=api-keys.json=./keys/api.json --from-file=./pin",
  ].join("\n")));
  expect(secrets).toEqual({
    database: { DATABASE_URL: "postgres://app:p w@db:5432/x?a=b", REDIS_URL: "rediss://r:6380" },
    keys: { "api-keys.json": "<./keys/api.json>", pin: "<./pin>" },
  });
});

test("commands outside sh fences and other kubectl commands are ignored", () => {
  expect(documentedSecrets("kubectl create secret generic outside --from-literal=A=1\n" + fence("kubectl create configmap c --from-literal=A=1"))).toEqual({});
});

test("--from-env-file takes its keys from the ```dotenv block that shows that file", () => {
  const markdown = "```dotenv\n# database.env\n# a comment\nDATABASE_URL=postgres://app:x@db:5432/x\n\nREDIS_URL=rediss://r:6380\n```\n" + fence("kubectl create secret generic database --from-env-file=./secrets/database.env");
  expect(documentedSecrets(markdown)).toEqual({ database: { DATABASE_URL: "postgres://app:x@db:5432/x", REDIS_URL: "rediss://r:6380" } });
  expect(() => documentedSecrets(fence("kubectl create secret generic database --from-env-file=./other.env"))).toThrow(/no ```dotenv block shows other.env/);
});
