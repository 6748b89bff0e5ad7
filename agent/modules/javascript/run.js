async ([code, input, maxBytes]) => {
  let canvas = null;
  const getCanvas = (width = 800, height = 600) => {
    if (typeof document === "undefined") {
      throw new Error("getCanvas is not available: this run uses the Node.js fallback (no browser)");
    }
    if (!canvas) {
      canvas = document.createElement("canvas");
      canvas.width = Math.max(1, Math.floor(Number(width) || 800));
      canvas.height = Math.max(1, Math.floor(Number(height) || 600));
      document.body.appendChild(canvas);
    }
    return canvas;
  };
  let value;
  try {
    const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
    const fn = new AsyncFunction("input", "getCanvas", code);
    value = await fn(input, getCanvas);
  } catch (err) {
    const isErr = err instanceof Error;
    return {
      kind: "error",
      name: isErr ? err.name : typeof err,
      message: isErr ? err.message : String(err),
      stack: isErr && err.stack ? String(err.stack).split("\n").slice(0, 6).join("\n") : null,
    };
  }
  let json;
  const t = typeof value;
  if (value === undefined) {
    json = "null";
  } else if (t === "function" || t === "symbol" || t === "bigint") {
    return { kind: "unserialisable", message: `the code returned a ${t}, which JSON cannot represent` };
  } else {
    try {
      json = JSON.stringify(value);
    } catch (err) {
      return { kind: "unserialisable", message: String((err && err.message) || err) };
    }
    if (json === undefined) json = "null";
  }
  if (json.length > maxBytes) {
    return { kind: "too_large", size: json.length };
  }
  const out = { kind: "ok", json };
  if (canvas) {
    out.width = canvas.width;
    out.height = canvas.height;
    try {
      out.png = canvas.toDataURL("image/png");
    } catch (err) {
      out.canvasError = String((err && err.message) || err);
    }
  }
  return out;
}
