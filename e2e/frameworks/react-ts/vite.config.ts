import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'
import dbgBridge from 'vite-plugin-dbg-bridge'

// The bridge the tests started: DBG_CLIENT_URL is its client script; the plugin injects that client first in
// <head> (dev server only) and tags elements with data-dbg-source for page_source.
const client = process.env.DBG_CLIENT_URL || ''
const bridge = client.replace(/\/inject\/.*$/, '') || undefined

// https://vite.dev/config/
export default defineConfig({
  plugins: [react(), dbgBridge({ bridge, autoStart: false, attach: 'vite-react-ts' })],
  // lets the page client sample which functions a slow frame ran (JS Self-Profiling; docs/errors.md)
  server: { headers: { 'Document-Policy': 'js-profiling' } },
  clearScreen: false,
})
