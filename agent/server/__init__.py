"""``kite serve``: Kite's HTTP API and web panel (FastAPI on uvicorn). The full spec is ``GET /api/openapi.json``.

Start: ``kite serve [--host 127.0.0.1] [--port 8710] [--token T]``. The start line on stderr is
``kite serve: listening on http://127.0.0.1:8710/#token=T`` (a random token each start, unless ``--token``,
``server.token`` or ``KITE_SERVER_TOKEN`` sets one; then the line says so and shows no token). A non-loopback
``--host`` without a token is refused (one line, exit 2).

Auth: every path under ``/api`` needs ``Authorization: Bearer <token>`` (else 401 ``unauthorized``). GET
requests may instead pass ``?access_token=<token>`` (for an ``EventSource`` or an ``<img src>``, which cannot
send headers). The panel's static files (``/``, ``/index.html``, ``/panel.css``, ``/panel.js``, from
``agent/server/static/``) load without a token; the panel reads it from ``location.hash`` (``#token=T``).
CORS is closed unless ``server.cors_origins`` lists origins.

Errors: always ``{"error": "<snake_case>", "message": "...", ...context}`` with a 4xx status: 400
``invalid_json`` and other bad values, 401 ``unauthorized``, 404 ``not_found`` (no such route) /
``unknown_module`` / ``unknown_tool`` / ``unknown_run`` / ``unknown_confirmation`` / ..., 413
``body_too_large`` (``server.max_body_bytes``), 422 ``invalid_request`` (with ``problems: [{field,
problem}]``; a bad ``profile`` name: ``invalid_profile``), 409 ``confirmation_closed`` / ``profile_in_use``, 429
``too_many_runs``.

Modules (seed 000)::

    GET  /api/modules                      {"modules": [{name, status, tool_count, tools, web_component, http, ...}]}
    GET  /api/modules/{name}               one module + "definitions" (its tools' JSON Schemas)
    GET  /api/modules/{name}/web-component {module_name, display_name, icon, panel_html, panel_css, panel_js}
    GET  /api/modules/chrome/browsers      {"browsers": [...]}           (each module's own router)
    GET  /api/modules/chrome/browsers/{id} one browser with its tabs
    GET  /api/modules/chrome/browsers/{id}/tabs
    GET  /api/modules/chrome/tabs/{id}/screenshot
    POST /api/modules/chrome/browsers/{id}/close
    POST /api/modules/chrome/tabs/{id}/close
    GET  /api/tools                        {"tools": [{module, definition}]}
    POST /api/tools/{tool_name}            body: the arguments object; answers the tool's result (200) or its
                                           typed error (404 unknown_tool, 403 blocked/declined, 504, 400)

Runs::

    POST /api/runs                 {task, start_url?, model?, max_steps?, allowed_domains?, secrets?: [names],
                                    output_schema?, approve?, vision?, profile?}
                                   -> 201 the run (as GET /api/runs/{id}); ``profile``: a persistent browser
                                   profile (a browser of its own from the pool, closed when the run ends); one
                                   run per profile at a time, a second is 409 ``profile_in_use``
    GET  /api/runs                 {"runs": [run summaries, newest first]}
    GET  /api/runs/{id}            {id, status, task, model, steps: [...], result, error, confirmations: [...]}
                                   (each confirmation as the ``confirm`` event below)
    GET  /api/runs/{id}/events     text/event-stream; each event has an ``id:`` (1, 2, ...), an ``event:`` kind
                                   and JSON ``data:``; resume with ``Last-Event-ID``; ends after ``finish``
    POST /api/runs/{id}/stop       stop the run (its record is saved); answers the run
    GET  /api/runs/{id}/screenshots/{n}   image/png of step n
    GET  /api/runs/{id}/record     run.json and the steps of the run record (each action with ``action_text``)
    GET  /api/runs/{id}/record/{path}     a file of the run folder (steps.jsonl, screenshots/step-001.png ...)
    POST /api/runs/{id}/confirmations/{cid}   {"decision": "approve" | "deny", "similar"?: bool, "reason"?: str}

Event kinds on the stream: the loop's (``start``, ``observe``, ``model``, ``decision``, ``result``, ``error``,
``finish``; see ``agent/base/events.py``) and the server's: ``confirm`` (a confirmation is waiting: ``{id, step,
action, action_text, level, reasons, element, target, url, description, timeout_s, created_at, expires_at}``;
``step`` is the step it belongs to, ``action_text`` and ``target`` are the action and its target worded as the
TUI's modal words them), ``confirmed`` (it was answered, or timed out: ``{id, step, approved, reason}``),
``notify`` (an action the policy wants you to know about: as ``confirm``, without ``timeout_s`` and
``expires_at``). ``finish`` has the loop's ``{step, result}`` and the run's ``status`` (``finished``,
``failed``, ``stopped``) and ``error`` (why it failed, else null), as ``GET /api/runs/{id}`` shows them. Every
event's data also has ``t``, when it was emitted (seconds since the epoch).
"""

from kite_browser.agent.server.app import create_app
from kite_browser.agent.server.state import ServerState

__all__ = ["ServerState", "create_app"]
