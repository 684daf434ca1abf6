#!/usr/bin/python3
"""Writes torch_train_golden.json: losses, logits and gradients of core/train's model computed by PyTorch.

The reference for tests/train/test_train_torch_golden.cpp. Each case is a tiny decoder-only transformer built
here in PyTorch with core/train's maths (transformer.h: pre- or post-LN, with or without the FFN, learned or
sinusoidal positions, causal or not, no attention biases, ReLU, separate unembedding), run in float64 by
autograd on one batch. The file holds, per case:
  - "model": an attnlab-model file (core/io/FORMAT.md) with the weights, loadable by load_model_file; its
    "training" object holds the AdamW settings of the optimizer check;
  - "batch": tokens, targets and the loss mask ([B][T] each);
  - "positions": P[0..T_max) as used (the sinusoids, which the model file leaves out);
  - "loss", "logits" [B][T][V], "gradients": ∂L/∂ every weight in the layout of "weights", and
    "attention_gradients" [layers][B][h][T][T]: ∂L/∂A_h for every key (the masked ones too);
  - "adamw_losses": the loss on the same batch before each of ADAM_STEPS steps of torch.optim.AdamW with
    torch.nn.utils.clip_grad_norm_, and after the last one; "adamw_grad_norms": the global gradient norm
    (before clipping) of each step.
Weights are float32 numbers (so the float engine loads them exactly); everything computed is float64.
Needs Debian's python3-torch and python3-numpy; the test suite reads only the committed JSON:
  /usr/bin/python3 tests/data/make_torch_train_golden.py
"""
import json
import math
import os

# One thread, so the run is the same on any machine (OpenBLAS reads these at import).
for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = "1"

import numpy as np  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
V, T_MAX, T, B, D, H, LAYERS, D_FF = 7, 6, 5, 2, 8, 2, 2, 12
D_K = D // H
EPS = 1e-5  # LayerNorm's (transformer.h kLayerNormEps)
ADAM_STEPS = 4
TRAINING = {  # the "training" object of the model file: AdamW's settings for the optimizer check
    "batch_size": B, "steps": ADAM_STEPS, "lr": 0.01, "beta1": 0.9, "beta2": 0.95, "eps": 1e-8,
    "weight_decay": 0.1, "grad_clip": 1.0, "schedule": "constant", "warmup_steps": 0, "total_steps": 0,
    "min_lr_ratio": 0.1, "data_seed": 1, "held_out_size": 1,
}
# name, norm, attention_only, positions, causal
CASES = [
    ("pre_ffn_learned_causal", "pre", False, "learned", True),
    ("post_ffn_learned_causal", "post", False, "learned", True),
    ("pre_attention_only_sinusoidal_causal", "pre", True, "sinusoidal", True),
    ("post_ffn_sinusoidal_bidirectional", "post", False, "sinusoidal", False),
]
# The tensors AdamW decays (core/train/model.cpp named_tensors): the matrices that multiply activations.
DECAYED = ("W_Q", "W_K", "W_V", "W_O", "W_1", "W_2", "W_U")


def f32(a):
    return np.asarray(a, dtype=np.float32)


def random_weights(rng, norm, attention_only, positions):
    """Float32 weights, N(0, 0.5²) (gains 1 + N(0, 0.3²)): far from the training init, so every
    non-linearity is exercised. Keys are core/train's tensor names (model.h)."""
    def normal(*shape, std=0.5, mean=0.0):
        return f32(mean + std * rng.standard_normal(shape))

    w = {"E": normal(V, D)}
    if positions == "learned":
        w["P"] = normal(T_MAX, D)
    for l in range(LAYERS):
        p = f"layers.{l}."
        w[p + "ln1_gamma"], w[p + "ln1_beta"] = normal(D, std=0.3, mean=1.0), normal(D, std=0.3)
        for name in ("W_Q", "W_K", "W_V"):
            w[p + name] = normal(D, H * D_K)
        w[p + "W_O"] = normal(H * D_K, D)
        if not attention_only:
            w[p + "ln2_gamma"], w[p + "ln2_beta"] = normal(D, std=0.3, mean=1.0), normal(D, std=0.3)
            w[p + "W_1"], w[p + "b_1"] = normal(D, D_FF), normal(D_FF, std=0.3)
            w[p + "W_2"], w[p + "b_2"] = normal(D_FF, D), normal(D, std=0.3)
    if norm == "pre":
        w["lnf_gamma"], w["lnf_beta"] = normal(D, std=0.3, mean=1.0), normal(D, std=0.3)
    w["W_U"], w["b_U"] = normal(D, V), normal(V, std=0.3)
    return w


