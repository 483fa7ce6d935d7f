// Calls every method of gust.echo.Echo with Node's @grpc/grpc-js, the
// service loaded from the .proto by @grpc/proto-loader: a unary call, a
// server stream of three, a client stream of four counted, and a
// bidirectional stream played as ping-pong (each message sent only once
// the one before came back). With CERT it speaks TLS and trusts that
// certificate alone. Modules come from NODE_PATH.
// Usage: node node_grpc.cjs HOST:PORT PROTO [CERT]
const fs = require('fs');
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');

const [target, proto, cert] = process.argv.slice(2);
const def = loader.loadSync(proto, { keepCase: true, longs: Number, defaults: true });
const { Echo } = grpc.loadPackageDefinition(def).gust.echo;
const creds = cert ? grpc.credentials.createSsl(fs.readFileSync(cert)) : grpc.credentials.createInsecure();
const client = new Echo(target, creds);
const deadline = () => ({ deadline: Date.now() + 10000 });
const text = (m) => Buffer.from(m.data).toString();

function unary() {
  return new Promise((resolve, reject) => {
    client.Unary({ data: Buffer.from('hi') }, deadline(), (err, r) => {
      if (err) return reject(err);
      if (text(r) !== 'hi') return reject(new Error(`answer ${text(r)}`));
      resolve();
    });
  });
}

function serverStream() {
  return new Promise((resolve, reject) => {
    const got = [];
    const call = client.ServerStream({ data: Buffer.from('x'), count: 3 }, deadline());
    call.on('data', (m) => got.push(text(m)));
    call.on('error', reject);
    call.on('end', () => (got.join(',') === 'x,x,x' ? resolve() : reject(new Error(`got ${got}`))));
  });
}

function clientStream() {
  return new Promise((resolve, reject) => {
    const call = client.ClientStream(deadline(), (err, r) => {
      if (err) return reject(err);
      if (r.count !== 4) return reject(new Error(`count ${r.count}`));
      resolve();
    });
    for (let i = 0; i < 4; i++) call.write({ data: Buffer.from('a') });
    call.end();
  });
}

function bidi() {
  return new Promise((resolve, reject) => {
    const want = ['one', 'two', 'three'];
    const got = [];
    const call = client.Bidi(deadline());
    call.on('data', (m) => {
      got.push(text(m));
      if (got.length < want.length) call.write({ data: Buffer.from(want[got.length]) });
      else call.end();
    });
    call.on('error', reject);
    call.on('end', () => (got.join(',') === want.join(',') ? resolve() : reject(new Error(`got ${got}`))));
    call.write({ data: Buffer.from(want[0]) });
  });
}

(async () => {
  const failed = [];
  for (const [name, fn] of [['unary', unary], ['server stream', serverStream], ['client stream', clientStream], ['bidi', bidi]]) {
    try {
      await fn();
      console.log(`ok ${name}`);
    } catch (e) {
      failed.push(`${name}: ${e.message}`);
    }
  }
  client.close();
  if (failed.length) {
    console.error(failed.join('\n'));
    process.exit(1);
  }
})();
