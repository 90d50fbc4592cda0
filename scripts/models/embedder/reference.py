"""Reference sentence embeddings computed without ONNX: a float64 numpy forward pass of BERT straight
from model.safetensors, with token ids from the `tokenizers` library (the Rust implementation that
sentence-transformers uses), truncated to max_seq_length like sentence-transformers does.

It shares nothing with the ONNX path but the weights and tokenizer.json: no graph, no onnxruntime,
no JavaScript tokenizer, no padding (each sentence runs alone, so the ONNX graph's batch masking is
checked too). The test of the converter (test/models) compares the two.

usage: python reference.py MODEL_DIR < sentences.json > vectors.json
  stdin:  ["sentence", ...]
  stdout: {"vectors": [[...384 floats], ...], "tokens": [n, ...]}
"""
import json
import math
import sys

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

erf = np.vectorize(math.erf, otypes=[np.float64])


def layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def main(model_dir):
    cfg = json.load(open(f"{model_dir}/config.json"))
    max_len = json.load(open(f"{model_dir}/sentence_bert_config.json"))["max_seq_length"]
    W = {k.removeprefix("bert."): v.astype(np.float64) for k, v in load_file(f"{model_dir}/model.safetensors").items()}
    H, NH, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    D, eps = H // NH, cfg.get("layer_norm_eps", 1e-12)
    lin = lambda x, p: x @ W[f"{p}.weight"].T + W[f"{p}.bias"]
    ln = lambda x, p: layer_norm(x, W[f"{p}.weight"], W[f"{p}.bias"], eps)

    tok = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    tok.no_padding()
    tok.enable_truncation(max_len)

    vectors, tokens = [], []
    for sentence in json.load(sys.stdin):
        ids = np.array(tok.encode(sentence).ids)
        S = len(ids)
        x = W["embeddings.word_embeddings.weight"][ids] + W["embeddings.position_embeddings.weight"][:S] \
            + W["embeddings.token_type_embeddings.weight"][0]
        x = ln(x, "embeddings.LayerNorm")
        for i in range(L):
            p = f"encoder.layer.{i}"
            heads = lambda t: t.reshape(S, NH, D).transpose(1, 0, 2)
            q, k, v = (heads(lin(x, f"{p}.attention.self.{n}")) for n in ("query", "key", "value"))
            s = q @ k.transpose(0, 2, 1) / math.sqrt(D)
            a = np.exp(s - s.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            ctx = (a @ v).transpose(1, 0, 2).reshape(S, H)
            x = ln(lin(ctx, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm")
            t = lin(x, f"{p}.intermediate.dense")
            x = ln(lin(0.5 * t * (1 + erf(t / math.sqrt(2))), f"{p}.output.dense") + x, f"{p}.output.LayerNorm")
        pooled = x.mean(0)
        vectors.append((pooled / np.linalg.norm(pooled)).tolist())
        tokens.append(S)
    json.dump({"vectors": vectors, "tokens": tokens}, sys.stdout)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])
