import * as fs from 'node:fs';

/** Which graph of the local model runs: `model.onnx` (fp32) or `model.int8.onnx`. */
export type EmbedderPrecision = 'fp32' | 'int8';
export type EmbedderPrecisionSetting = EmbedderPrecision | 'auto';

/**
 * CPU flags of integer dot-product instructions that onnxruntime's int8 GEMMs use (x86 VNNI or AMX,
 * Arm dot product). Without them the u8s8 kernels fall back to 16-bit intermediate sums, which can
 * saturate and are slower than fp32 (measured: docs/benchmarks/embedder.md).
 */
const INT8_DOT_PRODUCT_FLAGS = ['avx512_vnni', 'avx_vnni', 'amx_int8', 'asimddp'];

/** True when /proc/cpuinfo (or the given text) lists an integer dot-product instruction set. */
export function cpuHasInt8DotProduct(cpuinfo?: string): boolean {
  let text = cpuinfo;
  if (text === undefined) {
    try {
      text = fs.readFileSync('/proc/cpuinfo', 'utf8');
    } catch {
      return false; // not Linux: stay on fp32
    }
  }
  const flags = new Set(
    text
      .split('\n')
      .filter((l) => /^(flags|Features)\s*:/.test(l))
      .flatMap((l) =>
        l
          .slice(l.indexOf(':') + 1)
          .trim()
          .split(/\s+/),
      ),
  );
  return INT8_DOT_PRODUCT_FLAGS.some((f) => flags.has(f));
}

/** `auto`: int8 where the CPU has integer dot products and the model has the int8 graph, else fp32. */
export function resolvePrecision(
  setting: EmbedderPrecisionSetting,
  hasInt8Graph: boolean,
  cpuinfo?: string,
): EmbedderPrecision {
  if (setting !== 'auto') return setting;
  return hasInt8Graph && cpuHasInt8DotProduct(cpuinfo) ? 'int8' : 'fp32';
}
