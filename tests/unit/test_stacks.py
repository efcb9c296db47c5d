"""bridge/pages/stacks.py: a page's stack parsed, mapped to the lines written, written compactly with library frames folded."""

from bridge.pages import sourcemap, stacks
from tests.unit.test_sourcemap import vlq

CART = "export function priceWithTax(line) {\n  const product = CATALOG[line.id]\n  return product.price * line.qty\n}\n"
#: compiled line 1 (an import the dev server added) maps nothing; compiled line 3 col 0 -> written line 3 (0-based 2)
#: col 2, col 16 -> written line 3 col 17 (0-based)
MAPPINGS = ";" + vlq(0, 0, 1, 0) + ";" + vlq(0, 0, 1, 2) + "," + vlq(16, 0, 0, 15)
PART = {"url": "http://localhost:5173/src/cart.ts", "sources": ["cart.ts"], "mappings": MAPPINGS, "sourcesContent": [CART]}
STACK = """TypeError: Cannot read properties of undefined (reading 'price')
    at priceWithTax (http://localhost:5173/src/cart.ts:3:17)
    at async load (http://localhost:5173/src/cart.ts?t=1712:2:1)
    at http://localhost:5173/node_modules/.vite/deps/react-dom_client.js?v=be32dd48:9903:5
    at Array.reduce (<anonymous>)
    at executeDispatch (http://localhost:5173/node_modules/.vite/deps/react-dom_client.js?v=be32dd48:941:66)"""


def test_v8_and_firefox_frames_are_parsed_and_other_lines_skipped():
    frames = stacks.parse(STACK)
    assert [(f.fn, f.line, f.column) for f in frames] == [("priceWithTax", 3, 17), ("load", 2, 1), ("", 9903, 5),
                                                          ("executeDispatch", 941, 66)]
    gecko = stacks.parse("priceWithTax@http://localhost:5173/src/cart.ts:3:17\n@http://localhost:5173/x.js:1:2")
    assert [(f.fn, f.url, f.line) for f in gecko] == [("priceWithTax", "http://localhost:5173/src/cart.ts", 3),
                                                      ("", "http://localhost:5173/x.js", 1)]
    assert stacks.parse(None) == [] and stacks.parse("just a message") == []


def test_a_frame_maps_to_the_written_line_with_its_text_and_keeps_the_compiled_position_only_when_it_differs():
    dmap = stacks.DecodedMap(PART)
    m = stacks.map_frame(stacks.parse(STACK)[0], dmap)
    assert (m.fn, m.file, m.line, m.column, m.library) == ("priceWithTax", "src/cart.ts", 3, 18, False)
    assert m.code == "return product.price * line.qty" and m.generated == "src/cart.ts:3:17"
    assert m.compact() == "priceWithTax (src/cart.ts:3:18)"
    same = stacks.map_frame(stacks.Frame("f", "http://localhost:5173/src/cart.ts", 3, 1), dmap)
    assert (same.line, same.column, same.generated) == (3, 3, "src/cart.ts:3:1")
    exact = stacks.DecodedMap({**PART, "mappings": ";;" + vlq(0, 0, 2, 0)})
    assert stacks.map_frame(stacks.Frame("f", PART["url"], 3, 1), exact).generated is None


def test_the_decoded_map_agrees_with_the_one_shot_decoder():
    dmap = stacks.DecodedMap(PART)
    for line, column in ((1, 1), (2, 1), (3, 1), (3, 16), (3, 17), (3, 40), (9, 1)):
        want = sourcemap.original(MAPPINGS, line, column)
        assert dmap.original(line, column) == want, (line, column)


def test_a_frame_no_map_covers_says_so_and_library_frames_are_folded_and_counted():
    frames = stacks.parse(STACK)
    mapped = [stacks.map_frame(f, stacks.DecodedMap(PART) if i == 0 else None) for i, f in enumerate(frames)]
    assert mapped[1].note and not mapped[1].library  # the app's module, no map
    assert mapped[2].library and mapped[3].library and mapped[2].note is None
    assert stacks.top_app(mapped) is mapped[0]
    assert stacks.folded(mapped) == ["at priceWithTax (src/cart.ts:3:18) [compiled src/cart.ts:3:17]",
                                     "at load (src/cart.ts:2:1) [no source map]",
                                     "… 2 library frames (node_modules, runtime)"]
    assert not stacks.needs_map(frames[2]) and stacks.needs_map(frames[0])


def test_webpack_sources_and_eval_module_urls_read_as_app_paths():
    internal = stacks.Frame("add", "webpack-internal:///./src/index.js", 12, 3)
    assert stacks.display_path(internal.url) == "src/index.js"
    dmap = stacks.DecodedMap({"url": "", "sources": ["webpack://dbg-bridge-e2e-webpack/./src/index.js?abc"],
                              "mappings": vlq(0, 0, 9, 2)})
    dmap._lines = [[]] * 11 + dmap._lines  # the module's code starts on line 12
    assert stacks.map_frame(internal, dmap).compact() == "add (src/index.js:10:3)"


def test_the_cache_keeps_a_map_per_module_version_and_forgets_the_least_recently_used():
    cache = stacks.SourceMaps(size=2)
    a = cache.key("p/host", "doc1", "http://x/src/a.ts")
    assert cache.key("p/host", "doc2", "http://x/src/a.ts") != a  # a reload is another version
    assert cache.key("p", "d", "webpack-internal:///./a.js", 1) != cache.key("p", "d", "webpack-internal:///./a.js", 2)
    cache.put(a, PART)
    cache.put(("b",), None)  # no map is remembered too (not asked again)
    assert isinstance(cache.get(a), stacks.DecodedMap) and ("b",) in cache
    cache.put(("c",), {"mappings": "!!", "sources": []})  # malformed: kept as no map
    assert ("b",) not in cache and a in cache and cache.get(("c",)) is None  # the least recently used went


def test_a_script_served_as_written_keeps_its_positions_without_a_note_and_gives_its_line():
    url = "http://localhost:8000/errors.js"
    plain = stacks.DecodedMap({"url": url, "plain": True, "text": "function f() {\n  throw new Error('x')\n}\n"})
    m = stacks.map_frame(stacks.Frame("f", url, 2, 3), plain)
    assert (m.compact(), m.generated, m.note, m.code) == ("f (errors.js:2:3)", None, None, "throw new Error('x')")


def test_an_eval_frame_keeps_its_function_and_the_position_in_the_evaluated_code_and_is_not_a_library_frame():
    frames = stacks.parse("Error: boom\n    at appCode (eval at evaluate (:290:30), <anonymous>:1:71)\n"
                          "    at eval (eval at run (http://x/a.js:3:4), <anonymous>:2:9)")
    assert [(f.fn, f.url, f.line, f.column) for f in frames] == [("appCode", "<anonymous>", 1, 71),
                                                                  ("eval", "<anonymous>", 2, 9)]
    assert not stacks.LIBRARY.search("<anonymous>") and stacks.LIBRARY.search("node:internal/process")
