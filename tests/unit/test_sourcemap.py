"""bridge/pages/sourcemap.py: a compiled position back to the line and column as written."""

from bridge.pages import sourcemap

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def vlq(*numbers: int) -> str:
    out = ""
    for n in numbers:
        v = (-n << 1) | 1 if n < 0 else n << 1
        while True:
            digit, v = v & 31, v >> 5
            out += B64[digit | (32 if v else 0)]
            if not v:
                break
    return out


#: generated line 1: nothing; line 2: col 0 -> src 0 line 0 col 0, col 4 -> line 2 col 6; line 3: col 2 -> line 14 col 6
MAPPINGS = ";" + vlq(0, 0, 0, 0) + "," + vlq(4, 0, 2, 6) + ";" + vlq(2, 0, 12, 0)


def test_a_position_maps_to_the_last_segment_at_or_before_its_column_one_based():
    assert sourcemap.original(MAPPINGS, 2, 1) == (0, 1, 1)
    assert sourcemap.original(MAPPINGS, 2, 9) == (0, 3, 7)
    assert sourcemap.original(MAPPINGS, 3, 21) == (0, 15, 7)  # the state carries across lines
    assert sourcemap.original(MAPPINGS, 1, 5) is None and sourcemap.original(MAPPINGS, 9, 1) is None


def test_sources_are_named_by_the_dev_servers_path_whether_relative_absolute_or_a_file_path():
    module = "http://127.0.0.1:5173/src/App.jsx"
    assert sourcemap.source_path("App.jsx", module, module) == "src/App.jsx"
    assert sourcemap.source_path("/src/App.jsx", module, module) == "src/App.jsx"
    assert sourcemap.source_path("/home/me/app/src/App.jsx", module, module) == "src/App.jsx"
    assert sourcemap.source_path("../lib/x.js", module + ".map", module) == "lib/x.js"


def test_a_source_answer_with_its_map_gets_the_written_position_and_keeps_the_compiled_one():
    found = {"file": "/src/App.jsx", "line": 3, "column": 21, "via": "react", "components": ["App"],
             "generated": {"url": "http://h:1/src/App.jsx", "line": 3, "column": 21,
                           "map": {"url": "http://h:1/src/App.jsx", "sources": ["App.jsx"], "mappings": MAPPINGS}}}
    out = sourcemap.apply(found)
    assert (out["file"], out["line"], out["column"]) == ("src/App.jsx", 15, 7)
    assert out["generated"] == {"url": "http://h:1/src/App.jsx", "line": 3, "column": 21} and "note" not in out


def test_without_a_usable_map_the_compiled_position_stays_and_a_note_says_so():
    for bad in (None, {"sources": [], "mappings": MAPPINGS}, {"sources": ["a.js"], "mappings": "!!"}):
        found = {"file": "/src/App.jsx", "line": 3, "column": 21, "via": "react", "components": [],
                 "generated": {"url": "http://h:1/src/App.jsx", "line": 3, "column": 21, "map": bad}}
        out = sourcemap.apply(found)
        assert (out["file"], out["line"]) == ("/src/App.jsx", 3) and "compiled" in out["note"]
    plain = {"file": "src/App.vue", "line": None, "via": "vue"}
    assert sourcemap.apply(plain) is plain
