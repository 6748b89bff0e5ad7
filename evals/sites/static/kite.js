// Shared helper of the static pages: record an interaction in the visitor's state (POST /api/event).
window.kiteEvent = function (source, name, detail) {
  return fetch('/api/event', {
    method: 'POST', credentials: 'include', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({source: source, name: name, detail: detail === undefined ? null : detail}),
  }).then(function (r) { return r.json(); });
};
