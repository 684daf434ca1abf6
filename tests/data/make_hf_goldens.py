#!/usr/bin/python3
"""Writes tests/data/hf_tiny/: two tiny Hugging Face model folders and a float64 PyTorch forward of each.

What it writes, under tests/data/hf_tiny/:
  - gpt2/: config.json, model.safetensors (F32, GPT2LMHeadModel's names with "transformer.", the causal-mask
    buffers attn.bias and attn.masked_bias, no lm_head.weight: tied to wte), vocab.json + merges.txt (a
    byte-level BPE of GPT-2's 256 byte characters, a few merges and "<|endoftext|>") and
    tokenizer_config.json. 2 layers, 4 heads, n_embd 32, n_inner null (128), 16 positions, gelu_new, ε 1e-5.
  - bert/: config.json, model.safetensors (F32, BertForMaskedLM's names with "bert.", the masked-LM head
    without cls.predictions.decoder.weight: tied to word_embeddings), vocab.txt and tokenizer_config.json.
    2 layers, 4 heads, hidden 32, intermediate 64, 16 positions, 2 token types, gelu (erf), ε 1e-12.
  - gpt2_golden.json, bert_golden.json: one fixed text, its token ids, and every intermediate of the
    forward pass on it, named as core/train/transformer.h names them (LayerActsT, ActivationsT; B = 1, so
    rows are positions): "embed" (and BERT's "embed_norm"), per layer X ln1 Q K V scores scaled masked
    weights concat mha residual ln2 ffn_pre ffn_hidden ffn residual2, then GPT-2's lnf, or BERT's mlm_pre
    mlm_hidden mlm_norm, and logits and probs. scores/scaled/masked/weights are (h·T) x T, head j in rows
    [j T, (j+1) T); "masked" holds null where a key is masked (-inf). "sensitivity" records, for each
    mistake listed below, the largest change it makes at the first intermediate it touches and at the
    logits (over their largest magnitude), beside what float32 rounding alone moves there (the same forward
    run in float32): the script refuses goldens a mistake would move by less than 30 times that rounding.

The forward is written here in plain torch float64 ops from the architectures' definitions (transformers is
not used), with the engine's meanings: GPT-2 is pre-LN (ln1 = LN1(X), residual = X + mha,
ln2 = LN2(residual), residual2 = residual + ffn), BERT post-LN (attention reads X, residual = X + mha,
ln1 = LN1(residual), FFN reads ln1, residual2 = ln1 + ffn, ln2 = LN2(residual2) is the next layer's X).
Each layer is then run again as torch.nn.TransformerEncoderLayer (norm_first for GPT-2) holding the same
weights, and its output and per-head attention weights must agree with the hand-written forward to 1e-12.

Why every weight is k/256 · 2^e (integer 0 < |k| <= 255): such a number has at most 8 significant bits and
its exponent stays within F16's range, so F32, F16 and BF16 hold it exactly; the tests convert the F32 file
to F16 and BF16 (tests/io/safetensors_writer.h) and compare against this one golden.

Why the scales: each mistake the engine could make must move an intermediate far beyond float32 rounding.
  - The embeddings the text uses (wte/word_embeddings rows of its ids, every position and token-type row)
    are tiny (|v| < 2^-10 ~ 1e-3), so the first LayerNorm's input variance is ~1e-6: ε 1e-12 instead of
    1e-5 changes GPT-2's layer-0 ln1 by 2.7 times its largest value, 1e-5 instead of 1e-12 BERT's
    embed_norm by 0.7. The other vocabulary rows are larger (|v| < 2^-2), so the tied unembedding gives
    logits of order 1.
  - Feed-forward weights put ffn_pre at magnitude 1-5, where the tanh and erf GELUs differ by up to 4.7e-4
    (at |x| ~ 2.7): the wrong one moves ffn_hidden by ~1e-4 of its largest value, some 400 times float32's
    rounding there.
  - Every matrix is random, so no square projection is symmetric (one transposed the wrong way moves its
    output by about its own size); biases and LayerNorm shifts are non-zero, gains are in [0.5, 1.5].
  - Query and key weights make the scaled scores of order 1 to 10, so the softmax is neither flat nor
    one-hot.

The token ids come from a small encoder here (ASCII text only) and are checked against the C++ tokenizers
by tests/io/hf_golden_test.cpp. Needs Debian's python3-torch and python3-numpy; the test suite reads only
the committed files:
  /usr/bin/python3 tests/data/make_hf_goldens.py
"""
import json
import math
import os
import re
import struct

