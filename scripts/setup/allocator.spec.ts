const { DEFAULT_MALLOC_CONF, JEMALLOC_PATHS, SUPERVISED, planAllocator } = require('./allocator');

const LIB = JEMALLOC_PATHS[0] as string;
const installed = (p: string) => p === LIB;
const absent = () => false;

describe('planAllocator', () => {
  it('jemalloc installed: runs the product as a child with jemalloc preloaded and its purging settings', () => {
    const plan = planAllocator({ PATH: '/bin', LD_PRELOAD: '/opt/other.so' }, installed);
    expect(plan.allocator).toBe('jemalloc');
    expect(plan.env).toMatchObject({
      PATH: '/bin',
      LD_PRELOAD: `${LIB}:/opt/other.so`,
      MALLOC_CONF: DEFAULT_MALLOC_CONF,
      [SUPERVISED]: '1',
    });
  });

  it("keeps an operator's own MALLOC_CONF", () => {
    expect(planAllocator({ MALLOC_CONF: 'narenas:2' }, installed).env.MALLOC_CONF).toBe('narenas:2');
  });

  it('without the library: the system malloc in this process, with what to install', () => {
    const plan = planAllocator({}, absent);
    expect(plan).toEqual({ allocator: 'system', outcome: expect.stringContaining('install libjemalloc2') });
    expect(plan.env).toBeUndefined();
  });

  it('does not preload twice when LD_PRELOAD already has jemalloc', () => {
    const plan = planAllocator({ LD_PRELOAD: LIB }, installed);
    expect(plan).toEqual({ allocator: 'jemalloc', outcome: 'jemalloc (already in LD_PRELOAD)' });
  });

  it('ignores the removed MEMORY_ALLOCATOR setting: jemalloc where installed, else the system malloc', () => {
    expect(planAllocator({ MEMORY_ALLOCATOR: 'system' }, installed).allocator).toBe('jemalloc');
    expect(planAllocator({ MEMORY_ALLOCATOR: 'jemalloc' }, absent).allocator).toBe('system');
  });
});
