// The cart behind the debugging buttons (e2e/test_debugging.py): a bug three calls deep (a product missing from
// the catalog has no price), and a slow function (a busy loop).

export const CATALOG = {
  apple: { id: 'apple', name: 'Apple', price: 1.2 },
};

const TAX = 0.2;

export function priceWithTax(line) {
  const product = CATALOG[line.id];
  return product.price * line.qty * (1 + TAX); // @bug: a line whose product is not in CATALOG
}

export function recomputeTotal(lines) {
  let total = 0;
  for (const line of lines) total += priceWithTax(line); // @calls priceWithTax
  return total;
}

export function addToCart(lines, id) {
  const next = [...lines, { id, qty: 1 }];
  return { lines: next, total: recomputeTotal(next) }; // @calls recomputeTotal
}
