"""A private key block typed by hand is redacted even when a blank line splits it apart."""

from __future__ import annotations

import gzip
import random
import string
from pathlib import Path

from everbot_memory import MemoryManager
from everbot_memory.core.redaction import redact

_BASE64 = string.ascii_letters + string.digits + "+/"
_RANDOM = random.Random(11)


def _body(lines: int = 5, width: int = 64) -> list[str]:
    rows = ["".join(_RANDOM.choice(_BASE64) for _ in range(width)) for _ in range(lines)]
    return [*rows, "".join(_RANDOM.choice(_BASE64) for _ in range(17)) + "=="]


def _armor(kind: str, body: list[str], newline: str = "\n") -> str:
    """An ASCII-armored block as GnuPG writes it: a header line, a blank line, the body, the
    checksum line and the END line."""
    return newline.join(
        [
            f"-----BEGIN PGP {kind} KEY BLOCK-----",
            "Comment: made up for a test",
            "",
            *body,
            "=Xk9P",
            f"-----END PGP {kind} KEY BLOCK-----",
        ]
    )


def test_a_key_body_read_apart_from_its_header_is_redacted() -> None:
    body = _body()
    for newline in ("\n", "\r\n"):
        # What a reader that splits at the blank line keeps as a paragraph of its own.
        paragraph = _armor("PRIVATE", body, newline).split(newline * 2, 1)[1]
        result = redact(paragraph)
        assert result.found == ("private-key",)
        assert not any(line in result.text for line in body), result.text
        assert "=Xk9P" not in result.text
        assert redact(result.text).found == ()


def test_a_pem_body_before_its_end_line_is_redacted() -> None:
    body = _body(width=64)
    text = "\n".join([*body, "-----END RSA PRIVATE KEY-----"])
    result = redact(text)
    assert not any(line in result.text for line in body)


def test_a_whole_block_is_still_one_placeholder() -> None:
    block = _armor("PRIVATE", _body())
    assert redact(f"my signing key:\n{block}\nkeep it safe").text == (
        "my signing key:\n[redacted:private-key]\nkeep it safe"
    )


def test_a_public_key_and_base64_without_a_private_end_line_are_kept() -> None:
    public = _armor("PUBLIC", _body())
    assert redact(public).text == public
    paragraph = "\n".join(_body())
    assert redact(paragraph).found == ()


def test_a_key_block_typed_into_the_file_with_a_blank_line_leaves_no_copy(
    tmp_path: Path,
) -> None:
    memory = tmp_path / "MEMORY.md"
    manager = MemoryManager(memory)
    manager.remember("The user prefers tabs.")
    body = _body()
    text = memory.read_text(encoding="utf-8")
    typed = "The user prefers tabs. My signing key:\n" + _armor("PRIVATE", body) + "\n"
    memory.write_text(text.replace("The user prefers tabs.\n", typed), encoding="utf-8")
    manager.remember("The user drinks green tea.")  # a save
    manager.remember("The user writes SQL in lowercase.")  # and another
    for path in tmp_path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            if path.suffix == ".gz":
                data = gzip.decompress(data)
            for line in body[:-1]:
                assert line.encode() not in data, path.name