def sinusoids():
    """core/embedding.cpp positional_encoding: computed in double, stored as float."""
    P = np.zeros((T_MAX, D))
    for c in range(0, D, 2):
        inv_freq = math.pow(10000.0, -c / D)
        for pos in range(T_MAX):
            P[pos, c] = math.sin(pos * inv_freq)
            if c + 1 < D:
                P[pos, c + 1] = math.cos(pos * inv_freq)
    return f32(P)


def layer_norm(x, gamma, beta):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)  # biased, as nn.LayerNorm
    return (x - mean) / torch.sqrt(var + EPS) * gamma + beta


def forward(w, P, tokens, targets, mask, norm, attention_only, causal, keep):
    """The model of core/train/transformer.h on (B, T) tokens. keep (a list or None) collects each layer's
    A_h, their gradients kept."""
    x = w["E"][tokens] + P[:T]
    allowed = torch.tril(torch.ones(T, T, dtype=torch.bool)) if causal else torch.ones(T, T, dtype=torch.bool)

    def mha(z, p):
        q = (z @ w[p + "W_Q"]).view(B, T, H, D_K).transpose(1, 2)  # (B, h, T, d_k)
        k = (z @ w[p + "W_K"]).view(B, T, H, D_K).transpose(1, 2)
        v = (z @ w[p + "W_V"]).view(B, T, H, D_K).transpose(1, 2)
        scaled = q @ k.transpose(-2, -1) / math.sqrt(D_K)
        A = torch.softmax(scaled.masked_fill(~allowed, float("-inf")), dim=-1)
        if keep is not None:
            A.retain_grad()
            keep.append(A)
        concat = (A @ v).transpose(1, 2).reshape(B, T, H * D_K)
        return concat @ w[p + "W_O"]

    def ffn(z, p):
        return torch.relu(z @ w[p + "W_1"] + w[p + "b_1"]) @ w[p + "W_2"] + w[p + "b_2"]

    for l in range(LAYERS):
        p = f"layers.{l}."
        if norm == "pre":  # A = X + MHA(LN1(X)), Y = A + FFN(LN2(A))
            x = x + mha(layer_norm(x, w[p + "ln1_gamma"], w[p + "ln1_beta"]), p)
            if not attention_only:
                x = x + ffn(layer_norm(x, w[p + "ln2_gamma"], w[p + "ln2_beta"]), p)
        else:  # A = LN1(X + MHA(X)), Y = LN2(A + FFN(A))
            x = layer_norm(x + mha(x, p), w[p + "ln1_gamma"], w[p + "ln1_beta"])
            if not attention_only:
                x = layer_norm(x + ffn(x, p), w[p + "ln2_gamma"], w[p + "ln2_beta"])
    if norm == "pre":
        x = layer_norm(x, w["lnf_gamma"], w["lnf_beta"])
    logits = x @ w["W_U"] + w["b_U"]
    losses = torch.nn.functional.cross_entropy(logits.reshape(B * T, V), targets.reshape(-1), reduction="none")
    m = mask.reshape(-1).to(torch.float64)
    return logits, (losses * m).sum() / m.sum()  # the mean over the counted positions


def heads(m):
    """(d_model, h·d_k) -> [h][d_model][d_k], the model file's layout of W_Q, W_K, W_V."""
    return [m[:, j * D_K:(j + 1) * D_K].tolist() for j in range(H)]


def weights_object(t, norm, attention_only, positions):
    """Tensors by core/train name -> the "weights" object of an attnlab-model file (FORMAT.md)."""
    def g(name):
        return t[name].tolist() if not isinstance(t[name], np.ndarray) else t[name].astype(np.float64).tolist()

    def heads_of(name):
        return heads(np.asarray(t[name], dtype=np.float64))

    out = {"embedding": g("E")}
    if positions == "learned":
        out["positions"] = g("P")
    out["layers"] = []
    for l in range(LAYERS):
        p = f"layers.{l}."
        layer = {"W_Q": heads_of(p + "W_Q"), "W_K": heads_of(p + "W_K"), "W_V": heads_of(p + "W_V"),
                 "W_O": g(p + "W_O"), "gamma_1": g(p + "ln1_gamma"), "beta_1": g(p + "ln1_beta")}
        if not attention_only:
            layer.update({"W_1": g(p + "W_1"), "b_1": g(p + "b_1"), "W_2": g(p + "W_2"), "b_2": g(p + "b_2"),
                          "gamma_2": g(p + "ln2_gamma"), "beta_2": g(p + "ln2_beta")})
        out["layers"].append(layer)
    if norm == "pre":
        out["ln_f"] = {"gamma": g("lnf_gamma"), "beta": g("lnf_beta")}
    out["W_U"], out["b_U"] = g("W_U"), g("b_U")
    return out