# One thread, so the run is the same on any machine (OpenBLAS reads these at import).
for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = "1"

import numpy as np  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hf_tiny")
SEED = 22
LAYERS, HEADS, D, POSITIONS = 2, 4, 32, 16
D_K = D // HEADS
GPT2_D_FF, BERT_D_FF, TYPES = 4 * D, 64, 2
GPT2_EPS, BERT_EPS = 1e-5, 1e-12
GPT2_TEXT = "The cat sat on the mat."  # 7 tokens, six of them merges
BERT_TEXT = "The cat [MASK] playing."  # [CLS] the cat [MASK] play ##ing . [SEP]: 8 tokens

# [SECTION] Tokenizers


def byte_chars():
    """GPT-2's byte → character table: the printable bytes "!".."~", "¡".."¬", "®".."ÿ" stand for
    themselves; the other 68 bytes take U+0100, U+0101, ... in byte order (so the space is "Ġ")."""
    printable = [b for b in range(256) if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF]
    table, extra = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(0x100 + extra)
            extra += 1
    # GPT-2's vocab.json numbers the printable bytes first, then the others, each group in byte order.
    order = printable + [b for b in range(256) if b not in printable]
    return table, order


# Merges by rank. Each part is a byte character or an earlier merge's result.
GPT2_MERGES = [
    "Ġ t", "h e", "a t", "Ġt he", "Ġ c", "Ġc at", "Ġ s", "Ġs at", "o n", "Ġ on", "Ġ m", "Ġm at", "T he",
    "i n", "Ġ a", "r e", "e r", "Ġ w", "a s", "Ġw as", "Ġ d", "o g", "Ġd og", "Ġ in", "i s", "Ġ is", "o r",
    "e n", "Ġ b", "Ġ h", "Ġh at", "Ġb at", "in g", "Ġ f", "Ġf or", "a n", "Ġa n", "Ġan d",
]


def gpt2_vocab():
    table, order = byte_chars()
    vocab = {table[b]: i for i, b in enumerate(order)}
    for merge in GPT2_MERGES:
        a, b = merge.split(" ")
        assert a in vocab and b in vocab, merge
        assert a + b not in vocab, merge
        vocab[a + b] = len(vocab)
    vocab["<|endoftext|>"] = len(vocab)
    return vocab


def bpe_encode(text, vocab):
    """GPT-2's byte-level BPE for ASCII text: the pre-tokenizer's pattern with ASCII letter and digit classes
    (the same split as \\p{L} and \\p{N} on ASCII), then the lowest-ranked merge first, word by word."""
    assert text.isascii()
    table, _ = byte_chars()
    ranks = {tuple(m.split(" ")): r for r, m in enumerate(GPT2_MERGES)}
    pattern = r"'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+"
    tokens = []
    for word in re.findall(pattern, text):
        parts = [table[b] for b in word.encode("utf-8")]
        while len(parts) > 1:
            pairs = [(ranks.get((parts[i], parts[i + 1]), math.inf), i) for i in range(len(parts) - 1)]
            rank, at = min(pairs)
            if rank == math.inf:
                break
            parts[at:at + 2] = [parts[at] + parts[at + 1]]
        tokens += parts
    return [vocab[t] for t in tokens], tokens


BERT_VOCAB = [
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ",", "!", "?", "'", "-",
    "a", "an", "and", "the", "cat", "cats", "dog", "dogs", "bird", "sat", "sit", "on", "in", "under", "mat",
    "is", "was", "are", "play", "run", "walk", "jump", "sleep", "eat", "house", "tree", "garden", "it",
    "he", "she", "they", "animal", "street", "tired", "big", "small", "red", "quick", "brown", "fox",
    "##ing", "##s", "##ed", "##er", "##ly", "##y", "##a", "##t", "##e",
]


