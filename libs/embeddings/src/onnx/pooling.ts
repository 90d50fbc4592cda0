/**
 * CLS pooling of a graph that outputs `last_hidden_state` [B, L, D] (bge): each text's vector is its
 * first token's ([CLS]) hidden state, L2-normalised, as BAAI's sentence-transformers config does.
 * Self-contained (no imports, no closures): the inference thread runs its source text.
 */
export function clsPool(hidden: Float32Array, batch: number, length: number, dims: number): Float32Array {
  const out = new Float32Array(batch * dims);
  for (let b = 0; b < batch; b++) {
    const at = b * length * dims;
    let sum = 0;
    for (let d = 0; d < dims; d++) sum += hidden[at + d] * hidden[at + d];
    const norm = Math.max(Math.sqrt(sum), 1e-12);
    for (let d = 0; d < dims; d++) out[b * dims + d] = hidden[at + d] / norm;
  }
  return out;
}
