"""A GPT-2 style language model (token and position embeddings gathered by
integer ids, pre-norm causal self-attention, GELU MLP, tied output
projection) saved by sot.save from int64 token ids of dynamic length to
logits, and run by plain onnxruntime without sot: it matches eager within
float32 tolerance at every length."""

import numpy as np
import pytest

import sot
from difftest import run_plain_onnxruntime
from ort_tolerance import assert_ort_close

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

VOCAB, CTX, WIDTH, HEADS, LAYERS = 50, 16, 32, 4, 2


def layer_norm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + np.float32(1e-5)) * g + b


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.float32(0.7978845608) * (x + np.float32(0.044715) * x ** 3)))


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


class Block:
    def __init__(self, rng):
        w = lambda *s: (rng.standard_normal(s) * 0.1).astype(np.float32)  # noqa: E731
        self.ln1_g, self.ln1_b = np.ones(WIDTH, np.float32), np.zeros(WIDTH, np.float32)
        self.ln2_g, self.ln2_b = np.ones(WIDTH, np.float32), np.zeros(WIDTH, np.float32)
        self.qkv, self.qkv_b = w(WIDTH, 3 * WIDTH), w(3 * WIDTH)
        self.proj, self.proj_b = w(WIDTH, WIDTH), w(WIDTH)
        self.fc, self.fc_b = w(WIDTH, 4 * WIDTH), w(4 * WIDTH)
        self.out, self.out_b = w(4 * WIDTH, WIDTH), w(WIDTH)

    def __call__(self, x, mask):
        t = x.shape[0]
        h = layer_norm(x, self.ln1_g, self.ln1_b) @ self.qkv + self.qkv_b
        q, k, v = np.split(h, 3, axis=-1)
        q = q.reshape(t, HEADS, -1).transpose(1, 0, 2)
        k = k.reshape(t, HEADS, -1).transpose(1, 0, 2)
        v = v.reshape(t, HEADS, -1).transpose(1, 0, 2)
        att = q @ k.transpose(0, 2, 1) / np.float32(np.sqrt(WIDTH // HEADS))
        att = softmax(att + mask)
        y = (att @ v).transpose(1, 0, 2).reshape(t, WIDTH)
        x = x + y @ self.proj + self.proj_b
        return x + gelu(layer_norm(x, self.ln2_g, self.ln2_b) @ self.fc + self.fc_b) @ self.out + self.out_b


class GPT:
    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        self.wte = (rng.standard_normal((VOCAB, WIDTH)) * 0.1).astype(np.float32)
        self.wpe = (rng.standard_normal((CTX, WIDTH)) * 0.1).astype(np.float32)
        self.blocks = [Block(rng) for _ in range(LAYERS)]
        self.lnf_g, self.lnf_b = np.ones(WIDTH, np.float32), np.zeros(WIDTH, np.float32)

    def __call__(self, ids):
        t = ids.shape[0]
        x = self.wte[ids] + self.wpe[np.arange(t)]
        mask = np.triu(np.full((t, t), -1e9, np.float32), 1)
        for block in self.blocks:
            x = block(x, mask)
        return layer_norm(x, self.lnf_g, self.lnf_b) @ self.wte.T


@pytest.fixture(scope="module")
def gpt_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("gpt") / "gpt.onnx"
    return sot.save(GPT(), path, input_spec=[sot.InputSpec([None], "int64", "ids")])


def ids_of(t, seed=0):
    return np.random.default_rng(seed).integers(0, VOCAB, t).astype(np.int64)


def test_gpt_saved_as_plain_onnx_gathers_token_ids(gpt_file):
    model = onnx.load(gpt_file)
    onnx.checker.check_model(model, full_check=True)
    assert "Gather" in {n.op_type for n in model.graph.node}
    (inp,) = model.graph.input
    assert inp.type.tensor_type.elem_type == onnx.TensorProto.INT64
    assert inp.type.tensor_type.shape.dim[0].dim_param


@pytest.mark.parametrize("length", [1, 2, 5, CTX])
def test_gpt_loaded_matches_eager_at_every_length(gpt_file, length):
    ids = ids_of(length, seed=length)
    logits = sot.load(gpt_file)(ids)
    want = GPT()(ids)
    assert logits.dtype == np.float32 and logits.shape == (length, VOCAB)
    assert_ort_close(logits, want)


def test_plain_onnxruntime_without_sot_matches_eager(gpt_file, tmp_path):
    ids = ids_of(7, seed=3)
    assert_ort_close(run_plain_onnxruntime(gpt_file, "ids", ids, tmp_path), GPT()(ids))


def test_gpt_on_the_onnxruntime_backend_and_token_ids_out_of_range():
    model = GPT()
    static = sot.to_static(model, backend="onnxruntime")
    for t in (3, 6):
        assert_ort_close(static(ids_of(t, seed=t)), model(ids_of(t, seed=t)))
    bad = np.array([1, VOCAB], np.int64)
    with pytest.raises(IndexError) as eager:
        model(bad)
    with pytest.raises(IndexError) as traced:
        static(bad)
    assert str(traced.value) == str(eager.value)
