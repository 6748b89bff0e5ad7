"""The typed errors of workflows. A file that cannot be used is a usage error (one line, exit 2); a replay
that cannot go on names the step and what it looked for (exit 1)."""

from __future__ import annotations

from kite_browser.agent.base.errors import KiteError, UsageError


class WorkflowFileError(UsageError):
    """A workflow file that cannot be used; the message names the file (and the step at fault)."""

    type = "workflow_file_error"


class WorkflowNotYamlError(WorkflowFileError):
    type = "workflow_not_yaml"


class WorkflowUnknownActionError(WorkflowFileError):
    type = "workflow_unknown_action"


class WorkflowMissingVariableError(WorkflowFileError):
    """A step names a ``{variable}`` the file does not declare, or a replay gave no value for one."""

    type = "workflow_missing_variable"


class WorkflowInvalidError(WorkflowFileError):
    """YAML of the wrong shape, or a step whose arguments its action does not take."""

    type = "workflow_invalid"


class RunNotSavableError(UsageError):
    """A run record that cannot become a workflow: not found, not successful, or without steps."""

    type = "run_not_savable"


class ReplayError(KiteError):
    """A replay stopped at a step; ``step`` (1-based) and ``intent`` name it."""

    type = "replay_error"


class ReplayTargetNotFoundError(ReplayError):
    type = "replay_target_not_found"


class ReplayAmbiguousTargetError(ReplayError):
    """Two candidates matched the step's fingerprint equally well: the replay never guesses."""

    type = "replay_ambiguous_target"


class ReplayDivergedError(ReplayError):
    """The step ran but its recorded effect did not happen (another URL, another value, no new tab)."""

    type = "replay_diverged"


class ReplayRefusedError(ReplayError):
    """The safety gate blocked the step or it was declined (a confirm-level step without approval)."""

    type = "replay_refused"


class ReplayStepFailedError(ReplayError):
    """The action itself failed (its typed error is in the message)."""

    type = "replay_step_failed"


class ReplayAnswerNotFoundError(ReplayError):
    """Every step replayed, but the recorded answer's passage is not on the page the replay ended on (and no
    model was given to ask for the answer alone): the replay does not answer with nothing."""

    type = "replay_answer_not_found"
