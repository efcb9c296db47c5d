import { defineConfig } from 'vite'
import preact from '@preact/preset-vite'
import dbgBridge from 'vite-plugin-dbg-bridge'

// The bridge the tests started: DBG_CLIENT_URL is its client script; the plugin injects that client first in
// <head> (dev server only). Without sourceAttributes, page_source reads Preact's own __source (jsx dev transform).
const client = process.env.DBG_CLIENT_URL || ''
const bridge = client.replace(/\/inject\/.*$/, '') || undefined

export default defineConfig({
  plugins: [preact(), dbgBridge({ bridge, autoStart: false, attach: 'vite-preact' })],
  clearScreen: false,
})
