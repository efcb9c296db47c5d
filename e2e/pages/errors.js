// Errors of every kind the page client records, in plain JS served as written (no build, no source map):
// e2e/test_debugging.py checks each is reported at these lines by the act, the wait or the navigation that caused it.

async function rejectLater() {
  await null;
  throw new Error('rejected on purpose'); // @reject
}

function logIt() {
  console.error(new Error('logged on purpose')); // @logged
}

function throwLater() {
  setTimeout(function late() {
    document.getElementById('status').textContent = 'late';
    throw new Error('thrown late on purpose'); // @late
  }, 200);
}

function onLoad() {
  if (location.search.includes('boom')) throw new Error('thrown on load on purpose'); // @load
}

function throwNow() {
  throw new Error('thrown in a frame on purpose'); // @frame
}

document.addEventListener('click', (ev) => {
  const id = /** @type {HTMLElement} */ (ev.target).id;
  if (id === 'reject') rejectLater();
  if (id === 'log') logIt();
  if (id === 'late') throwLater();
  if (id === 'throw') throwNow();
});
onLoad();
