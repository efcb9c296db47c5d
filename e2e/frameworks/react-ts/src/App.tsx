import { useState } from 'react'
import { addToCart, sortCatalog, type Line } from './cart.ts'

export default function App() {
  const [lines, setLines] = useState<Line[]>([])
  const [total, setTotal] = useState(0)
  const [sync, setSync] = useState('not synced')
  const [sorted, setSorted] = useState<string[]>([])

  function add(id: string) {
    const next = addToCart(lines, id) // @calls addToCart
    setLines(next.lines)
    setTotal(next.total)
  }

  async function syncCart() {
    setSync('syncing')
    const res = await fetch('/api/cart', { method: 'POST', body: JSON.stringify(lines) })
    setSync(res.ok ? 'synced' : 'sync failed: ' + res.status)
  }

  return (
    <main>
      <h1 id="title">Cart</h1>
      <button id="add-apple" onClick={() => add('apple')}>Add apple</button>
      <button id="add" onClick={() => add('kiwi')}>Add</button>
      <button id="sync" onClick={syncCart}>Sync</button>
      <button id="sort" onClick={() => setSorted(sortCatalog())}>Sort</button>
      <p id="total">Total: {total.toFixed(2)} ({lines.length} items)</p>
      <p id="sync-status">{sync}</p>
      <p id="sorted">{sorted.join(', ')}</p>
    </main>
  )
}
