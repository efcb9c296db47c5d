import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'

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
  plugins: [vue(), dbgClient()],
  clearScreen: false,
})
