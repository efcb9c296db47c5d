// @ts-check
/**
 * vite-plugin-dbg-bridge: puts the dbg-bridge page client into every HTML page the Vite dev server serves
 * (never into `vite build` output), and tags JSX/TSX and Vue template elements with `data-dbg-source="file:line:col"`
 * so page_source and the element picker map any element to its code.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse as babelParse } from '@babel/parser';
import MagicString from 'magic-string';

/** @typedef {import('./index.d.ts').DbgBridgeOptions} DbgBridgeOptions */

const DEFAULTS = { bridge: process.env.DBG_BRIDGE_URL || 'http://127.0.0.1:7878', autoStart: true, attach: 'vite', sourceAttributes: true };
/** How long a started bridge gets to answer before the plugin says it did not. */
const START_MS = 15000;
const ATTR = 'data-dbg-source';
const JSX_FILE = /\.[jt]sx$/;
const SKIP_KEYS = new Set(['loc', 'start', 'end', 'extra', 'comments', 'leadingComments', 'trailingComments', 'innerComments', 'range']);

/** Depth-first walk over an AST of plain objects. @param {any} node @param {(n: any) => void} visit */
function walk(node, visit) {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) { for (const n of node) walk(n, visit); return; }
  if (typeof node.type === 'string' || typeof node.type === 'number') visit(node); // Babel: strings; Vue: numbers
  for (const key of Object.keys(node)) if (!SKIP_KEYS.has(key)) walk(node[key], visit);
}

/** @param {string} root @param {string} id */
function relative(root, id) {
  return path.relative(root, id).split(path.sep).join('/');
}

/**
 * Add data-dbg-source to every host element (lowercase tag) of a JSX/TSX module.
 * @param {string} code @param {string} id absolute file path @param {string} root project root
 * @returns {{code: string, map: any} | null}
 */
export function tagJsx(code, id, root) {
  if (!code.includes('<')) return null;
  let ast;
  try {
    ast = babelParse(code, { sourceType: 'module', errorRecovery: true, plugins: /\.tsx$/.test(id) ? ['jsx', 'typescript'] : ['jsx'] });
  } catch (_) {
    return null; // not ours to report: the framework plugin will show the syntax error
  }
  const s = new MagicString(code);
  const file = relative(root, id);
  walk(ast.program, (node) => {
    if (node.type !== 'JSXOpeningElement' || node.name.type !== 'JSXIdentifier' || !/^[a-z]/.test(node.name.name)) return;
    if (node.attributes.some((/** @type {any} */ a) => a.type === 'JSXAttribute' && a.name && a.name.name === ATTR)) return;
    s.appendLeft(node.name.end, ` ${ATTR}="${file}:${node.loc.start.line}:${node.loc.start.column + 1}"`);
  });
  if (!s.hasChanged()) return null;
  return { code: s.toString(), map: s.generateMap({ hires: true, source: id, includeContent: true }) };
}

/**
 * Add data-dbg-source to every plain element of a Vue SFC template (components keep theirs off).
 * @param {string} code @param {string} id @param {string} root @param {any} compiler vue/compiler-sfc
 * @returns {{code: string, map: any} | null}
 */
export function tagVue(code, id, root, compiler) {
  const { descriptor } = compiler.parse(code, { filename: id });
  const template = descriptor.template;
  if (!template || !template.ast || (template.lang && template.lang !== 'html')) return null;
  const s = new MagicString(code);
  const file = relative(root, id);
  walk(template.ast.children, (node) => {
    if (node.type !== 1 || node.tagType !== 0) return; // ELEMENT nodes that are plain elements
    if ((node.props || []).some((/** @type {any} */ p) => p.name === ATTR)) return;
    const at = node.loc.start.offset + 1 + node.tag.length;
    s.appendLeft(at, ` ${ATTR}="${file}:${node.loc.start.line}:${node.loc.start.column}"`);
  });
  if (!s.hasChanged()) return null;
  return { code: s.toString(), map: s.generateMap({ hires: true, source: id, includeContent: true }) };
}

