const button = document.getElementById('count');
let n = 0;
button.addEventListener('click', () => { button.textContent = 'count is ' + ++n; });
window.appReady = true;
