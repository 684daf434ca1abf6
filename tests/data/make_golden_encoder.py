#!/usr/bin/python3
"""Writes golden_encoder.json: a 2-layer post-LN encoder and a cross-attention block computed by PyTorch.

Independent reference for tests/core/test_golden.cpp. Needs Debian's python3-torch (run with /usr/bin/python3);
the test suite reads only the committed JSON. PyTorch stores nn.Linear weights as (out, in) and computes
x @ W.T; the file holds the paper's orientation (in, out), split per head, converted here.
"""
import json

import torch
import torch.nn.functional as F

torch.manual_seed(7)
B, T, E, H, D_FF, LAYERS, T_Q = 2, 5, 8, 2, 16, 2, 4
D_K = E // H
lengths = [5, 3]  # the second sentence is padded with two <pad> tokens
causal = True


def paper_heads(w_out_in):
    """(E_out, E_in) PyTorch weight -> per-head (E_in, d_k) matrices of the paper's Q = X W."""
    w = w_out_in.t().contiguous()
    return [w[:, j * D_K:(j + 1) * D_K].tolist() for j in range(H)]


def attention_weights_dict(in_proj, out_proj):
    return {
        "W_Q": paper_heads(in_proj[:E]),
        "W_K": paper_heads(in_proj[E:2 * E]),
        "W_V": paper_heads(in_proj[2 * E:]),
        "W_O": out_proj.t().tolist(),
    }


def mha(query, key, in_proj, out_proj, key_padding, attn_mask):
    out, weights = F.multi_head_attention_forward(
        query.transpose(0, 1), key.transpose(0, 1), key.transpose(0, 1), E, H, in_proj, None, None, None,
        False, 0.0, out_proj, None, training=False, key_padding_mask=key_padding, need_weights=True,
        attn_mask=attn_mask, average_attn_weights=False)
    return out.transpose(0, 1), weights


X = torch.randn(B, T, E)
key_padding = torch.tensor([[t >= n for t in range(T)] for n in lengths])
causal_mask = torch.triu(torch.full((T, T), float("-inf")), diagonal=1) if causal else None

golden = {"config": {"B": B, "T": T, "d_model": E, "h": H, "d_ff": D_FF, "layers": LAYERS, "causal": causal,
                     "T_q": T_Q},
          "lengths": lengths, "X": X.tolist(), "layers": []}
x = X
with torch.no_grad():
    for layer in range(LAYERS):
        in_proj = torch.randn(3 * E, E) * 0.4
        out_proj = torch.randn(E, E) * 0.4
        w1, b1 = torch.randn(D_FF, E) * 0.3, torch.randn(D_FF) * 0.1
        w2, b2 = torch.randn(E, D_FF) * 0.3, torch.randn(E) * 0.1
        g1, be1 = 1 + 0.1 * torch.randn(E), 0.1 * torch.randn(E)
        g2, be2 = 1 + 0.1 * torch.randn(E), 0.1 * torch.randn(E)
        attn_out, weights = mha(x, x, in_proj, out_proj, key_padding, causal_mask)
        norm1 = F.layer_norm(x + attn_out, (E,), g1, be1, 1e-5)
        ffn = F.linear(F.relu(F.linear(norm1, w1, b1)), w2, b2)
        norm2 = F.layer_norm(norm1 + ffn, (E,), g2, be2, 1e-5)
        entry = attention_weights_dict(in_proj, out_proj)
        entry.update({"W_1": w1.t().tolist(), "b_1": b1.tolist(), "W_2": w2.t().tolist(), "b_2": b2.tolist(),
                      "gamma_1": g1.tolist(), "beta_1": be1.tolist(), "gamma_2": g2.tolist(),
                      "beta_2": be2.tolist(),
                      "expected": {"weights": weights.tolist(), "mha": attn_out.tolist(),
                                   "norm1": norm1.tolist(), "ffn": ffn.tolist(), "norm2": norm2.tolist()}})
        golden["layers"].append(entry)
        x = norm2

    X_q = torch.randn(B, T_Q, E)
    in_proj = torch.randn(3 * E, E) * 0.4
    out_proj = torch.randn(E, E) * 0.4
    cross_out, cross_weights = mha(X_q, x, in_proj, out_proj, key_padding, None)
    cross = attention_weights_dict(in_proj, out_proj)
    cross.update({"X_q": X_q.tolist(), "expected": {"weights": cross_weights.tolist(), "mha": cross_out.tolist()}})
    golden["cross"] = cross

with open("golden_encoder.json", "w") as f:
    json.dump(golden, f, separators=(",", ":"))
print("wrote golden_encoder.json")
