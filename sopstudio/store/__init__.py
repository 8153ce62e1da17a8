"""Local SQLite store (DESIGN §7): a `Store` owns the database; `store.history` holds versions
(with structural diffs), `store.library` the tool library, `store.runs` scenarios and runs."""

from .blobs import SHORT, hash_sop
from .db import StoreError, default_path, prepare_path, resolve_path
from .diff import FieldChange, ItemChange, SopDiff, diff_sops, diff_values
from .runs import RunRecord
from .store import Store, open_store
from .tools import ToolDrift, bind_tool, read_tool_specs
from .versions import IdentityConflict, Version

__all__ = ["SHORT", "FieldChange", "IdentityConflict", "ItemChange", "RunRecord", "SopDiff", "Store", "StoreError",
           "ToolDrift", "Version", "bind_tool", "default_path", "diff_sops", "diff_values",
           "hash_sop", "open_store", "prepare_path", "read_tool_specs",
           "resolve_path"]
