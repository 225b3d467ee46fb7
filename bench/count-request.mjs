// The floor for `svc accounts count`: the same count request with node:http
// alone, as a hand-written script would send it (POST {"count":true} to the
// family with the bearer token), printing the same JSON. bench/startup.mjs
// times it beside svc.
//
//   SVC_URL=http://127.0.0.1:8642/demo SVC_TOKEN=… node bench/count-request.mjs
import { request } from 'node:http';

const url = new URL(`${process.env.SVC_URL}/api/v1/accounts`);
const body = JSON.stringify({ count: true });
const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${process.env.SVC_TOKEN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
  const parts = [];
  res.on('data', (chunk) => parts.push(chunk));
  res.on('end', () => {
    if (res.statusCode !== 200) {
      process.stderr.write(`count-request: ${res.statusCode} ${Buffer.concat(parts)}\n`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write(`${JSON.stringify({ count: JSON.parse(Buffer.concat(parts).toString()).count }, null, 2)}\n`);
  });
});
req.end(body);