def wordpiece_encode(text, vocab):
    """BERT's WordPiece for ASCII text: [MASK] kept whole, lower case, split on spaces and punctuation,
    longest piece first with "##" continuations, [CLS] first and [SEP] last."""
    assert text.isascii()
    ids = {t: i for i, t in enumerate(vocab)}
    tokens = ["[CLS]"]
    for chunk in re.split(r"(\[MASK\])", text):
        if chunk == "[MASK]":
            tokens.append(chunk)
            continue
        for word in re.findall(r"[a-z0-9]+|[^\sa-z0-9]", chunk.lower()):
            pieces, start = [], 0
            while start < len(word):
                end = len(word)
                while end > start and (("##" if start else "") + word[start:end]) not in ids:
                    end -= 1
                if end == start:
                    pieces = ["[UNK]"]
                    break
                pieces.append(("##" if start else "") + word[start:end])
                start = end
            tokens += pieces
    tokens.append("[SEP]")
    return [ids[t] for t in tokens], tokens


# [SECTION] Weights


class Weights:
    """Random numbers k/256 · 2^e, 0 < |k| <= 255, exactly representable in F32, F16 and BF16."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def uniform(self, shape, e):
        """|v| < 2^e, roughly uniform (standard deviation about 0.58 · 2^e)."""
        k = self.rng.integers(1, 256, size=shape) * self.rng.choice([-1, 1], size=shape)
        return np.ldexp(k / 256.0, e).astype(np.float32)

    def gain(self, shape):
        """LayerNorm gains in [0.5, 1.5]: k/128 with k in [64, 192]."""
        return np.ldexp(self.rng.integers(64, 193, size=shape) / 256.0, 1).astype(np.float32)


def check_exact(tensors):
    for name, a in tensors.items():
        a64 = a.astype(np.float64)
        assert np.array_equal(a.astype(np.float16).astype(np.float64), a64), name + " not exact in F16"
        bits = a.view(np.uint32)
        if not name.endswith("masked_bias"):  # -1e4 is a mask constant, kept F32 by the tests
            assert not np.any(bits & 0xFFFF), name + " not exact in BF16"


def embedding(w, vocab_size, used_ids):
    """Vocabulary x D: the rows of used_ids tiny (the LayerNorm ε matters), the others of order 2^-2."""
    E = w.uniform((vocab_size, D), -2)
    E[sorted(set(used_ids))] = w.uniform((len(set(used_ids)), D), -10)
    return E


def gpt2_weights(vocab_size, ids):
    w, t = Weights(SEED), {}
    t["transformer.wte.weight"] = embedding(w, vocab_size, ids)
    t["transformer.wpe.weight"] = w.uniform((POSITIONS, D), -10)
    for i in range(LAYERS):
        p = f"transformer.h.{i}."
        t[p + "ln_1.weight"], t[p + "ln_1.bias"] = w.gain(D), w.uniform(D, -2)
        qkv = np.concatenate([w.uniform((D, D), -1), w.uniform((D, D), -1), w.uniform((D, D), -1)], axis=1)
        t[p + "attn.c_attn.weight"], t[p + "attn.c_attn.bias"] = qkv, w.uniform(3 * D, -2)
        t[p + "attn.c_proj.weight"], t[p + "attn.c_proj.bias"] = w.uniform((D, D), -2), w.uniform(D, -2)
        t[p + "ln_2.weight"], t[p + "ln_2.bias"] = w.gain(D), w.uniform(D, -2)
        t[p + "mlp.c_fc.weight"], t[p + "mlp.c_fc.bias"] = w.uniform((D, GPT2_D_FF), -1), w.uniform(
            GPT2_D_FF, -2)
        t[p + "mlp.c_proj.weight"], t[p + "mlp.c_proj.bias"] = w.uniform((GPT2_D_FF, D), -3), w.uniform(D, -2)
        # The causal-mask buffers GPT2LMHeadModel saves (not weights: the loader skips them).
        t[p + "attn.bias"] = np.tril(np.ones((POSITIONS, POSITIONS), np.float32)).reshape(
            1, 1, POSITIONS, POSITIONS)
        t[p + "attn.masked_bias"] = np.array(-1e4, np.float32)
    t["transformer.ln_f.weight"], t["transformer.ln_f.bias"] = w.gain(D), w.uniform(D, -2)
    check_exact(t)
    return t


def bert_weights(vocab_size, ids):
    w, t = Weights(SEED + 1), {}
    e = "bert.embeddings."
    t[e + "word_embeddings.weight"] = embedding(w, vocab_size, ids)
    t[e + "position_embeddings.weight"] = w.uniform((POSITIONS, D), -10)
    t[e + "token_type_embeddings.weight"] = w.uniform((TYPES, D), -10)
    t[e + "LayerNorm.weight"], t[e + "LayerNorm.bias"] = w.gain(D), w.uniform(D, -2)
    for i in range(LAYERS):
        p = f"bert.encoder.layer.{i}."
        # nn.Linear stores output x input.
        for name in ("query", "key", "value"):
            t[p + f"attention.self.{name}.weight"] = w.uniform((D, D), -1)
            t[p + f"attention.self.{name}.bias"] = w.uniform(D, -2)
        t[p + "attention.output.dense.weight"] = w.uniform((D, D), -2)
        t[p + "attention.output.dense.bias"] = w.uniform(D, -2)
        t[p + "attention.output.LayerNorm.weight"] = w.gain(D)
        t[p + "attention.output.LayerNorm.bias"] = w.uniform(D, -2)
        t[p + "intermediate.dense.weight"] = w.uniform((BERT_D_FF, D), -1)
        t[p + "intermediate.dense.bias"] = w.uniform(BERT_D_FF, -2)
        t[p + "output.dense.weight"] = w.uniform((D, BERT_D_FF), -2)
        t[p + "output.dense.bias"] = w.uniform(D, -2)
        t[p + "output.LayerNorm.weight"] = w.gain(D)
        t[p + "output.LayerNorm.bias"] = w.uniform(D, -2)
    c = "cls.predictions."
    t[c + "transform.dense.weight"], t[c + "transform.dense.bias"] = w.uniform((D, D), -1), w.uniform(D, -2)
    t[c + "transform.LayerNorm.weight"], t[c + "transform.LayerNorm.bias"] = w.gain(D), w.uniform(D, -2)
    t[c + "bias"] = w.uniform(vocab_size, -1)
    check_exact(t)
    return t


def write_safetensors(path, tensors):
    """The safetensors layout: 8-byte little-endian header length, a JSON header padded with spaces to a
    multiple of 8, then the tensors' little-endian bytes back to back, in name order."""
    header, data = {"__metadata__": {"format": "pt"}}, b""
    for name in sorted(tensors):
        raw = np.ascontiguousarray(tensors[name], dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def write_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2, ensure_ascii=False)
        f.write("\n")


