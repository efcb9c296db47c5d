"""Size caps tell the truth: exact truncated counts, whole trees in files, whole strings or a named error."""

from pathlib import Path

from tests.support import ok, text_of

GROW = """(() => {
  const ul = document.createElement('ul'); ul.id = 'big';
  for (let i = 0; i < 2500; i++) { const li = document.createElement('li'); li.textContent = 'Row number ' + i + ' of the big list'; ul.appendChild(li); }
  document.body.appendChild(ul);
})()"""


def more_count(tree: str) -> int:
    return int(tree.splitlines()[-1].split("… ")[1].split(" more")[0])


def test_a_cut_tree_says_exactly_how_many_elements_it_left_out(app, mcp):
    app.evaluate(GROW)
    cut = ok(mcp.call("page_snapshot", {"pageId": app.page_id}))
    assert cut["truncated"] and len(cut["tree"]) <= 12_000
    assert more_count(cut["tree"]) == cut["elements"] - cut["shown"] and cut["elements"] > 2500
    wide = ok(mcp.call("page_snapshot", {"pageId": app.page_id, "maxChars": 200_000}))
    assert not wide["truncated"] and wide["shown"] == wide["elements"] and len(wide["tree"]) > 100_000
    assert wide["tree"].splitlines()[-1].strip() == '- listitem "Row number 2499 of the big list"'
    assert sum(1 for line in wide["tree"].splitlines() if "Row number" in line) == 2500


def test_to_file_writes_the_whole_tree_however_long(app, mcp):
    app.evaluate(GROW.replace("2500", "9000"))
    out = ok(mcp.call("page_snapshot", {"pageId": app.page_id, "toFile": True, "maxChars": 500}))
    full = Path(out["file"]).read_text()
    assert out["chars"] == len(full) > 300_000 and "Row number 8999" in full and "more element(s)" not in full
    assert full.startswith(out["tree"]) and len(out["tree"]) <= 500 and out["truncated"]
    assert "whole tree" in text_of(mcp.call("page_snapshot", {"pageId": app.page_id, "toFile": True}))


def test_a_long_string_result_arrives_whole(app, mcp):
    out = ok(mcp.call("page_exec", {"pageId": app.page_id, "code": "'x'.repeat(150000)"}))
    assert out["result"] == "x" * 150_000
    big = mcp.call("page_exec", {"pageId": app.page_id, "code": "'y'.repeat(900000)"})
    assert big.is_error and "[result_too_large]" in text_of(big)
