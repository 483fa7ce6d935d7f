// Uploads a body the server's handler does not read, with Node's fetch and
// http (with and without Expect: 100-continue), then sends a second request:
// each must get the response whole, with no reset, EPIPE or retry.
// Usage: node node_clients.mjs URL SIZE STATUS
import http from "node:http";

const [url, sizeArg, statusArg] = process.argv.slice(2);
const size = Number(sizeArg), want = Number(statusArg);
const body = Buffer.alloc(size, "x");
const failed = [];

function check(name, status, text, wantStatus) {
  if (status !== wantStatus) failed.push(`${name}: status ${status}, want ${wantStatus}`);
  else if (wantStatus === 200 && text !== "Hello, Go!") failed.push(`${name}: body ${JSON.stringify(text.slice(0, 40))}`);
  else console.log(`ok ${name}`);
}

async function viaFetch(name, init, wantStatus) {
  try {
    const r = await fetch(url, init);
    check(name, r.status, await r.text(), wantStatus);
  } catch (e) {
    failed.push(`${name}: ${e.message}${e.cause ? ": " + e.cause.code : ""}`);
  }
}

function viaHTTP(name, expect, agent) {
  return new Promise((resolve) => {
    const headers = { "content-length": size };
    if (expect) headers.expect = "100-continue";
    const req = http.request(url, { method: "POST", headers, agent }, (res) => {
      let text = "";
      res.setEncoding("latin1");
      res.on("data", (d) => (text += d));
      res.on("end", () => { check(name, res.statusCode, text, want); resolve(); });
      res.on("error", (e) => { failed.push(`${name}: ${e.code || e.message}`); resolve(); });
    });
    req.on("error", (e) => { failed.push(`${name}: ${e.code || e.message}`); resolve(); });
    if (expect) req.on("continue", () => req.end(body));
    else req.end(body);
  });
}

await viaFetch("fetch upload", { method: "POST", body }, want);
await viaFetch("fetch next", {}, 200);
const agent = new http.Agent({ keepAlive: true });
await viaHTTP("http upload", false, agent);
await viaHTTP("http upload expect100", true, agent);
await new Promise((resolve) => {
  http.get(url, { agent }, (res) => {
    let text = "";
    res.on("data", (d) => (text += d));
    res.on("end", () => { check("http next", res.statusCode, text, 200); resolve(); });
  }).on("error", (e) => { failed.push(`http next: ${e.code}`); resolve(); });
});
agent.destroy();
for (const f of failed) console.log("FAIL", f);
process.exit(failed.length ? 1 : 0);
