import { useState } from 'react'

const SIZES = [['s', 'Small'], ['m', 'Medium'], ['l', 'Large']]

export default function App() {
  const [count, setCount] = useState(0)
  const [name, setName] = useState('')
  const [size, setSize] = useState('m')
  const [fruits, setFruits] = useState(['Apple', 'Pear'])
  const [late, setLate] = useState(null)

  return (
    <main>
      <h1 id="title">React app</h1>
      <button id="counter" onClick={() => setCount((c) => c + 1)}>
        count is {count}
      </button>
      <label>
        Name <input id="name" value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <p id="echo">Hello, {name || 'nobody'}</p>
      <label>
        Size{' '}
        <select id="size" value={size} onChange={(e) => setSize(e.target.value)}>
          {SIZES.map(([value, label]) => (
            <option key={value} value={value}>{label}</option>
          ))}
        </select>
      </label>
      <p id="size-echo">size is {size}</p>
      <ul id="fruits">
        {fruits.map((f) => <li key={f}>{f}</li>)}
      </ul>
      <button id="add" onClick={() => setFruits((all) => [...all, 'Fruit ' + (all.length + 1)])}>Add fruit</button>
      <button id="later" onClick={() => setTimeout(() => setLate('Loaded later'), 300)}>Load later</button>
      {late && <p id="late">{late}</p>}
    </main>
  )
}
