// @ts-check
'use strict';
/**
 * dbg-bridge-webpack-plugin: puts the dbg-bridge page client at the top of <head> of every HTML page webpack emits
 * in development (webpack serve, mode 'development', watch mode), and never when mode is 'production'.
 * Pages from html-webpack-plugin get it through its beforeEmit hook; other emitted .html assets are edited directly.
 *
 *   const DbgBridgePlugin = require('dbg-bridge-webpack-plugin');
 *   plugins: [new HtmlWebpackPlugin(), new DbgBridgePlugin({ bridge: 'http://127.0.0.1:7878' })]
 */

const fs = require('fs');
const path = require('path');

const NAME = 'DbgBridgeWebpackPlugin';
const DEFAULT_BRIDGE = 'http://127.0.0.1:7878';

/**
 * The URL of the bridge that serves from the packing bridge's config dir now (its running.json, written by a bridge
 * started with --port N or --port 0, whose process is still alive), or null. `dbg-bridge plugin webpack` records that
 * config dir in src/bridge.json.
 * @returns {string | null}
 */
function runningBridge() {
  try {
    const packed = JSON.parse(fs.readFileSync(path.join(__dirname, 'bridge.json'), 'utf8'));
    if (typeof packed.configDir !== 'string') return null;
    const data = JSON.parse(fs.readFileSync(path.join(packed.configDir, 'running.json'), 'utf8'));
    if (typeof data.url !== 'string') return null;
    if (Number.isInteger(data.pid)) process.kill(data.pid, 0); // throws when that bridge is gone
    return data.url.replace(/\/+$/, '');
  } catch (_) {
    return null;
  }
}

/**
 * @typedef {object} DbgBridgeOptions
 * @property {string} [bridge] the bridge's URL (default: DBG_BRIDGE_URL, else the bridge that packed this plugin if
 *   it runs with --port N/0 (its running.json), else http://127.0.0.1:7878)
 * @property {string} [attach] the label page_list shows for these pages (default 'webpack')
 * @property {boolean} [enabled] false turns the plugin off; true also injects in mode 'none' builds. Mode
 *   'production' never gets the client.
 */

/** @param {string} s */
const attr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The page with `tag` right after <head> (or after <html>, or first); unchanged if it already has it.
 * @param {string} html @param {string} tag
 */
function injectHtml(html, tag) {
  if (html.includes(tag)) return html;
  for (const re of [/<head(?:\s[^>]*)?>/i, /<html(?:\s[^>]*)?>/i]) {
    const m = re.exec(html);
    if (m) return html.slice(0, m.index + m[0].length) + tag + html.slice(m.index + m[0].length);
  }
  return tag + html;
}

class DbgBridgeWebpackPlugin {
  /** @param {DbgBridgeOptions} [options] */
  constructor(options = {}) {
    this.bridge = String(options.bridge || process.env.DBG_BRIDGE_URL || runningBridge() || DEFAULT_BRIDGE).replace(/\/+$/, '');
    this.attach = String(options.attach || 'webpack');
    this.enabled = options.enabled;
    this.tag = `<script src="${attr(this.bridge + '/inject/dbg_client.js')}" data-attach="${attr(this.attach)}"></script>`;
  }

  /** Development: webpack serve, watch mode or mode 'development'; never mode 'production' (webpack's default). @param {import('webpack').Compiler} compiler */
  active(compiler) {
    const mode = compiler.options.mode;
    if (this.enabled === false || mode === 'production') return false;
    return this.enabled === true || mode === 'development' || !!compiler.watchMode || process.env.WEBPACK_SERVE === 'true';
  }

  /** @param {import('webpack').Compiler} compiler */
  apply(compiler) {
    // with hot module replacement on, a small entry forwards the hot runtime's status to the page client (src/hmr.js)
    if (this.active(compiler)) {
      new compiler.webpack.EntryPlugin(compiler.context, require.resolve('./hmr.js'), { name: undefined }).apply(compiler);
    }
    // the class of the html-webpack-plugin instance in this config (its hooks are per class, so never require() a copy)
    const html = /** @type {any} */ ((compiler.options.plugins || []).find((/** @type {any} */ p) => p && p.constructor &&
      p.constructor.name === 'HtmlWebpackPlugin' && typeof p.constructor.getHooks === 'function'));
    compiler.hooks.thisCompilation.tap(NAME, (compilation) => {
      if (!this.active(compiler)) return;
      if (html) {
        html.constructor.getHooks(compilation).beforeEmit.tap(NAME, (/** @type {{html: string}} */ data) => {
          data.html = injectHtml(data.html, this.tag);
          return data;
        });
        return;
      }
      const { Compilation, sources } = compiler.webpack;
      compilation.hooks.processAssets.tap({ name: NAME, stage: Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_INLINE }, (assets) => {
        for (const name of Object.keys(assets)) {
          if (!/\.html?$/i.test(name)) continue;
          const before = assets[name].source().toString();
          const after = injectHtml(before, this.tag);
          if (after !== before) compilation.updateAsset(name, new sources.RawSource(after));
        }
      });
    });
  }
}

module.exports = DbgBridgeWebpackPlugin;
module.exports.DbgBridgeWebpackPlugin = DbgBridgeWebpackPlugin;
module.exports.injectHtml = injectHtml;
