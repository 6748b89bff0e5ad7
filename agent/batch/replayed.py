"""A task with a ``workflow``: the workflow replayed with no model in the task's context, through an
environment held to the task's own safety (its approvals, its secrets), recorded like an agent's run. A step
that cannot be replayed is healed with the task's model (agent/workflow/heal.py); a declined one is not."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kite_browser.agent.base.result import RunResult
from kite_browser.agent.batch.jobs import Job
from kite_browser.agent.browser.env import BrowserEnv, EnvSafety
from kite_browser.agent.run.record import RunRecorder
from kite_browser.agent.workflow.heal import Healer
from kite_browser.agent.workflow.model import load_workflow
from kite_browser.agent.workflow.replay import Replayer
from kite_browser.safety.confirm import BY_TASK, BatchConfirmer

if TYPE_CHECKING:
    from kite_browser.agent.browser.session import ContextSession


async def replay_job(job: Job, ctx: ContextSession, start_url: str | None, task: str = "") -> RunResult:
    """The replay's result as a run's (``model_calls`` 0 unless a step was healed); its record under the run's
    runs folder. ``task``: the task's text, for the agent should it take over."""
    assert job.task.workflow is not None
    wf = load_workflow(job.task.workflow)
    recorder = RunRecorder.create(job.config.run.runs_dir, job.secrets.redact_obj, job.label)
    safety = EnvSafety.from_config(job.config, BatchConfirmer(job.approve, allow=BY_TASK), job.secrets)
    env = BrowserEnv(job.config, ctx, safety)
    await env.start(recorder.run_dir)
    try:
        healer = Healer(job.config, job.model, task=task or None)
        replayer = Replayer(
            wf, start_url=start_url, recorder=recorder, healer=healer, source=str(job.task.workflow)
        )
        await replayer.run(env)
    finally:
        await env.stop()
    return replayer.result
