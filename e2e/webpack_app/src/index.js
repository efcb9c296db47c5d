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
window.appReady = true;
