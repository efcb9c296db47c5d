import { addToCart } from './cart.js';

const button = document.getElementById('count');
let n = 0;
button.addEventListener('click', () => { button.textContent = 'count is ' + ++n; });

let lines = [];
const total = document.getElementById('total');
function add(id) {
  const next = addToCart(lines, id); // @calls addToCart
  lines = next.lines;
  total.textContent = 'Total: ' + next.total.toFixed(2);
}
document.getElementById('add').addEventListener('click', () => add('kiwi'));
document.getElementById('sort').addEventListener('click', function onSort() { // @slow handler
  const until = performance.now() + 300;
  while (performance.now() < until) { /* a busy loop of 300 ms */ }
  total.textContent = 'sorted';
});
window.appReady = true;
