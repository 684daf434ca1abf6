#!/usr/bin/python3
# Makes the PyTorch golden files for tests/io/torch_import_test.cpp: state dicts in PyTorch's own layout
# (x @ W.T + b) with an input X and PyTorch's outputs. Run with Debian's /usr/bin/python3 (python3-torch);
# the test suite itself only reads the committed JSON files.
#   /usr/bin/python3 tests/data/make_torch_fixtures.py
import json
import os

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
E, H, D_FF, T = 8, 2, 16, 5


def tolist(t):
    return t.detach().to(torch.float64).tolist()


def state_dict_json(module):
    return {name: tolist(value) for name, value in module.state_dict().items()}


def write(name, doc):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")


def randomize_layer(layer):
    # Biases and LayerNorm parameters away from their defaults, so a mix-up would show; the attention has no
    # biases in attnlab, so PyTorch's are zeroed.
    with torch.no_grad():
        layer.self_attn.in_proj_bias.zero_()
        layer.self_attn.out_proj.bias.zero_()
        for p in (layer.linear1.bias, layer.linear2.bias, layer.norm1.bias, layer.norm2.bias):
            p.uniform_(-0.5, 0.5)
        for p in (layer.norm1.weight, layer.norm2.weight):
            p.uniform_(0.5, 1.5)


def main():
    torch.manual_seed(7)
    X = torch.randn(1, T, E)

    # A bare nn.MultiheadAttention without biases. Training mode (dropout is 0) keeps torch 1.13 off its fused
    # inference path, which cannot run without biases.
    mha = nn.MultiheadAttention(E, H, bias=False, batch_first=True).train()
    with torch.no_grad():
        out, weights = mha(X, X, X, need_weights=True, average_attn_weights=False)
    write("torch_mha.json", {
        "about": "nn.MultiheadAttention(8, 2, bias=False); made by make_torch_fixtures.py",
        "d_model": E, "heads": H,
        "state_dict": state_dict_json(mha),
        "X": tolist(X[0]),
        "weights": tolist(weights[0]),  # (h, T, T)
        "mha": tolist(out[0]),          # (T, d_model)
    })

    # A post-LN encoder layer (ReLU, no dropout), attention biases zeroed.
    layer = nn.TransformerEncoderLayer(E, H, D_FF, dropout=0.0, batch_first=True).eval()
    randomize_layer(layer)
    with torch.no_grad():
        attn_out, attn_weights = layer.self_attn(X, X, X, need_weights=True, average_attn_weights=False)
        y = layer(X)
    write("torch_encoder_layer.json", {
        "about": "nn.TransformerEncoderLayer(8, 2, 16, dropout=0); made by make_torch_fixtures.py",
        "d_model": E, "heads": H, "d_ff": D_FF,
        "state_dict": state_dict_json(layer),
        "X": tolist(X[0]),
        "weights": tolist(attn_weights[0]),
        "mha": tolist(attn_out[0]),
        "norm2": tolist(y[0]),
    })

    # Two stacked layers: state dict keys "layers.<i>.".
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(E, H, D_FF, dropout=0.0, batch_first=True), 2,
                                    enable_nested_tensor=False).eval()
    for sub in encoder.layers:
        randomize_layer(sub)
    with torch.no_grad():
        y = encoder(X)
    write("torch_encoder_2_layers.json", {
        "about": "nn.TransformerEncoder of 2 nn.TransformerEncoderLayer(8, 2, 16, dropout=0)",
        "d_model": E, "heads": H, "d_ff": D_FF, "layers": 2,
        "state_dict": state_dict_json(encoder),
        "X": tolist(X[0]),
        "norm2": tolist(y[0]),
    })


if __name__ == "__main__":
    main()
