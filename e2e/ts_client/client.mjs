// e2e/test_ts_client.py's TypeScript-SDK client (2025-11-25 sessions): one scenario per run, one JSON line out.
//   node client.mjs URL TOKEN PAGE_ID elicit
//   elicit: user_ask kind=choice; this client declares elicitation and answers 'green'.
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
if (scenario === 'elicit') {
  const r = await client.callTool({ name: 'user_ask', arguments: { pageId, question: 'Colour?', kind: 'choice', choices: ['red', 'green'], wait: 30 } });
  Object.assign(out, { isError: !!r.isError, result: r.structuredContent, asked });
}
process.stdout.write(JSON.stringify(out) + '\n');
await client.close();
