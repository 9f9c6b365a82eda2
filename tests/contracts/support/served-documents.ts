/**
 * Both interfaces of the real contract service and the OpenAPI document each serves: started once
 * per test file (beforeAll) and disposed after it, for the tests that read the documents.
 */
import { afterAll, beforeAll } from "bun:test";
import type { TestService } from "../../settlement/support/service-harness.ts";
import { type App, type Json, documentOf } from "./contract.ts";
import { startContractService } from "./contract-service.ts";

export const INTERFACES = ["facilitator", "registry"] as const;
export type InterfaceName = (typeof INTERFACES)[number];

export type ServedDocuments = Readonly<{
  /** The interface's app, to send requests through `app.handle`. */
  app(name: InterfaceName): App;
  /** The document GET /openapi answered on that interface. */
  document(name: InterfaceName): Json;
}>;

/** Registers the beforeAll that starts the service and fetches both documents, and the afterAll that disposes it. */
export function useServedDocuments(): ServedDocuments {
  let service: TestService | undefined;
  const documents = new Map<InterfaceName, Json>();
  const started = (): TestService => {
    if (!service) throw new Error("the contract service starts in beforeAll");
    return service;
  };
  const app = (name: InterfaceName): App => name === "facilitator" ? started().facilitatorApp : started().registryApp;

  beforeAll(async () => {
    service = await startContractService();
    for (const name of INTERFACES) documents.set(name, await documentOf(app(name)));
  }, 30_000);
  afterAll(() => service?.dispose());

  return Object.freeze({
    app,
    document(name: InterfaceName): Json {
      const document = documents.get(name);
      if (!document) throw new Error(`no OpenAPI document fetched for the ${name} interface`);
      return document;
    },
  });
}
