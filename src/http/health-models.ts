import { t } from "elysia";
import { enumSchema } from "./enum-schema.ts";

const CheckStatusModel = enumSchema(["ok", "degraded", "down"]);

const CheckModel = t.Object(
  { status: CheckStatusModel, detail: t.Optional(t.String({ description: "why, when not ok (never a secret or a URL with credentials)" })) },
  { title: "HealthCheck", additionalProperties: false },
);

const reportExample = (status: "ok" | "degraded" | "down") => ({
  status,
  version: "0.2.0",
  checks: {
    ledger: status === "down" ? { status: "down", detail: "no answer within 2000 ms" } : { status: "ok" },
    store: { status: "ok" },
    signer: status === "degraded" ? { status: "degraded", detail: "no fee-payer key configured: /settle is disabled" } : { status: "ok" },
  },
});

/** GET /health: every check (design.md §5), the worst one as `status`. */
export const HealthReportModel = t.Object(
  {
    status: CheckStatusModel,
    version: t.String({ description: "the service's version" }),
    checks: t.Object(
      { ledger: CheckModel, store: CheckModel, signer: CheckModel, counters: t.Optional(CheckModel) },
      { additionalProperties: false, description: "counters: the shared rate-limit and fee-budget counters, present when they are in Redis (REDIS_URL)" },
    ),
  },
  { title: "HealthReport", additionalProperties: false, examples: [reportExample("ok"), reportExample("degraded")] },
);

export const HealthDownModel = t.Object(HealthReportModel.properties, {
  title: "HealthReport",
  additionalProperties: false,
  description: "a check is down",
  examples: [reportExample("down")],
});

/** GET /health/ready: only the checks this interface needs to take traffic. */
export const ReadinessReportModel = t.Object(
  {
    status: CheckStatusModel,
    version: t.String(),
    checks: t.Object(
      { ledger: t.Optional(CheckModel), store: t.Optional(CheckModel), signer: t.Optional(CheckModel), counters: t.Optional(CheckModel) },
      { additionalProperties: false, description: "the checks this interface needs" },
    ),
  },
  { title: "ReadinessReport", additionalProperties: false, examples: [{ status: "ok", version: "0.2.0", checks: { ledger: { status: "ok" } } }] },
);

export const ReadinessDownModel = t.Object(ReadinessReportModel.properties, {
  title: "ReadinessReport",
  additionalProperties: false,
  description: "a check this interface needs is down",
  examples: [{ status: "down", version: "0.2.0", checks: { ledger: { status: "down", detail: "no answer within 2000 ms" } } }],
});

export const LivenessModel = t.Object({ status: t.Literal("ok") }, { title: "Liveness", additionalProperties: false, examples: [{ status: "ok" }] });