# [SECTION] Forward (float64)


def layer_norm(x, gain, shift, eps):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)  # biased, as nn.LayerNorm
    return (x - mean) / torch.sqrt(var + eps) * gain + shift


def gelu(x, kind):
    if kind == "tanh":  # gelu_new: 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))
        return torch.nn.functional.gelu(x, approximate="tanh")
    return torch.nn.functional.gelu(x)  # 0.5 x (1 + erf(x / √2))


def attention(acts, x, Q, K, V, W_O, b_O, causal):
    """Fills Q K V scores scaled masked weights concat mha of one layer from its input x."""
    T = x.shape[0]
    acts["Q"], acts["K"], acts["V"] = Q, K, V
    scores, scaled, masked, weights, concat = [], [], [], [], torch.zeros_like(Q)
    future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    for j in range(HEADS):
        cols = slice(j * D_K, (j + 1) * D_K)
        s = Q[:, cols] @ K[:, cols].T  # Q_h K_hᵀ
        z = s / math.sqrt(D_K)
        m = z.masked_fill(future, -math.inf) if causal else z.clone()
        a = torch.softmax(m, dim=-1)
        concat[:, cols] = a @ V[:, cols]
        scores.append(s), scaled.append(z), masked.append(m), weights.append(a)
    acts["scores"], acts["scaled"] = torch.cat(scores), torch.cat(scaled)
    acts["masked"], acts["weights"], acts["concat"] = torch.cat(masked), torch.cat(weights), concat
    acts["mha"] = concat @ W_O + b_O


