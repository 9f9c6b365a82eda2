import postgres from "postgres";
import { Buffer } from "node:buffer";
const sql = postgres("postgres://postgres@127.0.0.1:5432/warm1m_100k", { max: 2, fetch_types: false, onnotice: () => {} });
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
async function time(name: string, f: () => Promise<number>) {
  const c = cpu(); const t = performance.now(); const bytes = await f();
  console.log(name, (performance.now() - t).toFixed(0), "ms wall", (cpu() - c).toFixed(0), "ms cpu", bytes);
}
for (let round = 0; round < 2; round++) {
await time("hex select 8/stmt", async () => { let b = 0; for (let from = 0; from < 25; from += 8) { const rows = await sql.unsafe(`select chunk, data from registry_snapshot_chunks where kind='agents' and chunk >= ${from} and chunk < ${from + 8} order by chunk`); for (const r of rows) b += r.data.length; } return b; });
await time("hex select 1/stmt", async () => { let b = 0; for (let from = 0; from < 25; from += 1) { const rows = await sql.unsafe(`select chunk, data from registry_snapshot_chunks where kind='agents' and chunk >= ${from} and chunk < ${from + 1} order by chunk`); for (const r of rows) b += r.data.length; } return b; });
await time("base64 select", async () => { let b = 0; for (let from = 0; from < 25; from += 8) { const rows = await sql.unsafe(`select chunk, encode(data,'base64') as data from registry_snapshot_chunks where kind='agents' and chunk >= ${from} and chunk < ${from + 8} order by chunk`); for (const r of rows) b += Buffer.from(r.data, "base64").length; } return b; });
await time("copy binary", async () => { let b = 0; const stream = await sql.unsafe(`copy (select chunk, data from registry_snapshot_chunks where kind='agents' order by chunk) to stdout (format binary)`).readable(); for await (const piece of stream) b += piece.length; return b; });
}
await sql.end();
