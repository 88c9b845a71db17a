"""The one sanitiser where wire text becomes display text (`t3tui.model.wiretext`)."""

from __future__ import annotations

import random
from types import SimpleNamespace

from rich.style import Style
from rich.text import Text

from t3tui.model.labels import one_line, provider_text
from t3tui.model.wiretext import display_rich, display_text, is_display_safe

HOSTILE = (
    "A\x1b[2J\x1b]2;pwned\x07\x1b]52;c;ZXZpbA==\x07\x9b31m\x00\x7f"
    "\u202eevil\u202c\u2066x\u2069 gpt-\ud800\udc00?\udfff"
)
# What must never reach a terminal: C0 but newline/tab, DEL, C1, bidi controls, surrogates.
FORBIDDEN = {*map(chr, range(0x20)), *map(chr, range(0x7F, 0xA0)),
             *"\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069",
             *map(chr, range(0xD800, 0xE000))}


def test_controls_are_made_visible_not_dropped() -> None:
    shown = display_text(HOSTILE, one_line=True)
    assert shown.startswith("A␛[2J␛]2;pwned␇␛]52;c;ZXZpbA==␇\\x9b31m␀␡")
    assert "\\u202eevil\\u202c\\u2066x\\u2069" in shown
    assert shown.endswith(" gpt-\ufffd\ufffd?\ufffd")
    assert not FORBIDDEN.intersection(shown)
    shown.encode("utf-8")  # no lone surrogate left: every encoder can write it


def test_one_line_turns_breaks_into_spaces_multi_line_keeps_them() -> None:
    text = "a\nb\tc\r\nd\re\x85f\u2028g"
    assert display_text(text, one_line=True) == "a b c d e f g"
    assert display_text(text) == "a\nb\tc\nd␍e\\x85f\ng"


def test_clean_text_is_returned_as_is() -> None:
    for text in ("plain", "Ünïcödé 漢字 🙂", "a\u00a0b", "עברית", ""):
        assert display_text(text, one_line=True) is text
        assert is_display_safe(text)
    multi = "line one\n\tline two"
    assert display_text(multi) is multi


def test_non_strings_from_a_hostile_server_never_raise() -> None:
    class Evil:
        def __str__(self) -> str:
            raise RuntimeError("no")

    assert display_text(None) == ""
    assert display_text(42) == "42"
    assert display_text(["\x1b"], one_line=True) == "['\\x1b']"
    assert display_text(Evil()) == "<Evil>"


def test_random_strings_never_keep_a_forbidden_character() -> None:
    rng = random.Random(16)
    alphabet = [*map(chr, range(0x00, 0xA0)), *"\u202a\u202e\u2066\u2069\u2028",
                "\ud800", "\udfff", "é", "漢", "🙂"]
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        one = display_text(text, one_line=True)
        multi = display_text(text)
        assert not FORBIDDEN.intersection(one)
        assert not (FORBIDDEN - {"\n", "\t"}).intersection(multi)
        one.encode("utf-8")
        multi.encode("utf-8")


def test_display_rich_keeps_styles_around_and_on_replaced_characters() -> None:
    text = Text("ok ")
    text.append("red\x1b[31m", style="bold")
    text.append(" \u202e\ud800", style="italic")
    safe = display_rich(text)
    assert safe.plain == "ok red␛[31m \\u202e\ufffd"
    def styles_at(i: int) -> list[str | Style]:
        return [s.style for s in safe.spans if s.start <= i < s.end]

    assert styles_at(safe.plain.index("red")) == ["bold"]
    # a replaced character keeps the style it had
    assert styles_at(safe.plain.index("␛")) == ["bold"]
    assert styles_at(safe.plain.index("\ufffd")) == ["italic"]
    clean = Text("nothing to change\n")
    assert display_rich(clean) is clean


def test_labels_use_it_for_titles_and_model_names() -> None:
    assert one_line("t\x1b]0;x\x07") == "t␛]0;x␇"
    r = SimpleNamespace(provider="codex\x1b[2J", model="gpt-\ud800")
    assert provider_text(r)  # type: ignore[arg-type] == "codex␛[2J/gpt-\ufffd"
