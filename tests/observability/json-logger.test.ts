// The process logger (pino behind the Logger port): line shape, levels, one value per field,
// redaction of fields, messages, bindings and context, the request id from the log context,
// and synchronous writes that survive process.exit (real child process).
import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { createJsonLogger } from "../../src/infrastructure/logging/json-logger.ts";
import { enterLogContext, runWithLogContext } from "../../src/infrastructure/logging/log-context.ts";

function recording(level: Parameters<typeof createJsonLogger>[0] = "debug") {
  const lines: string[] = [];
  const logger = createJsonLogger(level, (line) => lines.push(line));
  return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe("JSON logger (pino)", () => {
  test("one JSON object per line: level label, ISO-8601 time, msg, fields", () => {
    const { logger, lines, parsed } = recording();
    logger.info("ready", { role: "all", feePayers: ["a"] });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain("\n");
    const [line] = parsed();
    expect(line).toEqual({ level: "info", time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), msg: "ready", role: "all", feePayers: ["a"] });
  });

  test("lines under the level are dropped; silent drops everything", () => {
    const info = recording("info");
    info.logger.debug("hidden");
    info.logger.warn("shown");
    expect(info.parsed().map((l) => [l["level"], l["msg"]])).toEqual([["warn", "shown"]]);
    const silent = recording("silent");
    silent.logger.error("nothing");
    expect(silent.lines).toEqual([]);
  });

  test("child fields merge with call fields, the call winning, each key written once", () => {
    const { logger, lines, parsed } = recording();
    logger.child({ component: "settlement", key: "k1" }).child({ signature: "s" }).info("settled", { key: "k2" });
    expect(parsed()[0]).toMatchObject({ component: "settlement", signature: "s", key: "k2" });
    expect(lines[0]?.match(/"key":/g)).toHaveLength(1);
  });

  test("SECURITY: secrets never reach a line, whether in fields, bindings, the message or the context", () => {
    const { logger, lines } = recording();
    runWithLogContext({ privateKey: "ctxsecret" }, () => {
      logger
        .child({ rpc: "https://user:bindsecret@rpc.example/?api-key=bindkey", pin: "1234" })
        .error("failed at postgres://admin:msgsecret@db/x", { password: "fieldsecret", error: new Error("GET https://rpc.example/?token=errsecret failed"), amount: 5n });
    });
    const text = lines.join("\n");
    for (const secret of ["ctxsecret", "bindsecret", "bindkey", "1234", "msgsecret", "fieldsecret", "errsecret"]) expect(text).not.toContain(secret);
    expect(JSON.parse(lines[0] ?? "{}")).toMatchObject({ amount: "5", pin: "***", password: "***" });
  });

  test("lines written inside a log context carry its fields, across awaits, and concurrent contexts stay apart", async () => {
    const { logger, parsed } = recording();
    const work = async (id: string) => {
      await Bun.sleep(Math.random() * 10);
      logger.child({ component: "settlement" }).info("settled", { n: id });
    };
    await Promise.all(["a", "b", "c", "d"].map((id) => runWithLogContext({ requestId: `req-${id}` }, () => work(id))));
    logger.info("outside");
    const byN = Object.fromEntries(parsed().filter((l) => l["n"]).map((l) => [l["n"], l["requestId"]]));
    expect(byN).toEqual({ a: "req-a", b: "req-b", c: "req-c", d: "req-d" });
    expect(parsed().find((l) => l["msg"] === "outside")?.["requestId"]).toBeUndefined();
  });

  test("enterLogContext applies to the rest of the execution it is called in", async () => {
    const { logger, parsed } = recording();
    await (async () => {
      enterLogContext({ requestId: "entered" });
      await Bun.sleep(1);
      logger.info("inside");
    })();
    expect(parsed()[0]?.["requestId"]).toBe("entered");
  });

  test("a line logged just before process.exit reaches a piped stdout, after 2,000 others (real child process)", async () => {
    const child = Bun.spawn([process.execPath, resolve(import.meta.dir, "support/log-then-exit.ts")], { stdout: "pipe", stderr: "pipe" });
    const [stdout, exitCode] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect(exitCode).toBe(1);
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(2001);
    expect(JSON.parse(lines.at(-1) ?? "{}")).toMatchObject({ level: "error", msg: "cannot listen", setting: "FACILITATOR_PORT", reason: "port already in use" });
  });
});