def gpt2_forward(t, ids, eps=GPT2_EPS, act="tanh", mistake=None, dtype=torch.float64):
    """GPT2LMHeadModel: pre-LN, causal, Conv1D weights used as stored (input x output), tied head.
    mistake "c_proj_transposed" / "c_attn_q_transposed" transposes that square matrix (as if nn.Linear)."""
    g = {k: torch.tensor(v, dtype=dtype) for k, v in t.items()}
    T = len(ids)
    out = {"embed": g["transformer.wte.weight"][ids] + g["transformer.wpe.weight"][:T], "layers": []}
    x = out["embed"]
    for i in range(LAYERS):
        p, acts = f"transformer.h.{i}.", {"X": x}
        acts["ln1"] = layer_norm(x, g[p + "ln_1.weight"], g[p + "ln_1.bias"], eps)
        W, b = g[p + "attn.c_attn.weight"].clone(), g[p + "attn.c_attn.bias"]
        if mistake == "c_attn_q_transposed":
            W[:, :D] = W[:, :D].T.clone()
        qkv = acts["ln1"] @ W + b  # [Q | K | V] side by side
        W_O = g[p + "attn.c_proj.weight"]
        if mistake == "c_proj_transposed":
            W_O = W_O.T
        attention(acts, x, qkv[:, :D], qkv[:, D:2 * D], qkv[:, 2 * D:], W_O, g[p + "attn.c_proj.bias"], True)
        acts["residual"] = x + acts["mha"]
        acts["ln2"] = layer_norm(acts["residual"], g[p + "ln_2.weight"], g[p + "ln_2.bias"], eps)
        acts["ffn_pre"] = acts["ln2"] @ g[p + "mlp.c_fc.weight"] + g[p + "mlp.c_fc.bias"]
        acts["ffn_hidden"] = gelu(acts["ffn_pre"], act)
        acts["ffn"] = acts["ffn_hidden"] @ g[p + "mlp.c_proj.weight"] + g[p + "mlp.c_proj.bias"]
        acts["residual2"] = acts["residual"] + acts["ffn"]
        x = acts["residual2"]
        out["layers"].append(acts)
    out["lnf"] = layer_norm(x, g["transformer.ln_f.weight"], g["transformer.ln_f.bias"], eps)
    out["logits"] = out["lnf"] @ g["transformer.wte.weight"].T
    out["probs"] = torch.softmax(out["logits"], dim=-1)
    return out


def bert_forward(t, ids, eps=BERT_EPS, act="erf", mistake=None, dtype=torch.float64):
    """BertForMaskedLM: post-LN, bidirectional, nn.Linear weights (output x input, so x Wᵀ), token type 0
    everywhere, tied decoder. mistake "<name>_untransposed" uses that square weight as stored."""
    g = {k: torch.tensor(v, dtype=dtype) for k, v in t.items()}

    def linear(x, name, square_name=None):
        W = g[name + ".weight"]
        return x @ (W if square_name is not None and mistake == square_name else W.T) + g[name + ".bias"]

    T = len(ids)
    e = "bert.embeddings."
    out = {"embed": g[e + "word_embeddings.weight"][ids] + g[e + "position_embeddings.weight"][:T] +
           g[e + "token_type_embeddings.weight"][[0] * T], "layers": []}
    out["embed_norm"] = layer_norm(out["embed"], g[e + "LayerNorm.weight"], g[e + "LayerNorm.bias"], eps)
    x = out["embed_norm"]
    for i in range(LAYERS):
        p, acts = f"bert.encoder.layer.{i}.", {"X": x}
        s = p + "attention.self."
        Q = linear(x, s + "query", "query_untransposed")
        K, V = linear(x, s + "key"), linear(x, s + "value")
        W_O = g[p + "attention.output.dense.weight"]
        W_O = W_O if mistake == "output_dense_untransposed" else W_O.T
        attention(acts, x, Q, K, V, W_O, g[p + "attention.output.dense.bias"], False)
        acts["residual"] = x + acts["mha"]
        acts["ln1"] = layer_norm(acts["residual"], g[p + "attention.output.LayerNorm.weight"],
                                 g[p + "attention.output.LayerNorm.bias"], eps)
        acts["ffn_pre"] = linear(acts["ln1"], p + "intermediate.dense")
        acts["ffn_hidden"] = gelu(acts["ffn_pre"], act)
        acts["ffn"] = linear(acts["ffn_hidden"], p + "output.dense")
        acts["residual2"] = acts["ln1"] + acts["ffn"]
        acts["ln2"] = layer_norm(acts["residual2"], g[p + "output.LayerNorm.weight"],
                                 g[p + "output.LayerNorm.bias"], eps)
        x = acts["ln2"]
        out["layers"].append(acts)
    c = "cls.predictions."
    out["mlm_pre"] = linear(x, c + "transform.dense", "transform_dense_untransposed")
    out["mlm_hidden"] = gelu(out["mlm_pre"], act)
    out["mlm_norm"] = layer_norm(out["mlm_hidden"], g[c + "transform.LayerNorm.weight"],
                                 g[c + "transform.LayerNorm.bias"], eps)
    out["logits"] = out["mlm_norm"] @ g[e + "word_embeddings.weight"].T + g[c + "bias"]
    out["probs"] = torch.softmax(out["logits"], dim=-1)
    return out


