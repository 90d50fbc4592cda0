"""Builds an ONNX graph of a BERT-family sentence embedder straight from model.safetensors + config.json.

Needs numpy, onnx and safetensors only (no torch: its CPU+CUDA wheel set is ~2.8 GB). The graph takes
input_ids, attention_mask and token_type_ids (int64 [batch, seq]) and returns
  last_hidden_state   float32 [batch, seq, hidden]
  sentence_embedding  float32 [batch, hidden]: masked mean pooling + L2 normalisation, the
                      sentence-transformers recipe of all-MiniLM-L6-v2 (modules.json: Transformer,
                      Pooling(mean), Normalize).
The math is exact BERT: post-LayerNorm encoder layers, exact (erf) GELU, additive attention mask.
Output is deterministic: the same inputs and tool versions give the same bytes (the installer pins
its sha256).

usage: python bert2onnx.py MODEL_DIR OUT.onnx
"""
import json
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper, numpy_helper
from safetensors.numpy import load_file


class GraphBuilder:
    def __init__(self):
        self.nodes, self.initializers, self.consts = [], [], {}

    def init(self, name, array):
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def const(self, name, value, dtype=np.int64):
        # one initializer per constant: ONNX requires unique initializer names
        if name not in self.consts:
            self.consts[name] = self.init(name, np.array(value, dtype=dtype))
        return self.consts[name]

    def node(self, op, inputs, output=None, **attrs):
        out = output or f"{op.lower()}_{len(self.nodes)}"
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def multi(self, op, inputs, count, **attrs):
        outs = [f"{op.lower()}_{len(self.nodes)}_{i}" for i in range(count)]
        self.nodes.append(helper.make_node(op, inputs, outs, **attrs))
        return outs


def quantize_columns(w):
    """Symmetric per-output-column int8 weights ([in, out]) and their float32 scales."""
    scale = np.abs(w).max(axis=0) / 127.0
    scale = np.where(scale == 0, 1.0, scale).astype(np.float32)
    q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
    return q, scale


