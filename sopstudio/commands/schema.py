"""`sopstudio schema`: print the JSON Schema of the `*.sop.json` format."""

from __future__ import annotations

from ..core.model import SOPFile
from ._common import print_json

NAME = "schema"
HELP = "print the JSON Schema of the .sop.json format"


def add_arguments(parser) -> None:
    pass


def run(args) -> int:
    schema = SOPFile.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "SOP Studio document"
    print_json(schema)
    return 0
