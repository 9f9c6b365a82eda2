// Child process for json-logger.test.ts: logs many lines to stdout (a pipe), then exits at once.
import { createJsonLogger } from "../../../src/infrastructure/logging/json-logger.ts";

const logger = createJsonLogger("info");
for (let i = 0; i < 2000; i++) logger.info("filler", { i, pad: "x".repeat(200) });
logger.error("cannot listen", { setting: "FACILITATOR_PORT", reason: "port already in use" });
process.exit(1);
