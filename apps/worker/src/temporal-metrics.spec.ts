import * as net from 'node:net';
import { Runtime } from '@temporalio/worker';
import { metricsSources, type AppConfig } from '@docqa/common';
import { installTemporalRuntime } from './temporal-metrics';

const cfg = (enabled: boolean) => ({ metrics: { enabled } }) as AppConfig;

function listen(port = 0): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });
}
const portOf = (srv: net.Server) => (srv.address() as net.AddressInfo).port;
const sourcePort = () => Number(new URL(metricsSources().get('temporal-sdk')!).port);
const close = (srv: net.Server) => new Promise((r) => srv.close(r));

describe('installTemporalRuntime', () => {
  afterEach(async () => {
    await Runtime._instance?.shutdown();
  });

  it('installs once while a runtime is live, and serves Core metrics on the registered port', async () => {
    expect(await installTemporalRuntime(cfg(true), {})).toBe(true);
    expect(await installTemporalRuntime(cfg(true), {})).toBe(false);
    const res = await fetch(metricsSources().get('temporal-sdk')!);
    expect(res.status).toBe(200);
  });

  it('re-installs on a fresh port after Core shut its runtime down, though the old port is taken', async () => {
    await installTemporalRuntime(cfg(true), {});
    const first = sourcePort();
    await Runtime._instance!.shutdown();
    // Core releases its listener asynchronously; take the old port as soon as it is free.
    let squatter: net.Server | undefined;
    for (let i = 0; i < 50 && !squatter; i++)
      squatter = await listen(first).catch(
        () => new Promise<undefined>((r) => setTimeout(() => r(undefined), 20)),
      );
    expect(squatter).toBeDefined();
    try {
      expect(await installTemporalRuntime(cfg(true), {})).toBe(true);
      expect(sourcePort()).not.toBe(first);
      expect((await fetch(metricsSources().get('temporal-sdk')!)).status).toBe(200);
    } finally {
      await close(squatter!);
    }
  });

  it('picks another port when Core finds the picked one taken', async () => {
    const held = await listen();
    const spare = await listen();
    const sparePort = portOf(spare);
    await close(spare);
    const picks = [portOf(held), sparePort];
    try {
      expect(await installTemporalRuntime(cfg(true), {}, async () => picks.shift()!)).toBe(true);
      expect(sourcePort()).toBe(sparePort);
      expect(picks).toHaveLength(0);
    } finally {
      await close(held);
    }
  });

  it("gives up with Core's error when every pick is taken", async () => {
    const held = await listen();
    try {
      await expect(installTemporalRuntime(cfg(true), {}, async () => portOf(held))).rejects.toThrow(
        /address already in use/i,
      );
      expect(Runtime._instance).toBeUndefined();
    } finally {
      await close(held);
    }
  });

  it('installs without an exporter when metrics are off', async () => {
    expect(await installTemporalRuntime(cfg(false), {})).toBe(true);
    expect(Runtime._instance).toBeDefined();
  });
});
