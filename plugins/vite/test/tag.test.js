import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tagJsx } from '../src/index.js';
import dbgBridge from '../src/index.js';

const APP = `import { useState } from 'react';
export default function App() {
  const [n, setN] = useState(0);
  return (
    <main className="app">
      <Counter value={n} />
      <button onClick={() => setN(n + 1)}>count is {n}</button>
    </main>
  );
}
`;

test('host elements get file:line:col and components do not', () => {
  const out = tagJsx(APP, '/proj/src/App.jsx', '/proj');
  assert.ok(out);
  assert.match(out.code, /<main data-dbg-source="src\/App\.jsx:5:5" className="app">/);
  assert.match(out.code, /<button data-dbg-source="src\/App\.jsx:7:7" onClick=/);
  assert.match(out.code, /<Counter value=\{n\} \/>/);
});

test('the source map points the tagged code back to the original lines', () => {
  const out = tagJsx(APP, '/proj/src/App.jsx', '/proj');
  assert.equal(out.map.sources[0], '/proj/src/App.jsx');
  assert.ok(out.map.mappings.split(';').length >= 9);
});

test('TSX with generics parses and an existing attribute is kept', () => {
  const tsx = `const f = <T,>(x: T) => x;\nexport const A = () => <div data-dbg-source="keep:1:1"><span>{f<number>(1)}</span></div>;\n`;
  const out = tagJsx(tsx, '/p/src/A.tsx', '/p');
  assert.ok(out);
  assert.match(out.code, /data-dbg-source="keep:1:1"/);
  assert.match(out.code, /<span data-dbg-source="src\/A\.tsx:2:/);
});

test('code without JSX is left alone', () => {
  assert.equal(tagJsx('export const x = 1 < 2;', '/p/x.jsx', '/p'), null);
});

test('the plugin only applies to the dev server and prepends the client to head', async () => {
  const plugin = dbgBridge({ bridge: 'http://127.0.0.1:9999/', attach: 'react-app' });
  assert.equal(plugin.name, 'vite-plugin-dbg-bridge');
  assert.equal(plugin.apply, 'serve');
  assert.deepEqual(await /** @type {any} */ (plugin.transformIndexHtml)(), [{ tag: 'script', attrs: { src: 'http://127.0.0.1:9999/inject/dbg_client.js', 'data-attach': 'react-app' }, injectTo: 'head-prepend' }]);
});

test('the transform runs before framework plugins whatever the order in plugins: [...]', () => {
  const plugin = dbgBridge({ autoStart: false });
  assert.equal(plugin.enforce, 'pre');
  assert.equal(/** @type {any} */ (plugin.transform).order, 'pre');
  const solid = { name: 'solid', enforce: 'pre', transform() { return null; } };
  const config = { root: '/p', plugins: [solid, plugin] };
  /** @type {any} */ (plugin.configResolved)(config);
  assert.deepEqual(config.plugins.map((p) => p.name), ['vite-plugin-dbg-bridge', 'solid']);
});

test('options given as undefined keep their defaults', async () => {
  const plugin = dbgBridge({ bridge: undefined, attach: undefined, autoStart: false });
  const tags = await plugin.transformIndexHtml('<html><head></head></html>');
  assert.equal(tags[0].attrs.src, 'http://127.0.0.1:7878/inject/dbg_client.js');
  assert.equal(tags[0].attrs['data-attach'], 'vite');
});
