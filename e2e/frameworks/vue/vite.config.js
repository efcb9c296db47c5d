import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'
import dbgBridge from 'vite-plugin-dbg-bridge'

// The bridge the tests started: DBG_CLIENT_URL is its client script; the plugin injects that client first in
// <head> (dev server only) and tags elements with data-dbg-source for page_source.
const client = process.env.DBG_CLIENT_URL || ''
const bridge = client.replace(/\/inject\/.*$/, '') || undefined

// https://vite.dev/config/
export default defineConfig({
  plugins: [vue(), dbgBridge({ bridge, autoStart: false, attach: 'vite-vue' })],
  clearScreen: false,
})