# [SECTION] Checks and output

LAYER_KEYS = ["X", "ln1", "Q", "K", "V", "scores", "scaled", "masked", "weights", "concat", "mha", "residual",
              "ln2", "ffn_pre", "ffn_hidden", "ffn", "residual2"]


def lookup(out, where):
    """out's matrix at "layers.0.ln1" or "logits"."""
    parts = where.split(".")
    return out["layers"][int(parts[1])][parts[2]] if parts[0] == "layers" else out[parts[0]]


def torch_nn_layer(in_proj, in_bias, out_proj, out_bias, norms, ffn, d_ff, act, eps, norm_first):
    """torch.nn.TransformerEncoderLayer holding one layer's weights (nn.Linear layout: output x input)."""
    f64 = {"dtype": torch.float64}
    gelu_fn = (lambda x: gelu(x, "tanh")) if act == "tanh" else torch.nn.functional.gelu
    layer = torch.nn.TransformerEncoderLayer(D, HEADS, d_ff, dropout=0.0, activation=gelu_fn,
                                             layer_norm_eps=eps, batch_first=True, norm_first=norm_first,
                                             **f64)
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(in_proj)
        layer.self_attn.in_proj_bias.copy_(in_bias)
        layer.self_attn.out_proj.weight.copy_(out_proj)
        layer.self_attn.out_proj.bias.copy_(out_bias)
        for norm, (gain, shift) in zip((layer.norm1, layer.norm2), norms):
            norm.weight.copy_(gain), norm.bias.copy_(shift)
        for linear, (W, b) in zip((layer.linear1, layer.linear2), ffn):
            linear.weight.copy_(W), linear.bias.copy_(b)
    return layer


def check_with_torch_nn(out, t, arch):
    """Runs each layer again as torch.nn.TransformerEncoderLayer (pre-LN for GPT-2, post-LN for BERT) and
    checks its output and its attention weights against the hand-written forward."""
    g = {k: torch.tensor(v, dtype=torch.float64) for k, v in t.items()}
    T = out["layers"][0]["X"].shape[0]
    causal = torch.triu(torch.full((T, T), -math.inf, dtype=torch.float64), diagonal=1)
    for i, acts in enumerate(out["layers"]):
        if arch == "gpt2":
            p = f"transformer.h.{i}."
            layer = torch_nn_layer(
                g[p + "attn.c_attn.weight"].T, g[p + "attn.c_attn.bias"], g[p + "attn.c_proj.weight"].T,
                g[p + "attn.c_proj.bias"],
                [(g[p + "ln_1.weight"], g[p + "ln_1.bias"]), (g[p + "ln_2.weight"], g[p + "ln_2.bias"])],
                [(g[p + "mlp.c_fc.weight"].T, g[p + "mlp.c_fc.bias"]),
                 (g[p + "mlp.c_proj.weight"].T, g[p + "mlp.c_proj.bias"])],
                GPT2_D_FF, "tanh", GPT2_EPS, True)
            mask, attn_in, result = causal, layer.norm1(acts["X"]), acts["residual2"]
        else:
            p = f"bert.encoder.layer.{i}."
            s = p + "attention.self."
            layer = torch_nn_layer(
                torch.cat([g[s + n + ".weight"] for n in ("query", "key", "value")]),
                torch.cat([g[s + n + ".bias"] for n in ("query", "key", "value")]),
                g[p + "attention.output.dense.weight"], g[p + "attention.output.dense.bias"],
                [(g[p + "attention.output.LayerNorm.weight"], g[p + "attention.output.LayerNorm.bias"]),
                 (g[p + "output.LayerNorm.weight"], g[p + "output.LayerNorm.bias"])],
                [(g[p + "intermediate.dense.weight"], g[p + "intermediate.dense.bias"]),
                 (g[p + "output.dense.weight"], g[p + "output.dense.bias"])],
                BERT_D_FF, "erf", BERT_EPS, False)
            mask, attn_in, result = None, acts["X"], acts["ln2"]
        with torch.no_grad():
            y = layer(acts["X"][None], src_mask=mask)[0]
            _, a = layer.self_attn(attn_in[None], attn_in[None], attn_in[None], attn_mask=mask,
                                   need_weights=True, average_attn_weights=False)
        assert torch.allclose(y, result, rtol=0, atol=1e-12), (arch, i, (y - result).abs().max())
        weights = a[0].reshape(HEADS * T, T)
        assert torch.allclose(weights, acts["weights"], rtol=0, atol=1e-12), (arch, i)


