// The cart behind the test app's buttons: a bug three calls deep (a product missing from the catalog has no
// price), and a slow function (a busy loop) for the page's vitals.

export type Product = { id: string; name: string; price: number }
export type Line = { id: string; qty: number }

export const CATALOG: Record<string, Product> = {
  apple: { id: 'apple', name: 'Apple', price: 1.2 },
  pear: { id: 'pear', name: 'Pear', price: 0.8 },
}

const TAX = 0.2

export function priceWithTax(line: Line): number {
  const product = CATALOG[line.id]
  return product.price * line.qty * (1 + TAX) // @bug: a line whose product is not in CATALOG
}

export function recomputeTotal(lines: Line[]): number {
  let total = 0
  for (const line of lines) total += priceWithTax(line) // @calls priceWithTax
  return total
}

export function addToCart(lines: Line[], id: string): { lines: Line[]; total: number } {
  const next = [...lines, { id, qty: 1 }]
  return { lines: next, total: recomputeTotal(next) } // @calls recomputeTotal
}

export function sortCatalog(): string[] {
  const until = performance.now() + 300
  let spins = 0
  while (performance.now() < until) spins++ // @slow: a busy loop of 300 ms
  return Object.keys(CATALOG).sort((a, b) => a.localeCompare(b) || spins)
}
