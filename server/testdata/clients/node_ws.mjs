// Node's ws library (npm ws@8) against a gust WebSocket echo server.
//
// Usage: node node_ws.mjs URL plain|deflate
//
// Echoes text (with non-ASCII), binary, a 300 kB message and an empty one,
// pings, then asks the server to close ("close" -> code 4000) and prints one
// line: "ok extensions=... close=CODE". Any mismatch exits with status 1.
// ws is looked up in this directory's node_modules (npm install --prefix).
import WebSocket from "ws";

const [url, mode] = process.argv.slice(2);
const fail = (msg) => {
  console.error(`fail: ${msg}`);
  process.exit(1);
};
setTimeout(() => fail("timed out"), 20_000).unref();

const ws = new WebSocket(url, {
  perMessageDeflate: mode === "deflate",
  rejectUnauthorized: false, // the test server's own certificate
  maxPayload: 1 << 22,
  handshakeTimeout: 10_000,
});

// Every event lands in a queue that next() takes from, in order.
const queue = [];
let waiting = null;
const push = (ev) => (waiting ? (waiting(ev), (waiting = null)) : queue.push(ev));
const next = () => (queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => (waiting = r)));
ws.on("message", (data, isBinary) => push({ kind: "message", data, isBinary }));
ws.on("pong", (data) => push({ kind: "pong", data }));
ws.on("close", (code, reason) => push({ kind: "close", code, reason: reason.toString() }));
ws.on("error", (e) => fail(e.message));

await new Promise((resolve) => ws.once("open", resolve));

const bytes = Buffer.alloc(25_600);
for (let i = 0; i < bytes.length; i++) bytes[i] = i % 256;
const messages = ["héllo, wörld", bytes, "x".repeat(300_000), Buffer.alloc(0)];
for (const [i, msg] of messages.entries()) {
  const binary = typeof msg !== "string";
  ws.send(msg, { binary });
  const ev = await next();
  if (ev.kind !== "message") fail(`message ${i}: got ${ev.kind}`);
  const same = binary ? Buffer.compare(ev.data, msg) === 0 : ev.data.toString("utf8") === msg;
  if (ev.isBinary !== binary || !same) fail(`message ${i}: got binary=${ev.isBinary}, ${ev.data.length} bytes`);
}

ws.ping("are you there");
const pong = await next();
if (pong.kind !== "pong" || pong.data.toString() !== "are you there") fail(`ping: got ${pong.kind}`);

const exts = ws.extensions || "none";
ws.send("close");
const closed = await next();
if (closed.kind !== "close") fail(`after asking to close: got ${closed.kind}`);
if (closed.reason !== "asked to") fail(`close reason ${JSON.stringify(closed.reason)}`);
console.log(`ok extensions=${exts} close=${closed.code}`);
