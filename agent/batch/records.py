"""A task's run record on the move: a Ray worker packs the folder it wrote (run.json, steps.jsonl,
screenshots/, downloads/, trace.zip) into one gzip'd tar; the driver unpacks it into its own runs folder.

Size: screenshots are PNGs, already compressed, so gzip runs at level 1: it shrinks the JSON lines several
times over and spends little CPU on the images. The archive travels as one Ray object, which Ray moves between
nodes in chunks through its object store; the driver holds one archive at a time while unpacking it.
"""

from __future__ import annotations

import io
import json
import secrets
import shutil
import tarfile
from pathlib import Path

RECORD_FILES = ("run.json", "steps.jsonl")
"""The files that name their own folder (``result.run_dir``, screenshot paths): rewritten on arrival."""


def pack(run_dir: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", compresslevel=1) as tar:
        tar.add(run_dir, arcname=run_dir.name)
    return buf.getvalue()


def unpack(data: bytes, runs_dir: Path, old_path: str) -> Path:
    """Extract a packed run folder into ``runs_dir`` (under a fresh name if that one is taken) and return it.
    A folder appears under its final name only once complete; paths in it that named ``old_path`` (the
    worker's folder) name the new one."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    incoming = runs_dir / f".incoming-{secrets.token_hex(4)}"
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            tar.extractall(incoming, filter="data")
        (folder,) = incoming.iterdir()
        target = runs_dir / folder.name
        while target.exists():
            target = runs_dir / f"{folder.name}-{secrets.token_hex(2)}"
        _rewrite(folder, old_path, str(target))
        folder.rename(target)
    finally:
        shutil.rmtree(incoming, ignore_errors=True)
    return target


def _rewrite(folder: Path, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` where the record files quote it (as JSON strings)."""
    quoted_old, quoted_new = (json.dumps(p, ensure_ascii=False)[1:-1] for p in (old, new))
    for name in RECORD_FILES:
        path = folder / name
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            if quoted_old in text:
                path.write_text(text.replace(quoted_old, quoted_new), encoding="utf-8")