def relative_change(golden, out, place):
    """The largest change of out from golden at place, over golden's largest magnitude there (finite
    entries)."""
    a, b = lookup(golden, place), lookup(out, place).to(torch.float64)
    finite = torch.isfinite(a)
    return (a[finite] - b[finite]).abs().max().item() / a[finite].abs().max().item()


def sensitivity(golden, float32, variants):
    """Each mistake's largest change at the first intermediate it touches and at the logits, relative to
    their largest magnitude, beside the same forward run in float32 (what rounding alone moves). Refuses a
    mistake that moves either by less than 30 times float32's rounding, or the first by less than 5e-5."""
    found = {}
    for name, (where, out) in variants.items():
        report = {"at": where}
        for key, place in (("first", where), ("logits", "logits")):
            report[key + "_relative_change"] = float(f"{relative_change(golden, out, place):.3g}")
            report[key + "_float32_rounding"] = float(f"{relative_change(golden, float32, place):.3g}")
            assert report[key + "_relative_change"] > 30 * report[key + "_float32_rounding"], (name, report)
        assert report["first_relative_change"] > 5e-5, (name, report)
        found[name] = report
    return found


def rows(m):
    """A 2-D tensor as nested lists of floats (repr: the shortest text that reads back the same double),
    -inf as None (JSON null)."""
    return [[None if v == -math.inf else float(v) for v in row] for row in m.tolist()]


def golden_json(out, float32, text, ids, tokens, config, variants, extra_top):
    doc = {
        "about": "A float64 PyTorch forward of the tiny Hugging Face model in hf_tiny/ on one text, every "
                 "intermediate named as core/train/transformer.h names it; made by make_hf_goldens.py",
        "torch": torch.__version__,
        "config": config,
        "text": text,
        "tokens": tokens,
        "token_ids": ids,
        "embed": rows(out["embed"]),
    }
    if "embed_norm" in out:
        doc["token_type_ids"] = [0] * len(ids)
        doc["embed_norm"] = rows(out["embed_norm"])
    doc["layers"] = [{k: rows(acts[k]) for k in LAYER_KEYS} for acts in out["layers"]]
    for k in extra_top + ["logits", "probs"]:
        doc[k] = rows(out[k])
    doc["sensitivity"] = sensitivity(out, float32, variants)
    return doc


