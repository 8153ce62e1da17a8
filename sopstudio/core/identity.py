"""SOP identity: the id a new SOP gets (a slug of its title plus a short random suffix) and the
rule by which that id follows the title while it is still the default one.

Two documents made with File ▸ New never share an id (the suffix), so their store histories and
autosave slots never meet. The id stays "default" as long as it is exactly the slug of the title
plus the suffix; once the user edits the id by hand it no longer follows the title.
"""

from __future__ import annotations

import re
import secrets

DEFAULT_TITLE = "Untitled SOP"
SLUG_LIMIT = 40  # characters of the title kept in the id: ids appear in file names and prompts
_SUFFIX = re.compile(r"-([0-9a-f]{4})$")


def slugify(title: str) -> str:
    """'Password reset!' -> 'password-reset'; a title with no letters or digits gives 'sop'."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return slug[:SLUG_LIMIT].rstrip("-") or "sop"


def new_sop_id(title: str = DEFAULT_TITLE, suffix: str | None = None) -> str:
    """A fresh id for a new SOP: slug of `title` and 4 random hex digits."""
    return f"{slugify(title)}-{suffix or secrets.token_hex(2)}"


def follows_title(sop_id: str, title: str) -> bool:
    """True when `sop_id` is still the default id made from `title` (not edited by hand)."""
    found = _SUFFIX.search(sop_id)
    return found is not None and sop_id == new_sop_id(title, found.group(1))


def id_after_retitle(sop_id: str, old_title: str, new_title: str) -> str | None:
    """The id a title change carries along (None when the id does not follow the title)."""
    if not follows_title(sop_id, old_title):
        return None
    found = _SUFFIX.search(sop_id)
    assert found is not None  # follows_title checked it
    return new_sop_id(new_title, found.group(1))
