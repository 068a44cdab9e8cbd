"""The secret formats redaction looks for, in the order they are tried.

Key blocks first (they span lines), then provider tokens by their published shapes
(:mod:`.providers`), then values found by what stands around them (:mod:`.fields`). Each rule
carries keywords, so a text is tried only against the rules it could match.
"""

from __future__ import annotations

from .fields import FIELDS, PRIVATE_KEYS
from .providers import PROVIDERS
from .rule import Rule

__all__ = ["RULES", "Rule"]

RULES: tuple[Rule, ...] = PRIVATE_KEYS + PROVIDERS + FIELDS
