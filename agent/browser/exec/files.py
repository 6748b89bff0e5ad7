"""uploadFile (only from allowed folders) and screenshot (a PNG in the run folder)."""

from __future__ import annotations

import base64
import itertools
import os
import tempfile
from pathlib import Path
from typing import Literal

from playwright.async_api import Error as PlaywrightError
from pydantic import Field

from kite_browser.agent.base.errors import ActionError
from kite_browser.agent.browser.exec.base import ExecContext, NotInteractableError, Outcome, PathRefusedError
from kite_browser.agent.browser.exec.hit import probe
from kite_browser.agent.browser.exec.spec import (
    REF,
    ActionModel,
    ElementTarget,
    FaceParam,
    IndexField,
    ToolFace,
    define_action,
)
from kite_browser.agent.browser.exec.targets import resolve_element, resolve_index


class Screenshot(ActionModel):
    """Take a screenshot of the viewport, the full page, or one element."""

    action: Literal["screenshot"] = "screenshot"
    full_page: bool = Field(False, description="Capture the whole scrollable page.")
    index: IndexField = None


class UploadFile(ElementTarget):
    """Put a local file into a file input (only from folders the user allowed)."""

    action: Literal["uploadFile"] = "uploadFile"
    file_path: str = Field(alias="filePath", min_length=1, description="Path of the file to upload.")


_counter = itertools.count(1)


def allowed_dirs(ec: ExecContext) -> list[Path]:
    dirs = [Path(d).expanduser() for d in ec.config.browser.upload_dirs]
    if ec.run_dir is not None:
        dirs.insert(0, ec.run_dir)
    return [Path(os.path.realpath(d)) for d in dirs]


def check_upload_path(ec: ExecContext, file_path: str) -> Path:
    """The real path of an allowed file, or a path_refused / file_not_found error."""
    raw = Path(file_path).expanduser()
    if ".." in raw.parts:
        raise PathRefusedError(f"upload path {file_path!r} contains '..'; give a plain path", path=file_path)
    dirs = allowed_dirs(ec)
    if not raw.is_absolute():
        if ec.run_dir is None:
            raise PathRefusedError(f"relative upload path {file_path!r} needs a run folder", path=file_path)
        raw = ec.run_dir / raw
    real = Path(os.path.realpath(raw))
    if not any(real == d or d in real.parents for d in dirs):
        where = ", ".join(str(d) for d in dirs) or "none configured"
        raise PathRefusedError(
            f"upload path {file_path!r} is outside the allowed folders ({where}); add it to browser.upload_dirs",
            path=file_path,
        )
    if not real.is_file():
        raise ActionError(f"no such file to upload: {file_path}", path=file_path)
    return real


async def upload_file(ec: ExecContext, action: UploadFile) -> Outcome:
    path = check_upload_path(ec, action.file_path)
    page = ec.page
    target = await resolve_element(ec, page, action.index, action.selector)
    kind = await target.handle.evaluate(
        "el => el.tagName === 'INPUT' && el.type === 'file' ? 'input' : (el.control && el.control.type === 'file' ? 'label' : 'other')"
    )
    if kind in ("input", "label"):
        handle = target.handle
        if kind == "label":
            handle = (await target.handle.evaluate_handle("el => el.control")).as_element() or handle
        await handle.set_input_files(path, timeout=5000)
        names = await handle.evaluate("el => Array.from(el.files).map(f => f.name).join(', ')")
        return Outcome("set_input_files", f"attached {path.name} to {target.label}", value=names)
    # A button that opens a file chooser.
    pr = await probe(target)
    try:
        async with page.expect_file_chooser(timeout=2000) as info:
            if pr.visible and pr.hit == "self":
                await page.mouse.click(pr.x, pr.y)
            else:
                await target.handle.click(timeout=1000)
        chooser = await info.value
        await chooser.set_files(path)
    except PlaywrightError as exc:
        raise NotInteractableError(
            f"{target.label} is not a file input and did not open a file chooser"
        ) from exc
    return Outcome(
        "file_chooser", f"chose {path.name} in the file chooser opened by {target.label}", value=path.name
    )


def screenshot_dir(ec: ExecContext) -> Path:
    base = ec.run_dir if ec.run_dir is not None else Path(tempfile.gettempdir()) / "kite-screenshots"
    folder = base / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


async def screenshot(ec: ExecContext, action: Screenshot) -> Outcome:
    page = ec.page
    path = screenshot_dir(ec) / f"shot-{os.getpid()}-{next(_counter):04d}.png"
    try:
        if action.index is not None:
            target = await resolve_index(ec, page, action.index)
            png = await target.handle.screenshot(path=path, timeout=5000)
            what = target.label
        else:
            png = await page.screenshot(path=path, full_page=action.full_page, timeout=10000)
            what = "the full page" if action.full_page else "the viewport"
    except PlaywrightError as exc:
        raise ActionError(f"screenshot failed: {str(exc).splitlines()[0]}") from exc
    data: dict[str, object] = {"path": str(path), "bytes": len(png)}
    if ec.screenshot_b64:
        data["base64"] = base64.b64encode(png).decode()
    return Outcome("screenshot", f"saved a screenshot of {what} to {path}", data=data)


define_action(Screenshot, screenshot, settle="none", rank=50)
UPLOAD_FACE = ToolFace(
    "upload_file",
    "Put a local file into file input [ref] (asks the user first).",
    "acts",
    (REF, FaceParam("path", "filePath", "Path of a local file in an allowed upload folder.")),
)
define_action(UploadFile, upload_file, safety="confirm", rank=140, face=UPLOAD_FACE)
