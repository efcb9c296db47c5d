// e2e/test_ts_client.py's TypeScript-SDK client (2025-11-25 sessions): one scenario per run, one JSON line out.
//   node client.mjs URL TOKEN PAGE_ID progress|cancel|elicit
//   progress: page_wait with a progress token; prints every notification heard.
//   cancel:   page_exec waiting on its `signal`, aborted 2.5 s later (notifications/cancelled).
//   elicit:   user_ask kind=choice; this client declares elicitation and answers 'green'.
//   close:    user_ask left open, then client.close() once its card is shown (that SDK aborts its streams, no DELETE).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [url, token, pageId, scenario] = process.argv.slice(2);
const client = new Client({ name: 'dbg-bridge-e2e', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  asked.push(req.params.message);
  return { action: 'accept', content: { answer: 'green' } };
});
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
const out = { scenario };
if (scenario === 'progress') {
  const heard = [];
  const r = await client.callTool({ name: 'page_wait', arguments: { pageId, text: 'arrived late', timeout: 8 } }, undefined,
    { onprogress: (p) => heard.push(p) });
  Object.assign(out, { isError: !!r.isError, heard });
} else if (scenario === 'cancel') {
  const ac = new AbortController();
  setTimeout(() => ac.abort('the user changed their mind'), 2500);
  const code = "await new Promise((r) => signal.addEventListener('abort', () => { window.__aborted = true; r(1); })); return 'x'";
  try {
    await client.callTool({ name: 'page_exec', arguments: { pageId, code, timeout: 60 } }, undefined, { signal: ac.signal });
    out.aborted = false;
  } catch (e) {
    out.aborted = ac.signal.aborted;
  }
  // The SDK posts notifications/cancelled without waiting for it: stay connected a moment, as an editor would
  // (closing at once aborts that POST too; the bridge then cancels the call because its stream was dropped).
  await new Promise((r) => setTimeout(r, 500));
} else if (scenario === 'close') {
  const call = client.callTool({ name: 'user_ask', arguments: { pageId, question: 'Left open?', wait: 60 } })
    .then(() => 'answered', (e) => String(e));
  await new Promise((r) => process.stdin.once('data', r)); // the test says when the card is shown: a line on stdin
  await client.close();
  Object.assign(out, { call: await call });
  process.stdout.write(JSON.stringify(out) + '\n');
  process.exit(0);
} else if (scenario === 'elicit') {
  const r = await client.callTool({ name: 'user_ask', arguments: { pageId, question: 'Colour?', kind: 'choice', choices: ['red', 'green'], wait: 30 } });
  Object.assign(out, { isError: !!r.isError, result: r.structuredContent, asked });
}
process.stdout.write(JSON.stringify(out) + '\n');
await client.close();
