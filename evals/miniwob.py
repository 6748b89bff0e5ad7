"""MiniWoB++ adapter: serve the ``miniwob`` package's HTML locally and run one episode per (task type, seed).

The utterance is the task; the episode's raw reward (1 / -1, fractional for a few tasks) is the score, and
success means a positive reward. The first reward of the episode is the one that counts: after it, the page
does not start a new episode but says that the episode is over (so the agent calls ``done``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.batch.checks import CheckOutcome
from kite_browser.agent.batch.scoring import Verdict
from kite_browser.agent.batch.tasks import Task
from kite_browser.agent.run.record import RunResult
from kite_browser.evals.static import StaticServer
from kite_browser.evals.tasks import MiniwobSpec

if TYPE_CHECKING:
    from playwright.async_api import Page

    from kite_browser.agent.browser.context import ContextSession

OVER_TEXT = "This episode has ended. The task is finished: call done."

# Installed before the episode starts: record the first reward, never start a second episode.
_HOOK_JS = """([seed, mode, maxMs, overText]) => {
  window.__kite = {done: false, raw: null, reason: null};
  const end = core.endEpisode;
  core.endEpisode = function (reward, timeProportional, reason) {
    if (!window.__kite.done && core.EP_TIMER !== null) {
      window.__kite = {done: true, raw: reward, reason: reason || null};
    }
    return end.apply(this, arguments);
  };
  core.startEpisode = function () {  // no second episode: say so where the task was shown
    const query = document.getElementById('query');
    if (query) query.textContent = overText;
  };
  Math.seedrandom(seed);
  core.setDataMode(mode);
  core.EPISODE_MAX_TIME = maxMs;
  core.startEpisodeReal();
}"""


def html_dir() -> Path:
    try:
        import miniwob
    except ImportError as exc:  # pragma: no cover - a dev dependency
        raise UsageError("the MiniWoB++ suite needs the 'miniwob' package: pip install miniwob") from exc
    return Path(miniwob.__file__).parent / "html"


def available_tasks() -> list[str]:
    return sorted(p.stem for p in (html_dir() / "miniwob").glob("*.html"))


class MiniwobServer(StaticServer):
    """The MiniWoB++ HTML on 127.0.0.1: ``with MiniwobServer() as s: s.task_url("click-button")``."""

    def __init__(self, root: Path | None = None) -> None:
        super().__init__(root or html_dir(), no_store=True)

    def task_url(self, task_type: str) -> str:
        return f"{self.base_url}/miniwob/{task_type}.html"


@dataclass(frozen=True)
class Episode:
    """One MiniWoB++ case: a task type and a seed."""

    task_type: str
    seed: int

    @property
    def id(self) -> str:
        return f"{self.task_type}#{self.seed}"


def expand(spec: MiniwobSpec, ids: list[str] | None = None) -> list[Episode]:
    """The suite's episodes; ``ids`` may name task types (all seeds) or single episodes (``type#seed``)."""
    known = set(available_tasks())
    unknown = [t for t in spec.tasks if t not in known]
    if unknown:
        raise UsageError(f"unknown MiniWoB task type(s): {', '.join(unknown)}")
    episodes = [Episode(t, s) for t in spec.tasks for s in spec.seeds]
    if not ids:
        return episodes
    missing = [i for i in ids if not any(e.id == i or e.task_type == i for e in episodes)]
    if missing:
        raise UsageError(f"not in the MiniWoB suite: {', '.join(missing)}")
    chosen = [e for i in ids for e in episodes if e.id == i or e.task_type == i]  # in the order given
    return list(dict.fromkeys(chosen))


async def start_episode(
    page: Page, url: str, seed: int, *, mode: str = "train", max_time_s: float = 600
) -> str:
    """Open the task page, start a seeded episode and return its utterance."""
    await page.goto(url, wait_until="load")
    await page.wait_for_function("() => typeof core !== 'undefined' && typeof genProblem === 'function'")
    await page.evaluate(_HOOK_JS, [seed, mode, int(max_time_s * 1000), OVER_TEXT])
    await page.wait_for_function("() => WOB_TASK_READY === true", timeout=10_000)
    return str(await page.evaluate("() => core.getUtterance()"))


async def episode_result(page: Page) -> tuple[bool, float, str | None]:
    """(episode ended, raw reward or 0, reason) for the episode started by ``start_episode``."""
    try:
        state = await page.evaluate("() => window.__kite || null")
    except Exception:
        return False, 0.0, "the MiniWoB page is gone"
    if not state or not state.get("done"):
        return False, 0.0, "the episode did not end"
    return True, float(state.get("raw") or 0.0), state.get("reason")


@dataclass(frozen=True)
class MiniwobScorer:
    """A MiniWoB++ episode as a job's scorer: ``prepare`` starts the seeded episode (its utterance is the
    task), the agent stops as soon as the episode has ended, and the first reward is the score."""

    url: str
    seed: int
    mode: str = "train"
    max_time_s: float = 600

    async def prepare(self, task: Task, ctx: ContextSession) -> tuple[str, str | None]:
        return await start_episode(
            ctx.page, self.url, self.seed, mode=self.mode, max_time_s=self.max_time_s
        ), None

    async def ended(self, ctx: ContextSession) -> str | None:
        over, raw, _ = await episode_result(ctx.page)
        return f"the MiniWoB episode ended with reward {raw:g}" if over else None

    async def score(self, task: Task, ctx: ContextSession, run: RunResult) -> Verdict:
        over, raw, reason = await episode_result(ctx.page)
        success = over and raw > 0
        failures = [] if success else [f"reward {raw:g}" + (f" ({reason})" if reason else "")]
        return Verdict(success, raw, CheckOutcome(passed=success, failures=failures))
