import type { Plugin } from 'vite';

/** Options of vite-plugin-dbg-bridge. */
export interface DbgBridgeOptions {
  /**
   * URL of the dbg-bridge the page client connects to.
   * @default process.env.DBG_BRIDGE_URL || 'http://127.0.0.1:7878'
   */
  bridge?: string;
  /**
   * Start the bridge (`<command> serve --port <bridge's port>`, a child of the dev server) when none answers at
   * `bridge`. The command tried first is `command`, then `DBG_BRIDGE_COMMAND`, then the bridge that packed this
   * plugin (`dbg-bridge plugin vite` records its Python), then `dbg-bridge` on PATH.
   * @default true
   */
  autoStart?: boolean;
  /**
   * The dbg-bridge executable to start when none answers (a path, e.g. '/path/to/dbg-bridge/.venv/bin/dbg-bridge').
   * @default the bridge that packed this plugin, else 'dbg-bridge' on PATH
   */
  command?: string;
  /**
   * Label shown as the page's attach kind in page_list and the cockpit.
   * @default 'vite'
   */
  attach?: string;
  /**
   * Tag JSX/TSX and Vue template elements with data-dbg-source="file:line:col" during dev transforms.
   * @default true
   */
  sourceAttributes?: boolean;
}

/** The plugin: dev server only (`apply: 'serve'`), so production builds never contain the client. */
export default function dbgBridge(options?: DbgBridgeOptions): Plugin;

export function tagJsx(code: string, id: string, root: string): { code: string; map: unknown } | null;
export function tagVue(code: string, id: string, root: string, compiler: unknown): { code: string; map: unknown } | null;
