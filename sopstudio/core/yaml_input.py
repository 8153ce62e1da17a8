"""YAML documents read safely: `yaml.safe_load` only (plain data, never Python objects), with a
parse error turned into one `InputError` line (`<source>: line N: not valid YAML (...)`).

Callers read the text through `core.inputs.read_text` first, so the size bound applies; aliases
(`*name`) are refused, so a small file cannot expand into a huge structure when walked.
"""

from __future__ import annotations

from typing import Any

import yaml  # type: ignore[import-untyped]  # no stubs installed (types-PyYAML)

from .inputs import InputError


def loads_yaml(text: str, source: str) -> Any:
    """The data of one YAML document (None for an empty one)."""
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                line = event.start_mark.line + 1 if event.start_mark else "?"
                raise InputError(source, f"line {line}: YAML aliases (*name) are not accepted")
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise InputError(source, f"{where}not valid YAML ({problem})") from None
