"""Local LLMs on the CPU through litellm (model ids ``local/<name>``), with llama.cpp.

Weights come from PyPI packages: a registry entry lists the files (inside installed
distributions, located without importing their code) whose concatenation is the GGUF file, and
its sha256. One file is used in place; several are assembled once into
``~/.cache/cost-of-pass/models/<sha256>.gguf``. A hash mismatch is an error. Chat models get their
GGUF chat template (``create_chat_completion``); a base model without one gets a completion-style
prompt. Token counts are the runtime's own.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from importlib import metadata
from pathlib import Path

from helpers.core.errors import CostOfPassError
from helpers.core.models import LocalWeights, WeightPart
from helpers.core.paths import user_cache

CACHE = Path(os.environ.get("COP_MODEL_CACHE") or user_cache("models"))
BASE_PROMPT_SUFFIX = "\n\nSolution:"
BASE_STOPS = ["Please solve the following question", "INPUT:"]  # the base model repeating the prompt


def _locate(part: WeightPart) -> Path:
    try:
        dist = metadata.distribution(part.dist)
    except metadata.PackageNotFoundError:
        raise CostOfPassError(f"weights package '{part.dist}' is not installed; run `make setup-local`") from None
    path = Path(str(dist.locate_file(part.file)))
    if not path.is_file():
        raise CostOfPassError(f"weights file {part.file} is missing from package '{part.dist}'")
    return path


def sha256_of(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for p in paths:
        with p.open("rb") as fh:
            while block := fh.read(1 << 20):
                h.update(block)
    return h.hexdigest()


_VERIFIED: dict[tuple, Path] = {}


def weights_path(w: LocalWeights) -> Path:
    """The verified GGUF file of a local model (assembled into the cache when split)."""
    parts = [_locate(p) for p in w.parts]
    key = (w.sha256, *((str(p), p.stat().st_size, p.stat().st_mtime) for p in parts))
    if key in _VERIFIED:
        return _VERIFIED[key]
    if len(parts) == 1:
        path = parts[0]
    else:
        path = CACHE / f"{w.sha256}.gguf"
        if not path.is_file() or sha256_of([path]) != w.sha256:
            CACHE.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".part{os.getpid()}")
            with tmp.open("wb") as out:
                for p in parts:
                    with p.open("rb") as fh:
                        while block := fh.read(1 << 20):
                            out.write(block)
            tmp.replace(path)
    got = sha256_of([path])
    if got != w.sha256:
        raise CostOfPassError(f"weights {path.name}: sha256 {got[:16]}… does not match the pinned {w.sha256[:16]}…")
    _VERIFIED[key] = path
    return path


_LLAMAS: dict[Path, object] = {}
_LOCK = threading.Lock()


def threads() -> int:
    """llama.cpp's threads, for generation and prompts alike: ``COP_LOCAL_THREADS``, else every core. Where other work
    shares the cores (the test suite's two workers), 1: llama.cpp's threads wait for each other by spinning, and one
    that is not scheduled makes the others spin."""
    value = os.environ.get("COP_LOCAL_THREADS", "").strip()
    if value and not (value.isdigit() and int(value) > 0):
        raise CostOfPassError(f"COP_LOCAL_THREADS={value!r}: expected a whole number of threads, at least 1")
    return int(value) if value else os.cpu_count() or 2


def load_llama(path: Path, n_ctx: int):
    """One llama.cpp model per file per process, on ``threads()`` threads."""
    try:
        from llama_cpp import Llama
    except ImportError:
        raise CostOfPassError("llama-cpp-python is not installed; run `make setup-local`") from None
    if path not in _LLAMAS:
        n = threads()
        _LLAMAS[path] = Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n, n_threads_batch=n, verbose=False)
    return _LLAMAS[path]


def completion_prompt(messages: list[dict[str, str]]) -> str:
    """A base model's prompt: the user's text, then ``Solution:``."""
    return "\n\n".join(m["content"] for m in messages if m.get("content")) + BASE_PROMPT_SUFFIX


def generate(w: LocalWeights, messages: list[dict[str, str]], *, temperature: float = 0.7, top_p: float = 1.0,
             max_tokens: int = 256, seed: int = 0) -> dict:
    """One generation: text, finish reason and the runtime's token counts."""
    llm = load_llama(weights_path(w), w.n_ctx)
    with _LOCK:  # a llama.cpp context serves one request at a time
        if w.chat:
            out = llm.create_chat_completion(messages=messages, temperature=temperature, top_p=top_p,
                                             max_tokens=max_tokens, seed=seed)
            text = out["choices"][0]["message"]["content"] or ""
        else:
            out = llm.create_completion(completion_prompt(messages), temperature=temperature, top_p=top_p,
                                        max_tokens=max_tokens, seed=seed, stop=BASE_STOPS)
            text = out["choices"][0]["text"]
    usage = out["usage"]
    return {"text": text, "finish_reason": out["choices"][0].get("finish_reason") or "stop",
            "prompt_tokens": int(usage["prompt_tokens"]), "completion_tokens": int(usage["completion_tokens"])}


def call_seed(*parts) -> int:
    """A sampling seed for one call from (seed, model, task, problem, method, run, call)."""
    return int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest()[:4], "big") & 0x7FFFFFFF


# ---- litellm custom provider --------------------------------------------------------------------
def _provider():
    from litellm import CustomLLM

    from helpers.collect.backends.provider import call_metadata, model_response

    class LocalLLM(CustomLLM):
        """litellm handler for ``local/<name>``: the call's metadata carries the weights spec."""

        def completion(self, model, messages, *args, **kwargs):
            meta = call_metadata(kwargs, "local", "local")
            opts = kwargs.get("optional_params") or {}
            started = time.perf_counter()
            seed = call_seed(*(meta[k] for k in ("seed", "model", "task", "problem_id", "method", "run", "call")))
            out = generate(LocalWeights.model_validate(meta["local"]), messages,
                           temperature=opts.get("temperature", 0.7), top_p=opts.get("top_p", 1.0),
                           max_tokens=opts.get("max_tokens") or 256, seed=seed)
            return model_response(model, out["text"], out["prompt_tokens"], out["completion_tokens"], started,
                                  out["finish_reason"])

    return LocalLLM()


def register() -> None:
    """Make ``local/<name>`` callable through ``litellm.completion`` (idempotent)."""
    from helpers.collect.backends.provider import register_provider

    register_provider("local", _provider)
