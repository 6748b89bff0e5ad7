// Server-sent events over fetch (EventSource cannot send the Authorization header).
// Parses the text/event-stream format (id, event, data, retry; comments ignored) and reconnects with
// Last-Event-ID until stopped, so a dropped connection resumes where it left off.
"use strict";

class EventStream {
  constructor(path, onEvent, { onState = () => {}, retryMs = 1000 } = {}) {
    this.path = path;
    this.onEvent = onEvent;
    this.onState = onState;
    this.retryMs = retryMs;
    this.lastId = null;
    this.stopped = false;
    this.controller = null;
  }

  start() {
    this.loop();
    return this;
  }

  stop() {
    this.stopped = true;
    if (this.controller) this.controller.abort();
  }

  async loop() {
    while (!this.stopped) {
      this.controller = new AbortController();
      let finished = false;
      try {
        const headers = { Accept: "text/event-stream" };
        if (this.lastId !== null) headers["Last-Event-ID"] = this.lastId;
        const res = await fetch(this.path, { headers, signal: this.controller.signal, cache: "no-store" });
        if (!res.ok || !res.body) {
          this.onState("failed", res.status);
          return; // 4xx/5xx: not a dropped connection; the caller shows the error
        }
        this.onState("open");
        finished = await this.read(res.body.getReader());
      } catch (err) {
        if (this.stopped || err.name === "AbortError") return;
      }
      if (finished || this.stopped) return;
      this.onState("reconnecting");
      await new Promise((r) => setTimeout(r, this.retryMs));
    }
  }

  // Reads until the stream ends; true when the server ended it after the run's last event.
  async read(reader) {
    const decoder = new TextDecoder();
    let buffer = "";
    let ev = { data: [], event: "message", id: null };
    let ended = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      const lines = buffer.split(/\r\n|\r|\n/);
      buffer = lines.pop();
      for (const line of lines) {
        if (line === "") {
          if (ev.data.length) ended = this.dispatch(ev) || ended;
          ev = { data: [], event: "message", id: null };
          continue;
        }
        if (line.startsWith(":")) continue;
        const i = line.indexOf(":");
        const field = i < 0 ? line : line.slice(0, i);
        let val = i < 0 ? "" : line.slice(i + 1);
        if (val.startsWith(" ")) val = val.slice(1);
        if (field === "data") ev.data.push(val);
        else if (field === "event") ev.event = val;
        else if (field === "id") ev.id = val;
        else if (field === "retry" && /^\d+$/.test(val)) this.retryMs = Number(val);
      }
    }
    return ended;
  }

  dispatch(ev) {
    if (ev.id !== null) this.lastId = ev.id;
    let data;
    try {
      data = JSON.parse(ev.data.join("\n"));
    } catch {
      data = { text: ev.data.join("\n") };
    }
    const kind = (data && data.kind) || ev.event;
    this.onEvent(kind, data, ev.id);
    return kind === "finish" || kind === "end";
  }
}
window.EventStream = EventStream;