/** @param {string} bridge */
async function answers(bridge) {
  try {
    const res = await fetch(bridge + '/bridge/health', { signal: AbortSignal.timeout(1000) });
    const body = res.ok ? await res.json() : null;
    return !!body && body.name === 'dbg-bridge';
  } catch (_) {
    return false;
  }
}

/** How `dbg-bridge plugin vite` said to start the bridge that packed this copy ({command: [python, '-m', 'bridge']}),
 * or null (a copy from the repo folder). */
function packedBy() {
  try {
    const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bridge.json');
    const data = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(data.command) && data.command.length ? data : null;
  } catch (_) {
    return null;
  }
}

/** The URL of the bridge that serves from the packing bridge's config dir now (its running.json), or null. */
function runningBridge() {
  const packed = packedBy();
  if (!packed || typeof packed.configDir !== 'string') return null;
  try {
    const data = JSON.parse(readFileSync(path.join(packed.configDir, 'running.json'), 'utf8'));
    return typeof data.url === 'string' ? data.url.replace(/\/+$/, '') : null;
  } catch (_) {
    return null;
  }
}

/** The commands to try, in order, as [label, argv]: the `command` option, DBG_BRIDGE_COMMAND, the bridge that packed
 * this plugin, `dbg-bridge` on PATH. @param {string | undefined} command */
function candidates(command) {
  /** @type {Array<[string, string[]]>} */
  const out = [];
  if (command) out.push(['the command option', [command]]);
  if (process.env.DBG_BRIDGE_COMMAND) out.push(['DBG_BRIDGE_COMMAND', [process.env.DBG_BRIDGE_COMMAND]]);
  const packed = packedBy();
  if (packed) out.push(['the bridge that packed this plugin', packed.command.map(String)]);
  out.push(['dbg-bridge on PATH', ['dbg-bridge']]);
  return out;
}

/** `text` in an ANSI style on a terminal that wants colours (not with NO_COLOR, not into a file or pipe).
 * @param {string} code @param {string} text */
const tint = (code, text) => (process.env.NO_COLOR || !process.stdout.isTTY ? text : `\u001b[${code}m${text}\u001b[0m`);

/** A command line as a shell would take it back. @param {string[]} argv */
const shellLine = (argv) => argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');

/** Wait until the bridge answers (true) or the child exits or the time is up (false).
 * @param {string} bridge @param {import('node:child_process').ChildProcess} child @param {number} ms */
async function cameUp(bridge, child, ms) {
  const until = Date.now() + ms;
  while (Date.now() < until && child.exitCode === null && child.signalCode === null) {
    if (await answers(bridge)) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return answers(bridge);
}

/**
 * Start a bridge on `bridge`'s port with the first command that runs; resolves to the child (up and answering) or
 * to the one message that says what to do.
 * @param {string} bridge @param {string | undefined} command
 * @returns {Promise<{child: import('node:child_process').ChildProcess | null, problem: string}>}
 */
async function startBridge(bridge, command) {
  const port = new URL(bridge).port || '7878';
  const tried = [];
  for (const [label, argv] of candidates(command)) {
    const child = spawn(argv[0], [...argv.slice(1), 'serve', '--port', port], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d) => { stderr = (stderr + d).slice(-2000); });
    const spawned = await new Promise((resolve) => { child.once('spawn', () => resolve(true)); child.once('error', () => resolve(false)); });
    if (!spawned) { tried.push(`${label} (${shellLine(argv)}: not found)`); continue; }
    if (await cameUp(bridge, child, START_MS)) return { child, problem: '' };
    const exited = child.exitCode !== null || child.signalCode !== null;
    child.kill();
    const last = stderr.trim().split('\n').pop() || (exited ? `it exited with ${child.exitCode ?? child.signalCode}` : `no answer within ${START_MS / 1000} s`);
    tried.push(`${label} (${shellLine([...argv, 'serve', '--port', port])}: ${last})`);
  }
  return { child: null, problem: `no bridge answers at ${bridge} and none could be started (tried ${tried.join('; ')}). ` +
    'Set DBG_BRIDGE_COMMAND to the dbg-bridge you installed (e.g. /path/to/dbg-bridge/.venv/bin/dbg-bridge) and ' +
    `restart the dev server, or start the bridge yourself: dbg-bridge serve --port ${port}` };
}

