import * as fs from 'node:fs';
import * as net from 'node:net';
const { freePort } = require('../infra/util');

/* Ports handed to servers the tests start later (npm start, the engines): taken from the kernel's
 * ephemeral range, one was once given to an outgoing connection first and npm start's bind failed. */
describe('freePort', () => {
  it('hands out distinct ports below the ephemeral range that a server can bind on every address', async () => {
    const [ephemeralLow] = fs
      .readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    const ports: number[] = [];
    for (let i = 0; i < 50; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(50);
    for (const p of ports) expect(p).toBeLessThan(ephemeralLow);
    const srv = net.createServer();
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen({ port: ports[0], host: '0.0.0.0' }, resolve);
    });
    await new Promise((r) => srv.close(r));
  });
});
