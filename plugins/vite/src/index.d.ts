import type { Plugin } from 'vite';

/** Options of vite-plugin-dbg-bridge. */
export interface DbgBridgeOptions {
  /**
   * URL of the dbg-bridge the page client connects to.
   * @default 'http://127.0.0.1:7878'
   */
  bridge?: string;
  /**
   * Start `dbg-bridge serve` (as a child of the dev server) when no bridge answers at `bridge`.
   * @default true
   */
  autoStart?: boolean;
  /**
   * Command used to start the bridge.
   * @default 'dbg-bridge'
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
