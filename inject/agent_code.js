// @ts-check
// dbg-bridge page client, part: the agent's code (page_exec): compiled as an expression or a function body, and its
// errors told in the agent's terms — line:col in the code it sent, stacks without the client's own frames. Shares
// one IIFE with the other parts (inject/__init__.py).

const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
/** What V8 puts before the code it compiles: `async function anonymous(args,signal\n) {\n`, two lines. */
const HEADER_LINES = 2;
/** The expression form's own prefix on the code's first line. */
const EXPR_PREFIX = 'return (';

/** @param {string} code @returns {{fn: Function, expr: boolean}} */
function compile(code) {
  const expr = code.replace(/[\s;]+$/, '');
  try {
    return { fn: new AsyncFunction('args', 'signal', EXPR_PREFIX + expr + '\n);'), expr: true };
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
  }
  try {
    return { fn: new AsyncFunction('args', 'signal', code), expr: false };
  } catch (e) {
    if (e instanceof SyntaxError) throw new DbgError('syntax_error', syntaxMessage(code, e) + ' Fix the code and retry.');
    throw e;
  }
}

/** @param {string} code @param {number} index @returns {string} */
function lineCol(code, index) {
  const before = code.slice(0, index).split('\n');
  return 'line ' + before.length + ':' + (before[before.length - 1].length + 1);
}

/** The first bracket or string the code opens and never closes (index), or -1. Comments and strings are skipped,
 * roughly (regex literals are not told apart from division). @param {string} code */
function unclosed(code) {
  /** @type {Array<{ch: string, at: number}>} */
  const open = [];
  const pairs = /** @type {Record<string, string>} */ ({ ')': '(', ']': '[', '}': '{' });
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === '/' && code[i + 1] === '/') { const n = code.indexOf('\n', i); i = n < 0 ? code.length : n; continue; }
    if (c === '/' && code[i + 1] === '*') { const n = code.indexOf('*/', i + 2); if (n < 0) return i; i = n + 1; continue; }
    if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < code.length && code[j] !== c && !(c !== '`' && code[j] === '\n')) j += code[j] === '\\' ? 2 : 1;
      if (j >= code.length || code[j] !== c) return i;
      i = j;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') open.push({ ch: c, at: i });
    else if (c in pairs) {
      if (!open.length || open[open.length - 1].ch !== pairs[c]) return -1; // a stray closer: let V8's message stand
      open.pop();
    }
  }
  return open.length ? open[0].at : -1;
}

/** A SyntaxError in the agent's terms: the unclosed bracket or string where the code ends too early (V8 blames the
 * `}` it added), else V8's message with where its token first appears in the code. @param {string} code @param {Error} e */
function syntaxMessage(code, e) {
  const at = unclosed(code);
  if (at >= 0) {
    return 'SyntaxError: your code ends before ' + JSON.stringify(code[at]) + ' at ' + lineCol(code, at) +
      ' is closed.';
  }
  const token = /Unexpected (?:token|identifier|string|number) '?(.+?)'?$/.exec(e.message);
  const where = token ? code.indexOf(token[1]) : -1;
  return 'SyntaxError: ' + e.message + (where >= 0 ? ' at ' + lineCol(code, where) : '') + '.';
}

/** An exception thrown by the agent's code, its stack rewritten: frames in that code read `your code:L:C` (lines
 * and columns of the code as sent), the client's own frames are dropped, the app's frames stay.
 * @param {any} e @param {boolean} expr @returns {any} */
function agentError(e, expr) {
  if (!(e instanceof Error) || e instanceof DbgError) return e;
  const lines = String(e.stack || '').split('\n');
  const kept = [];
  for (const line of lines.slice(1)) {
    const m = /^(\s*at (?:async )?)(.*?)\(?eval at [^)]*\), <anonymous>:(\d+):(\d+)\)?$/.exec(line);
    if (m) {
      const row = Number(m[3]) - HEADER_LINES;
      const col = Number(m[4]) - (expr && row === 1 ? EXPR_PREFIX.length : 0);
      const name = m[2].trim();
      kept.push(m[1] + (name && name !== 'eval' ? name + ' (your code:' + row + ':' + col + ')' : 'your code:' + row + ':' + col));
    } else if (!/dbg_client\.js|<anonymous>\)?$/.test(line) && line.trim()) {
      kept.push(line);
    }
  }
  const out = new Error(e.message);
  out.name = e.name;
  out.stack = kept.join('\n'); // the frames only: the message is said once, above them
  return out;
}
