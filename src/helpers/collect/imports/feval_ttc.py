"""FEval-TTC's recorded chain-of-thought responses (``api_responses.zip``; format: ``../shared/formats/feval_ttc.md``).

Every dataset of the set (tasks ``feval_<d>``, ``core.tasks.feval_ttc``) is read for every imported model the zip
records on it: ``responses[i]`` answers question i, its k-th CoT is run k. Costs, mapped faithfully: FEval-TTC
bills the few-shot prompt once per question however many CoTs were sampled (n samples per request), so the
request's tokens are split over its CoTs, whole tokens by largest remainder (their sum is the request's, and an
attempt's share is request / num_cots); each CoT's completion tokens are its own. The token counts are FEval-TTC's
word-count approximation, round(1.365 x words), not a tokenizer's, and the records say so. A CoT that finished
``run_cancelled``, ``run_expired`` or ``run_failed`` is a failed call (never graded); ``max_tokens`` is a
truncated reply (finish reason ``length``). The source's label is whether the authors' extracted answer equals
the dataset's answer.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Iterator

from helpers.collect.imports.common import Imported, source_error, token_count
from helpers.core.models import ModelSpec
from helpers.core.params import Params
from helpers.core.tasks.feval_ttc import DATASETS, read_member, target_of, task_name

SOURCE = "FEval-TTC recorded responses (Rumiantsev et al., 2025; api_responses.zip; ODbL)"
TOKENS = ("the source's estimate: round(1.365 x words) (FEval-TTC), not a tokenizer's count; "
          "prompt: the request's tokens split over its CoTs")
FAILED = {"run_cancelled", "run_expired", "run_failed"}
FINISH = {"stop": "stop", "max_tokens": "length", "content_filter": "content_filter"}


def split_evenly(total: int, parts: int) -> list[int]:
    """``total`` whole tokens over ``parts`` shares differing by at most one, summing to ``total`` (largest
    remainder)."""
    base, extra = divmod(total, parts)
    return [base + (1 if k < extra else 0) for k in range(parts)]


def whole(value: Any, where: str) -> int:
    """A token count of FEval-TTC's (rounded: its estimates may be fractional), checked as ``common.token_count``."""
    try:
        number = float(value)
        return token_count(round(number) if math.isfinite(number) else number)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {exc}") from None


def read(params: Params, path: Path, models: dict[str, ModelSpec]) -> Iterator[Imported]:
    names = {task_name(d): d for d in DATASETS}
    for task in params.tasks:
        if task not in names:
            raise source_error(path, "-", f"task {task} is not a FEval-TTC dataset (tasks: {', '.join(sorted(names))})")
        dataset = names[task]
        problems = DATASETS[dataset]
        golds = [target_of(item["answer"], problems[1]) for item in read_member(path, f"dataset_{dataset}.txt")["data"]]
        recorded = read_member(path, f"dataset_{dataset}_models.txt").get("llms") or []
        for name in (n for n in recorded if n in models):
            member = f"LLM_{name}_dataset_{dataset}.txt"
            llm = read_member(path, member)
            config = llm.get("config") or {}
            sampling = {k: config[k] for k in ("temperature", "max_tokens") if k in config}
            responses = llm.get("responses")
            if not isinstance(responses, list) or len(responses) != len(golds):
                raise source_error(path, member, f"expected {len(golds)} responses (one per question), got "
                                   f"{len(responses) if isinstance(responses, list) else 'none'}")
            for i, resp in enumerate(responses):
                where = f"{member} response {i}"
                try:
                    cots = resp["cots"]
                    request = whole(resp["request"]["token_cost"], where)
                    shares = split_evenly(request, max(len(cots), 1))
                    for k, cot in enumerate(cots):
                        meta = cot.get("metadata") or {}
                        reason = meta.get("finish_reason", "stop")
                        if reason not in FINISH and reason not in FAILED:
                            raise ValueError(f"unknown finish_reason {reason!r}")
                        answer = cot.get("answer")
                        label = None if reason in FAILED else (answer is not None
                                                               and target_of(answer, problems[1]) == golds[i])
                        yield Imported(task, f"feval-{dataset}-{i}", models[name].name, k,
                                       None if reason in FAILED else str(cot.get("raw_text") or ""), shares[k],
                                       whole(meta.get("token_cost", 0), where), TOKENS, SOURCE, label,
                                       finish_reason=FINISH.get(reason, reason),
                                       failure=f"recorded as {reason} in the source" if reason in FAILED else None,
                                       sampling=sampling, row=f"{where} cot {k}")
                except (KeyError, TypeError, ValueError, AttributeError) as err:
                    raise source_error(path, where, f"malformed ({type(err).__name__}: {err})") from None
