// Runs under the real `node` binary (not Bun's node:http): `node node-upload-client.mjs <url>
// <bytes> <times>` POSTs <bytes> with Content-Length <times> times, each on a new connection, and
// prints what came back as one JSON line, counted by status or by error code ({"413":19,"EPIPE":1}).
import http from "node:http";

const [url, bytesArg, timesArg] = process.argv.slice(2);
const bytes = Number(bytesArg);
const times = Number(timesArg);
const body = Buffer.alloc(bytes, 0x20);

function upload() {
  return new Promise((resolve) => {
    const request = http.request(url, { method: "POST", agent: false, headers: { "content-type": "application/json", "content-length": bytes } }, (response) => {
      response.resume();
      response.on("end", () => resolve(String(response.statusCode)));
      response.on("error", (error) => resolve(`${response.statusCode} then ${error.code ?? error.message}`));
    });
    request.on("error", (error) => resolve(error.code ?? error.message));
    request.end(body);
  });
}

const counts = {};
for (let i = 0; i < times; i += 1) {
  const outcome = await upload();
  counts[outcome] = (counts[outcome] ?? 0) + 1;
}
console.log(JSON.stringify(counts));
