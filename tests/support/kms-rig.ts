import { afterAll, beforeAll } from "bun:test";
import { type FakeKms, startFakeKms } from "../../fixtures/fake-kms-server.ts";

export type { FakeKms } from "../../fixtures/fake-kms-server.ts";

/**
 * Credentials the KMS stand-in accepts (it checks none); never real ones. A fresh object each
 * time: the AWS SDK writes into the credentials it is given (a frozen object makes it fail).
 */
export function fakeKmsCredentials(): { accessKeyId: string; secretAccessKey: string } {
  return { accessKeyId: "AKIATEST", secretAccessKey: "test" };
}

/** The FEE_PAYER_* settings of an aws-kms signer that talks to `kms` through the real AWS SDK. */
export function kmsSignerEnv(kms: FakeKms, overrides: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    FEE_PAYER_SIGNER: "aws-kms",
    FEE_PAYER_KMS_KEY_ID: kms.keyId,
    FEE_PAYER_KMS_REGION: "us-east-1",
    FEE_PAYER_KMS_ENDPOINT: kms.endpoint,
    ...overrides,
  };
}

/**
 * A local KMS stand-in for the enclosing file or describe block: started before its tests and
 * stopped after. With `processCredentials`, the SDK's default credential chain (which reads the
 * process environment) is given fakeKmsCredentials() for that time, and the previous values are
 * put back afterwards: for tests that build the whole service, where no credentials are passed in.
 */
export function useFakeKms(options: Readonly<{ processCredentials?: boolean }> = {}): () => FakeKms {
  let kms: FakeKms | undefined;
  const saved = [process.env["AWS_ACCESS_KEY_ID"], process.env["AWS_SECRET_ACCESS_KEY"]] as const;
  beforeAll(async () => {
    kms = await startFakeKms();
    if (options.processCredentials) {
      const credentials = fakeKmsCredentials();
      process.env["AWS_ACCESS_KEY_ID"] = credentials.accessKeyId;
      process.env["AWS_SECRET_ACCESS_KEY"] = credentials.secretAccessKey;
    }
  }, 30_000);
  afterAll(async () => {
    await kms?.stop();
    if (!options.processCredentials) return;
    restore("AWS_ACCESS_KEY_ID", saved[0]);
    restore("AWS_SECRET_ACCESS_KEY", saved[1]);
  });
  return () => {
    if (kms === undefined) throw new Error("the fake KMS is used before its beforeAll ran");
    return kms;
  };
}

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
