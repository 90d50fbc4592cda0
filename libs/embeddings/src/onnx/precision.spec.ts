import { cpuHasInt8DotProduct, resolvePrecision } from './precision';

const x86 = (flags: string) =>
  `processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse sse2 avx avx2 ${flags}\nbugs\t\t: sysret_ss_attrs\n\n` +
  `processor\t: 1\nflags\t\t: fpu sse sse2 avx avx2 ${flags}\n`;

describe('embedder precision: int8 only where the CPU has integer dot products', () => {
  it('reads the dot-product flags of x86 (VNNI, AVX-VNNI, AMX) and Arm (asimddp) cpuinfo', () => {
    expect(cpuHasInt8DotProduct(x86('avx512f avx512_vnni avx512_bf16'))).toBe(true);
    expect(cpuHasInt8DotProduct(x86('avx_vnni'))).toBe(true);
    expect(cpuHasInt8DotProduct(x86('amx_tile amx_int8'))).toBe(true);
    expect(cpuHasInt8DotProduct('processor\t: 0\nFeatures\t: fp asimd evtstrm aes asimddp sha512\n')).toBe(
      true,
    );
    // AVX-512 without VNNI: u8s8 kernels without dot products are slower than fp32
    expect(cpuHasInt8DotProduct(x86('avx512f avx512bw avx512vl'))).toBe(false);
    expect(cpuHasInt8DotProduct('processor\t: 0\nFeatures\t: fp asimd evtstrm aes\n')).toBe(false);
    // a flag name inside another line is not a CPU flag
    expect(cpuHasInt8DotProduct('model name\t: avx512_vnni marketing name\nflags\t\t: sse2\n')).toBe(false);
    expect(cpuHasInt8DotProduct('')).toBe(false);
  });

  it('auto picks int8 only with the flag and the int8 graph installed; explicit settings win', () => {
    const vnni = x86('avx512_vnni');
    const plain = x86('avx2');
    expect(resolvePrecision('auto', true, vnni)).toBe('int8');
    expect(resolvePrecision('auto', false, vnni)).toBe('fp32');
    expect(resolvePrecision('auto', true, plain)).toBe('fp32');
    expect(resolvePrecision('fp32', true, vnni)).toBe('fp32');
    expect(resolvePrecision('int8', false, plain)).toBe('int8');
  });
});