def make_gpt2():
    folder = os.path.join(OUT, "gpt2")
    os.makedirs(folder, exist_ok=True)
    vocab = gpt2_vocab()
    ids, tokens = bpe_encode(GPT2_TEXT, vocab)
    assert len(ids) == 7 and any(len(tok) > 1 for tok in tokens), tokens
    t = gpt2_weights(len(vocab), ids)
    write_json(os.path.join(folder, "config.json"), {
        "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
        "bos_token_id": vocab["<|endoftext|>"], "embd_pdrop": 0.1, "eos_token_id": vocab["<|endoftext|>"],
        "initializer_range": 0.02, "layer_norm_epsilon": GPT2_EPS, "model_type": "gpt2", "n_ctx": POSITIONS,
        "n_embd": D, "n_head": HEADS, "n_inner": None, "n_layer": LAYERS, "n_positions": POSITIONS,
        "reorder_and_upcast_attn": False, "resid_pdrop": 0.1, "scale_attn_by_inverse_layer_idx": False,
        "scale_attn_weights": True, "summary_activation": None, "summary_first_dropout": 0.1,
        "summary_proj_to_labels": True, "summary_type": "cls_index", "summary_use_proj": True,
        "torch_dtype": "float32", "use_cache": True, "vocab_size": len(vocab)})
    write_safetensors(os.path.join(folder, "model.safetensors"), t)
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, separators=(",", ":"))
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join(m + "\n" for m in GPT2_MERGES))
    write_json(os.path.join(folder, "tokenizer_config.json"), {"model_max_length": POSITIONS})

    out = gpt2_forward(t, ids)
    check_with_torch_nn(out, t, "gpt2")
    variants = {
        "layer_norm_eps_1e-12": ("layers.0.ln1", gpt2_forward(t, ids, eps=1e-12)),
        "gelu_erf": ("layers.0.ffn_hidden", gpt2_forward(t, ids, act="erf")),
        "attn_c_proj_transposed": ("layers.0.mha", gpt2_forward(t, ids, mistake="c_proj_transposed")),
        "attn_c_attn_q_transposed": ("layers.0.Q", gpt2_forward(t, ids, mistake="c_attn_q_transposed")),
    }
    config = {"model_type": "gpt2", "d_model": D, "n_heads": HEADS, "d_k": D_K, "n_layers": LAYERS,
              "d_ff": GPT2_D_FF, "n_positions": POSITIONS, "vocab_size": len(vocab),
              "layer_norm_eps": GPT2_EPS, "activation": "gelu_new", "norm": "pre", "causal": True}
    float32 = gpt2_forward(t, ids, dtype=torch.float32)
    return golden_json(out, float32, GPT2_TEXT, ids, tokens, config, variants, ["lnf"])


def make_bert():
    folder = os.path.join(OUT, "bert")
    os.makedirs(folder, exist_ok=True)
    ids, tokens = wordpiece_encode(BERT_TEXT, BERT_VOCAB)
    assert len(ids) == 8 and "[MASK]" in tokens and any(tok.startswith("##") for tok in tokens), tokens
    t = bert_weights(len(BERT_VOCAB), ids)
    write_json(os.path.join(folder, "config.json"), {
        "architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.1, "classifier_dropout": None,
        "gradient_checkpointing": False, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": D,
        "initializer_range": 0.02, "intermediate_size": BERT_D_FF, "layer_norm_eps": BERT_EPS,
        "max_position_embeddings": POSITIONS, "model_type": "bert", "num_attention_heads": HEADS,
        "num_hidden_layers": LAYERS, "pad_token_id": 0, "position_embedding_type": "absolute",
        "torch_dtype": "float32", "type_vocab_size": TYPES, "use_cache": True, "vocab_size": len(BERT_VOCAB)})
    write_safetensors(os.path.join(folder, "model.safetensors"), t)
    with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("".join(tok + "\n" for tok in BERT_VOCAB))
    write_json(os.path.join(folder, "tokenizer_config.json"), {"do_lower_case": True})

    out = bert_forward(t, ids)
    check_with_torch_nn(out, t, "bert")
    variants = {
        "layer_norm_eps_1e-5": ("embed_norm", bert_forward(t, ids, eps=1e-5)),
        "gelu_tanh": ("layers.0.ffn_hidden", bert_forward(t, ids, act="tanh")),
        "query_untransposed": ("layers.0.Q", bert_forward(t, ids, mistake="query_untransposed")),
        "attention_output_dense_untransposed":
            ("layers.0.mha", bert_forward(t, ids, mistake="output_dense_untransposed")),
        "transform_dense_untransposed":
            ("mlm_pre", bert_forward(t, ids, mistake="transform_dense_untransposed")),
    }
    config = {"model_type": "bert", "d_model": D, "n_heads": HEADS, "d_k": D_K, "n_layers": LAYERS,
              "d_ff": BERT_D_FF, "n_positions": POSITIONS, "type_vocab_size": TYPES,
              "vocab_size": len(BERT_VOCAB), "layer_norm_eps": BERT_EPS, "activation": "gelu", "norm": "post",
              "causal": False}
    float32 = bert_forward(t, ids, dtype=torch.float32)
    return golden_json(out, float32, BERT_TEXT, ids, tokens, config, variants,
                       ["mlm_pre", "mlm_hidden", "mlm_norm"])


def main():
    for name, doc in (("gpt2_golden.json", make_gpt2()), ("bert_golden.json", make_bert())):
        with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
            json.dump(doc, f, separators=(",", ":"), ensure_ascii=False)
            f.write("\n")
        print(name, json.dumps(doc["sensitivity"]))


if __name__ == "__main__":
    main()
