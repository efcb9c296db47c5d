// bench/hot_path.py's TypeScript-SDK row: time `calls` tools/call requests from `conc` concurrent callers over
// Streamable HTTP and print one JSON line of latencies (ms). Usage:
//   node client.mjs URL TOKEN|- TOOL ARGS_JSON CALLS CONC WARMUP
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, token, tool, argsJson, calls, conc, warmup] = process.argv.slice(2);
const headers = token && token !== '-' ? { Authorization: `Bearer ${token}` } : {};
const client = new Client({ name: 'dbg-bridge-bench', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
const args = JSON.parse(argsJson);

async function run(n, c) {
  const lat = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const t0 = performance.now();
      const r = await client.callTool({ name: tool, arguments: args });
      if (r.isError) throw new Error(JSON.stringify(r.content));
      lat.push(performance.now() - t0);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: c }, worker));
  return { lat, wall: (performance.now() - t0) / 1000 };
}

await run(Number(warmup), Number(conc));
const out = await run(Number(calls), Number(conc));
process.stdout.write(JSON.stringify(out) + '\n');
await client.close();