/**
 * @param {DbgBridgeOptions} [options]
 * @returns {import('vite').Plugin}
 */
export default function dbgBridge(options = {}) {
  // An option given as undefined (`{bridge: process.env.DBG_URL}` with the variable unset) keeps its default.
  const given = Object.fromEntries(Object.entries(options || {}).filter(([, v]) => v !== undefined));
  const opts = { ...DEFAULTS, ...given };
  let bridge = String(opts.bridge).replace(/\/+$/, '');
  // no URL given (option or DBG_BRIDGE_URL): a bridge started with --port N / --port 0 from the config dir of the
  // bridge that packed this plugin is found through its running.json
  const chosen = given.bridge !== undefined || !!process.env.DBG_BRIDGE_URL;
  /** @type {Promise<string> | null} */
  let ready = null;
  let root = process.cwd();
  /** @type {Promise<any> | null} */
  let vueCompiler = null;
  /** @type {import('node:child_process').ChildProcess | null} */
  let child = null;

  const loadVue = () => {
    if (!vueCompiler) {
      const require = createRequire(path.join(root, 'package.json'));
      vueCompiler = import(pathToFileURL(require.resolve('vue/compiler-sfc')).href);
    }
    return vueCompiler;
  };

  /** @type {import('vite').Plugin} */
  const plugin = {
    name: 'vite-plugin-dbg-bridge',
    apply: 'serve',
    enforce: 'pre',

    configResolved(config) {
      root = config.root;
      // Framework plugins that compile JSX (vite-plugin-solid, for one) are `enforce: 'pre'` too, and then the
      // order in `plugins: [...]` decides: move ours first so it always sees the source JSX.
      const plugins = /** @type {any[]} */ (config.plugins);
      const at = plugins.indexOf(plugin);
      if (at > 0) { plugins.splice(at, 1); plugins.unshift(plugin); }
    },

    async configureServer(server) {
      const log = server.config.logger;
      // the bridge is looked for (and started) beside the dev server's own start; the banner line waits for it
      ready = (async () => {
        if (await answers(bridge)) return '';
        const running = chosen ? null : runningBridge();
        if (running && running !== bridge && await answers(running)) { bridge = running; return ''; }
        if (!opts.autoStart) return `no bridge answers at ${bridge} (autoStart is off): start it with \`dbg-bridge serve --port ${new URL(bridge).port || '7878'}\`.`;
        const started = await startBridge(bridge, opts.command);
        child = started.child;
        return started.problem;
      })();
      server.httpServer?.on('close', () => child && child.kill());
      const print = server.printUrls.bind(server);
      server.printUrls = () => {
        print();
        void ready?.then((problem) => {
          if (problem) log.warn(`  [dbg-bridge] ${problem}`);
          else log.info(`  ${tint('32', '➜')}  ${tint('1', 'dbg-bridge')}: ${bridge}/ (cockpit) · MCP ${bridge}/mcp${child ? ' (started by this dev server)' : ''}`);
        });
      };
    },

    async transformIndexHtml() {
      await ready; // the bridge's URL is known (and one started by us answers) before a page gets the tag
      return [{ tag: 'script', attrs: { src: `${bridge}/inject/dbg_client.js`, 'data-attach': opts.attach }, injectTo: 'head-prepend' }];
    },

    transform: {
      order: 'pre',
      async handler(code, id) {
        if (!opts.sourceAttributes || id.includes('/node_modules/') || id.includes('\0') || id.includes('?')) return null;
        if (JSX_FILE.test(id)) return tagJsx(code, id, root);
        if (id.endsWith('.vue')) return tagVue(code, id, root, await loadVue());
        return null;
      },
    },
  };
  return plugin;
}