def make_case(index, name, norm, attention_only, positions, causal):
    rng = np.random.default_rng(1000 + index)
    weights = random_weights(rng, norm, attention_only, positions)
    P = weights["P"] if positions == "learned" else sinusoids()
    tokens = rng.integers(0, V, size=(B, T))
    targets = rng.integers(0, V, size=(B, T))
    mask = (rng.random((B, T)) < 0.7).astype(np.int64)
    mask[0, 0] = 1

    def leaves():
        return {k: torch.tensor(v.astype(np.float64), requires_grad=True) for k, v in weights.items()}

    tok, tgt, msk = torch.tensor(tokens), torch.tensor(targets), torch.tensor(mask)
    P64 = torch.tensor(P.astype(np.float64))

    def run(w, keep):
        return forward(w, w["P"] if positions == "learned" else P64, tok, tgt, msk, norm, attention_only,
                       causal, keep)

    # One forward and backward: loss, logits, every gradient, ∂L/∂A_h.
    w = leaves()
    keep = []
    logits, loss = run(w, keep)
    loss.backward()
    grads = {k: v.grad.numpy() for k, v in w.items()}
    attention_grads = [A.grad.tolist() for A in keep]  # [layers] of (B, h, T, T)

    # AdamW on the same batch, PyTorch's own optimizer and clipping, decay on the matrices only.
    w = leaves()
    decayed = [v for k, v in w.items() if k.split(".")[-1] in DECAYED]
    others = [v for k, v in w.items() if k.split(".")[-1] not in DECAYED]
    s = TRAINING
    opt = torch.optim.AdamW([{"params": decayed, "weight_decay": s["weight_decay"]},
                             {"params": others, "weight_decay": 0.0}],
                            lr=s["lr"], betas=(s["beta1"], s["beta2"]), eps=s["eps"])
    adamw_losses, adamw_norms = [], []
    for _ in range(ADAM_STEPS):
        opt.zero_grad()
        _, step_loss = run(w, None)
        adamw_losses.append(step_loss.item())
        step_loss.backward()
        adamw_norms.append(torch.nn.utils.clip_grad_norm_(list(w.values()), s["grad_clip"]).item())
        opt.step()
    with torch.no_grad():
        adamw_losses.append(run(w, None)[1].item())

    model = {
        "format": "attnlab-model", "version": 1, "task": "copy",
        "config": {"vocab_size": V, "T_max": T_MAX, "d_model": D, "heads": H, "layers": LAYERS, "d_ff": D_FF,
                   "attention_only": attention_only, "norm": norm, "positions": positions, "causal": causal,
                   "seed": 1},
        "vocabulary": [chr(ord("a") + i) for i in range(V)],
        "training": TRAINING, "step": 0, "history": [],
        "weights": weights_object(weights, norm, attention_only, positions),
    }
    return {
        "name": name, "model": model,
        "batch": {"tokens": tokens.tolist(), "targets": targets.tolist(), "loss_mask": mask.tolist()},
        "positions": P.astype(np.float64).tolist(),
        "loss": loss.item(), "logits": logits.tolist(),
        "gradients": weights_object(grads, norm, attention_only, positions),
        "attention_gradients": attention_grads,
        "adamw_losses": adamw_losses, "adamw_grad_norms": adamw_norms,
    }


def compact(value):
    """Floats to 12 significant digits (float32 weights need 9, so they stay exact): keeps the file small."""
    if isinstance(value, float):
        return float(f"{value:.12g}")
    if isinstance(value, list):
        return [compact(v) for v in value]
    if isinstance(value, dict):
        return {k: compact(v) for k, v in value.items()}
    return value


def main():
    doc = {
        "about": "core/train's model in PyTorch (float64 autograd, torch.optim.AdamW); made by "
                 "make_torch_train_golden.py",
        "torch": torch.__version__,
        "cases": [make_case(i, *case) for i, case in enumerate(CASES)],
    }
    with open(os.path.join(HERE, "torch_train_golden.json"), "w") as f:
        json.dump(compact(doc), f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