def build(model_dir, int8=False):
    cfg = json.load(open(f"{model_dir}/config.json"))
    if cfg.get("hidden_act", "gelu") != "gelu":
        raise SystemExit(f"unsupported hidden_act {cfg.get('hidden_act')!r} (only exact gelu)")
    if cfg.get("position_embedding_type", "absolute") != "absolute":
        raise SystemExit("only absolute position embeddings are supported")
    weights = {k.removeprefix("bert."): v for k, v in load_file(f"{model_dir}/model.safetensors").items()}
    hidden, heads, layers = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    eps = float(cfg.get("layer_norm_eps", 1e-12))
    g = GraphBuilder()
    w = lambda name: g.init(name, weights[name])

    def linear(x, prefix, bias=True):
        # torch Linear stores [out, in]; MatMul wants [in, out]
        if not int8:
            wt = g.init(f"{prefix}.weight_t", weights[f"{prefix}.weight"].T)
            mm = g.node("MatMul", [x, wt])
            return g.node("Add", [mm, w(f"{prefix}.bias")]) if bias else mm
        # int8: activations quantized per tensor at run time (uint8, asymmetric), weights per
        # output column (int8, symmetric); onnxruntime fuses this into its integer GEMM
        q, scale = quantize_columns(weights[f"{prefix}.weight"].T.astype(np.float32))
        xq, xs, xz = g.multi("DynamicQuantizeLinear", [x], 3)
        acc = g.node("MatMulInteger", [xq, g.init(f"{prefix}.weight_q", q), xz])
        scales = g.node("Mul", [xs, g.init(f"{prefix}.weight_scale", scale)])
        mm = g.node("Mul", [g.node("Cast", [acc], to=TP.FLOAT), scales])
        return g.node("Add", [mm, w(f"{prefix}.bias")]) if bias else mm

    def layer_norm(x, prefix):
        return g.node("LayerNormalization", [x, w(f"{prefix}.weight"), w(f"{prefix}.bias")], axis=-1, epsilon=eps)

    ids, mask, types = "input_ids", "attention_mask", "token_type_ids"
    seq_len = g.node("Gather", [g.node("Shape", [ids]), g.const("c_one", 1)])
    positions = g.node("Unsqueeze", [g.node("Range", [g.const("c_zero", 0), seq_len, g.const("c_one", 1)]), g.const("c_axes0", [0])])
    x = g.node("Add", [
        g.node("Add", [
            g.node("Gather", [w("embeddings.word_embeddings.weight"), ids]),
            g.node("Gather", [w("embeddings.position_embeddings.weight"), positions]),
        ]),
        g.node("Gather", [w("embeddings.token_type_embeddings.weight"), types]),
    ])
    x = layer_norm(x, "embeddings.LayerNorm")

    mask_f = g.node("Cast", [mask], to=TP.FLOAT)
    # the original BERT value for padded keys: -10000 added to their scores
    mask_i32 = g.node("Cast", [mask], to=TP.INT32)

    for i in range(layers):
        p = f"encoder.layer.{i}"
        q, k, v = (f"{p}.attention.self.{n}" for n in ("query", "key", "value"))
        if int8:
            # onnxruntime's quantized attention (com.microsoft.QAttention, CPU kernel): one integer
            # GEMM for Q, K and V together ([hidden, 3 x hidden] weights, per-column scales), then
            # softmax(QK^T / sqrt(head_dim) + mask) V per head, context [B, S, hidden] out; a 0 in
            # the mask adds -10000 to that key's scores (the original BERT value). The columns and
            # their scales are those of the three separate Linear layers, so it gives the same
            # floats as the three GEMMs and MultiHeadAttention below, about 3-6 % sooner
            # (docs/benchmarks/embedder.md).
            wq, scale = quantize_columns(
                np.concatenate([weights[f"{n}.weight"] for n in (q, k, v)], axis=0).T.astype(np.float32))
            bias = g.init(f"{p}.attention.self.qkv.bias", np.concatenate([weights[f"{n}.bias"] for n in (q, k, v)]))
            xq, xs, xz = g.multi("DynamicQuantizeLinear", [x], 3)
            context = g.node("QAttention", [
                xq, g.init(f"{p}.attention.self.qkv.weight_q", wq), bias, xs,
                g.init(f"{p}.attention.self.qkv.weight_scale", scale), mask_i32, xz,
            ], domain="com.microsoft", num_heads=heads)
        else:
            # onnxruntime's fused attention (com.microsoft.MultiHeadAttention, CPU kernel): Q, K, V
            # [B, S, hidden] in, context [B, S, hidden] out, softmax(QK^T / sqrt(head_dim) + bias) V
            # per head; the key padding mask adds mask_filter_value where it is 0. It gives the same
            # floats as the plain ops (Reshape/Transpose/MatMul/Add/Softmax) and saves their
            # transposes and the [B, heads, S, S] mask add (docs/benchmarks/embedder.md). The fp32
            # graph keeps the separate Q, K, V GEMMs: onnxruntime's fp32 Attention op sums them in
            # another order (differences of 1e-7), and fp32 is not the default where int8 runs.
            context = g.node("MultiHeadAttention", [
                linear(x, q), linear(x, k), linear(x, v), "", mask_i32,
            ], domain="com.microsoft", num_heads=heads, mask_filter_value=-10000.0)
        x = layer_norm(g.node("Add", [linear(context, f"{p}.attention.output.dense"), x]), f"{p}.attention.output.LayerNorm")
        inner = linear(x, f"{p}.intermediate.dense")
        # exact GELU: 0.5 * t * (1 + erf(t / sqrt(2)))
        gelu = g.node("Mul", [
            g.node("Mul", [inner, g.const("c_half", 0.5, np.float32)]),
            g.node("Add", [
                g.node("Erf", [g.node("Div", [inner, g.const("c_sqrt2", np.sqrt(2.0), np.float32)])]),
                g.const("c_onef", 1.0, np.float32),
            ]),
        ])
        x = layer_norm(g.node("Add", [linear(gelu, f"{p}.output.dense"), x]), f"{p}.output.LayerNorm")

    hidden_state = g.node("Identity", [x], "last_hidden_state")
    mask3 = g.node("Unsqueeze", [mask_f, g.const("c_axes2", [2])])
    summed = g.node("ReduceSum", [g.node("Mul", [hidden_state, mask3]), g.const("c_axes1", [1])], keepdims=0)
    counts = g.node("Max", [g.node("ReduceSum", [mask3, g.const("c_axes1", [1])], keepdims=0), g.const("c_tiny", 1e-9, np.float32)])
    pooled = g.node("Div", [summed, counts])
    norm = g.node("Max", [g.node("ReduceL2", [pooled], axes=[1], keepdims=1), g.const("c_tiny_norm", 1e-12, np.float32)])
    g.node("Div", [pooled, norm], "sentence_embedding")

    io = lambda name, t, dims: helper.make_tensor_value_info(name, t, dims)
    graph = helper.make_graph(
        g.nodes,
        "sentence_embedder",
        [io(ids, TP.INT64, ["batch", "seq"]), io(mask, TP.INT64, ["batch", "seq"]), io(types, TP.INT64, ["batch", "seq"])],
        [io("last_hidden_state", TP.FLOAT, ["batch", "seq", hidden]), io("sentence_embedding", TP.FLOAT, ["batch", hidden])],
        g.initializers,
    )
    # opset 17 has LayerNormalization; IR 8 is read by every onnxruntime since 1.11; com.microsoft 1
    # is onnxruntime's contrib domain (MultiHeadAttention and QAttention, in every CPU build since 1.13)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
        producer_name="docqa-bert2onnx",
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--int8"]
    if len(args) != 2:
        raise SystemExit(__doc__)
    model = build(args[0], int8="--int8" in sys.argv)
    sys.argv[2:3] = [args[1]]
    onnx.save(model, sys.argv[2])
    print(f"wrote {sys.argv[2]}: {len(model.graph.node)} nodes, {len(model.graph.initializer)} initializers")
