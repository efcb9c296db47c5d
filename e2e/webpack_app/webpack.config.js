// The e2e app for plugins/webpack: html-webpack-plugin page + the dbg-bridge plugin (required by path, as the repo's
// copy). DBG_BRIDGE_URL points it at the test bridge; OUT_DIR keeps build output out of the repo; DEVTOOL picks the
// source maps (e2e/test_debugging.py: eval-source-map, source-map; unset: webpack's default, eval).
const path = require('node:path');
const HtmlWebpackPlugin = require('html-webpack-plugin');
const DbgBridgePlugin = require('../../plugins/webpack');

module.exports = {
  entry: './src/index.js',
  devtool: process.env.DEVTOOL || undefined,
  output: { path: path.resolve(process.env.OUT_DIR || 'dist'), clean: true },
  plugins: [
    new HtmlWebpackPlugin({ template: './src/index.html' }),
    new DbgBridgePlugin({ bridge: process.env.DBG_BRIDGE_URL }),
  ],
  // lean dev server: no HMR/live-reload client, nothing served from disk
  devServer: { static: false, hot: false, liveReload: false, client: false },
  infrastructureLogging: { level: 'warn' },
  stats: 'errors-warnings',
};
