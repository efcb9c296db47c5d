import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

// Adds the dbg-bridge page client to index.html: <script src="$DBG_CLIENT_URL">, first thing in <head>.
function dbgClient() {
  return {
    name: 'dbg-client',
    transformIndexHtml() {
      const src = process.env.DBG_CLIENT_URL
      return src ? [{ tag: 'script', attrs: { src }, injectTo: 'head-prepend' }] : []
    },
  }
}

export default defineConfig({
  plugins: [react(), dbgClient()],
  clearScreen: false,
})
