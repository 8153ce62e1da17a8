"""Loading (parse -> migrate -> validate) and stable saving of `*.sop.json` (DESIGN §2)."""

from __future__ import annotations

import json

import pytest

from sopstudio.core import io
from sopstudio.core.errors import LoadError
from sopstudio.core.model import SOP, Edge, Node


def _doc(**sop) -> dict:
    base = {"id": "s", "title": "T", "start": "a",
            "nodes": [{"id": "a", "title": "A"}, {"id": "b", "kind": "end", "outcome": "resolved"}],
            "edges": [{"id": "e1", "source": "a", "target": "b"}]}
    base.update(sop)
    return {"format": "sopstudio", "version": 1, "sop": base}


def _write(tmp_path, data) -> str:
    path = tmp_path / "x.sop.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_load_and_save_round_trip_is_byte_stable(tmp_path):
    sop = io.load_sop(_write(tmp_path, _doc()))
    assert sop.node("b").outcome == "resolved" and sop.edge("e1").target == "b"
    first = io.dumps(sop)
    assert io.dumps(io.loads(first)) == first
    out = tmp_path / "out.sop.json"
    io.save_sop(sop, out)
    assert out.read_text() == first


@pytest.mark.parametrize("data, fragment", [
    ({"format": "other", "version": 1, "sop": {}}, "unknown format 'other'"),
    ({"format": "sopstudio", "version": 99, "sop": {}}, "newer"),
    ({"format": "sopstudio", "version": "1", "sop": {}}, "version"),
    ({"format": "sopstudio", "version": 1}, "sop: Field required"),
    (_doc(nodes=[{"title": "no id"}]), "sop.nodes[0].id: Field required"),
    (_doc(nodes=[{"id": "a", "max_attempts": "many"}]), "sop.nodes[0].max_attempts (id 'a')"),
    (_doc(nodes=[{"id": "a"}, {"id": "a"}], edges=[]), "duplicate id 'a'"),
    (_doc(edges=[{"id": "e1", "source": "a", "target": "zz"}]), "no node with id 'zz'"),
    ("[1, 2", "line 1"),
    ("[]", "JSON object"),
])
def test_bad_files_name_the_file_and_the_field(tmp_path, data, fragment):
    path = _write(tmp_path, data)
    with pytest.raises(LoadError) as caught:
        io.load_sop(path)
    assert fragment in str(caught.value)
    assert path in str(caught.value)


def test_non_strict_load_keeps_broken_references_for_the_validator(tmp_path):
    path = _write(tmp_path, _doc(edges=[{"id": "e1", "source": "a", "target": "zz"}]))
    assert io.load_sop(path, strict=False).edge("e1").target == "zz"


def test_unknown_fields_are_kept():
    data = _doc()
    data["sop"]["nodes"][0]["owner"] = "ops team"
    again = json.loads(io.dumps(io.parse_document(data)))
    assert again["sop"]["nodes"][0]["owner"] == "ops team"


def test_save_is_atomic_when_serialising_fails(tmp_path, monkeypatch):
    out = tmp_path / "keep.sop.json"
    out.write_text("old content")
    monkeypatch.setattr(io, "dumps", lambda sop: (_ for _ in ()).throw(RuntimeError("boom")))
    with pytest.raises(RuntimeError):
        io.save_sop(SOP(id="x"), out)
    assert out.read_text() == "old content"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.sop.json"]


def test_model_helpers():
    sop = SOP(id="s", nodes=[Node(id="a", ask=["x"]), Node(id="b", kind="end")],
              edges=[Edge(id="e", source="a", target="b", when="  ")])
    assert sop.edge("e").when is None
    assert sop.node("a").attempts == 3 and sop.node("a").has_actions()
    assert [e.id for e in sop.out_edges("a")] == ["e"] and sop.in_edges("b")[0].id == "e"
    assert Edge(id="x", source="a", target="b", when="else").is_else


def test_positions_print_on_one_line_and_strings_are_untouched():
    sop = SOP(id="x", nodes=[Node(id="a", position=(1, -2.5), steps=["[\n1,\n2\n]"])])
    text = io.dumps(sop)
    assert '"position": [1.0, -2.5]' in text
    assert io.loads(text) == sop


@pytest.mark.parametrize("error, reason", [
    (IsADirectoryError(21, "Is a directory"), "is a directory"),
    (FileNotFoundError(2, "No such file or directory"), "no such file"),
    (PermissionError(13, "Permission denied"), "permission denied"),
    (UnicodeDecodeError("utf-8", b"\x88", 0, 1, "invalid start byte"),
     "not a text file (not UTF-8)")])
def test_unreadable_files_are_described_in_plain_words(tmp_path, monkeypatch, error, reason):
    path = tmp_path / "x.sop.json"
    path.write_text("{}")

    def fail(*args, **kwargs):
        raise error

    from sopstudio.core import inputs
    monkeypatch.setattr(inputs, "read_stream", fail)  # the one reader every load goes through
    with pytest.raises(LoadError) as caught:
        io.load_sop(path)
    assert str(caught.value) == f"{path}: cannot read file ({reason})"


def test_real_unreadable_files(tmp_path):
    binary = tmp_path / "logo.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x88\x00")
    for path, reason in ((tmp_path, "is a directory"), (tmp_path / "gone.sop.json", "no such file"),
                         (binary, "not a text file (not UTF-8)")):
        with pytest.raises(LoadError) as caught:
            io.load_sop(path)
        assert str(caught.value) == f"{path}: cannot read file ({reason})"
        assert "Error" not in str(caught.value) and "codec" not in str(caught.value)
