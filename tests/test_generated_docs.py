"""Issue 44, item 10: the guide's generated text is committed in its pages (so they read right on GitHub and in an
editor) and is what the code gives now."""

from __future__ import annotations

import difflib

import pytest

from tests.test_docs import ROOT, hooks


def test_every_page_s_generated_text_is_what_the_code_gives_now() -> None:
    docs = hooks()
    stale = []
    for path in docs.pages():
        page = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        fresh = docs.render(text, page)
        if fresh != text:
            diff = list(difflib.unified_diff(text.splitlines(), fresh.splitlines(), page, "the code", lineterm="", n=0))
            stale.append("\n".join(diff[:12] + ["..."] * (len(diff) > 12)))
    assert not stale, f"stale generated text; run `{docs.WRITE}`:\n" + "\n".join(stale)


def test_the_pages_hold_their_generated_text_between_markers() -> None:
    docs = hooks()
    cli = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "<!-- generated: cli-reference -->\n\n## `rageval`\n" in cli and "### `rageval evaluate`" in cli
    assert {path.name for path in docs.pages()} >= {"cli.md", "concepts.md", "trace.md", "ragas.md", "rgb.md"}


def test_render_writes_a_block_anew_and_finds_a_stale_one() -> None:
    docs = hooks()
    fresh = docs.render("Before.\n\n<!-- generated: rgb-row -->\n\nAfter.\n")  # a start marker alone gets its block
    assert fresh.startswith("Before.\n\n<!-- generated: rgb-row -->\n\n| field | in a row |\n")
    assert fresh.endswith("|\n\n<!-- /generated -->\n\nAfter.\n")
    assert docs.render(fresh) == fresh
    stale = fresh.replace("| field | in a row |", "| field | old header |")
    assert docs.render(stale) == fresh
    built = docs.on_page_markdown(stale, page=type("Page", (), {"file": type("File", (), {"src_path": "x.md"})}))
    assert "generated" not in built and "| field | in a row |" in built
    with pytest.raises(ValueError, match="end marker with no start"):
        docs.render("Text.\n<!-- /generated -->\n")
