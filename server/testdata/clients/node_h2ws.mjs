// A WebSocket over HTTP/2 (RFC 8441) with Node's own http2 client: an
// extended CONNECT (:protocol websocket) once the server's SETTINGS allow
// it, then masked frames on the stream: a text and a binary echo, a ping,
// "close" (the echo server closes with 4000), our close reply, and the
// stream's end. Prints "ok close=4000 connect_protocol=true" or fails.
// Usage: node node_h2ws.mjs http://127.0.0.1:PORT/ws | https://...
import http2 from 'node:http2';
import crypto from 'node:crypto';

const url = new URL(process.argv[2]);
const fail = (msg) => { console.error('fail: ' + msg); process.exit(1); };
setTimeout(() => fail('timed out'), 20000).unref();

function frame(op, payload) {
  const mask = crypto.randomBytes(4);
  const len = payload.length;
  let head;
  if (len < 126) head = Buffer.from([0x80 | op, 0x80 | len]);
  else if (len < 65536) { head = Buffer.alloc(4); head[0] = 0x80 | op; head[1] = 0x80 | 126; head.writeUInt16BE(len, 2); }
  else { head = Buffer.alloc(10); head[0] = 0x80 | op; head[1] = 0x80 | 127; head.writeBigUInt64BE(BigInt(len), 2); }
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i] ^= mask[i % 4];
  return Buffer.concat([head, mask, body]);
}

// parse returns [frames, rest] from the bytes the server sent (unmasked).
function parse(buf) {
  const frames = [];
  for (;;) {
    if (buf.length < 2) break;
    let len = buf[1] & 0x7f, off = 2;
    if (len === 126) { if (buf.length < 4) break; len = buf.readUInt16BE(2); off = 4; }
    else if (len === 127) { if (buf.length < 10) break; len = Number(buf.readBigUInt64BE(2)); off = 10; }
    if (buf[1] & 0x80) fail('a masked frame from the server');
    if (buf.length < off + len) break;
    frames.push({ fin: (buf[0] & 0x80) !== 0, op: buf[0] & 0x0f, payload: buf.subarray(off, off + len) });
    buf = buf.subarray(off + len);
  }
  return [frames, buf];
}

const opts = url.protocol === 'https:' ? { rejectUnauthorized: false } : {};
const client = http2.connect(url.origin, opts);
client.on('error', (e) => fail('session: ' + e.message));
client.once('remoteSettings', (settings) => {
  if (!settings.enableConnectProtocol) fail('the server did not send SETTINGS_ENABLE_CONNECT_PROTOCOL');
  const stream = client.request({
    ':method': 'CONNECT', ':protocol': 'websocket', ':scheme': url.protocol.slice(0, -1),
    ':path': url.pathname, ':authority': url.host, 'sec-websocket-version': '13',
  }, { endStream: false });
  stream.on('error', (e) => fail('stream: ' + e.message));
  const big = 'x'.repeat(100000);
  const steps = [
    { send: () => stream.write(frame(1, 'hello')), want: (f) => f.op === 1 && f.payload.toString() === 'hello' },
    { send: () => stream.write(frame(2, Buffer.from([0, 1, 2]))), want: (f) => f.op === 2 && f.payload.equals(Buffer.from([0, 1, 2])) },
    { send: () => stream.write(frame(2, big)), want: (f) => f.op === 2 && f.payload.length === big.length },
    { send: () => stream.write(frame(9, 'ping')), want: (f) => f.op === 10 && f.payload.toString() === 'ping' },
    { send: () => stream.write(frame(1, 'close')), want: (f) => f.op === 8 && f.payload.readUInt16BE(0) === 4000 },
  ];
  let step = 0, rest = Buffer.alloc(0), closeCode = 0;
  stream.on('response', (headers) => {
    if (headers[':status'] !== 200) fail('status ' + headers[':status']);
    steps[0].send();
  });
  stream.on('data', (chunk) => {
    let frames;
    [frames, rest] = parse(Buffer.concat([rest, chunk]));
    for (const f of frames) {
      if (step >= steps.length) fail('a frame after the close: op ' + f.op);
      if (!steps[step].want(f)) fail(`step ${step}: op ${f.op} payload ${f.payload.subarray(0, 32).toString('hex')}`);
      if (f.op === 8) {
        closeCode = f.payload.readUInt16BE(0);
        stream.write(frame(8, Buffer.from([0x0f, 0xa0]))); // our reply, 4000
      }
      step++;
      if (step < steps.length) steps[step].send();
    }
  });
  stream.on('end', () => {
    if (step !== steps.length) fail('the stream ended at step ' + step);
    console.log(`ok close=${closeCode} connect_protocol=true`);
    client.close();
  });
});
