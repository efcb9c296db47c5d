import { useState } from 'preact/hooks'

export function App() {
  const [count, setCount] = useState(0)

  return (
    <main>
      <h1 id="title">Preact app</h1>
      <p class="intro">
        Edit <code>src/app.jsx</code> and save to test HMR
      </p>
      <button id="counter" onClick={() => setCount((c) => c + 1)}>
        count is {count}
      </button>
    </main>
  )
}
