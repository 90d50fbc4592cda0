import { configureLanceRuntime, lanceDefaultCpuThreads, MIN_LANCE_CPU_THREADS } from './lance-runtime';

describe('configureLanceRuntime', () => {
  it('gives small hosts more than the one compute thread lance would pick (the FTS builder deadlocks on one)', () => {
    for (const cpus of [1, 2, 3]) {
      const env: NodeJS.ProcessEnv = {};
      expect(lanceDefaultCpuThreads(env, cpus)).toBe(1);
      expect(configureLanceRuntime(env, cpus)).toEqual({ threads: MIN_LANCE_CPU_THREADS, source: 'docqa' });
      expect(env.LANCE_CPU_THREADS).toBe(String(MIN_LANCE_CPU_THREADS));
    }
  });

  it("keeps lance's own sizing on large hosts", () => {
    const env: NodeJS.ProcessEnv = {};
    expect(configureLanceRuntime(env, 32)).toEqual({ threads: 30, source: 'docqa' });
    expect(env.LANCE_CPU_THREADS).toBe('30');
  });

  it('follows LANCE_IO_CORE_RESERVATION like lance does', () => {
    const env: NodeJS.ProcessEnv = { LANCE_IO_CORE_RESERVATION: '8' };
    expect(configureLanceRuntime(env, 16)).toEqual({ threads: 8, source: 'docqa' });
  });

  it("keeps an operator's explicit LANCE_CPU_THREADS", () => {
    const env: NodeJS.ProcessEnv = { LANCE_CPU_THREADS: '1' };
    expect(configureLanceRuntime(env, 2)).toEqual({ threads: 1, source: 'environment' });
    expect(env.LANCE_CPU_THREADS).toBe('1');
  });
});
