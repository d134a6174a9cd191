/** The baseline: a bare node:http server answering a fixed JSON body of a similar size to a record. */
import http from 'node:http';

const body = JSON.stringify({ id: 'abcde-fghij', metadata: { title: 'x'.repeat(1500) }, links: {} });
const port = Number(process.argv[2] ?? 3901);
http
  .createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  })
  .listen(port, '127.0.0.1', () => console.log(`listening on ${port}`));
