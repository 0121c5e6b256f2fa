"""``vllm/<model>``: vLLM's offline engine, in batches (``LLM.chat`` with ``SamplingParams(n=…)``).

vLLM is imported only when this backend is used (``pip install 'ramseygadgets[vllm]'`` on a GPU
machine).  The first round of every (problem, setting) is one request with ``n`` = the number
of runs still missing; later multiround turns are batched across conversations.  The offline
engine returns raw text, so reasoning stays inline (``<think>…</think>``) where the parser skips
it; only the text tool protocol is available (native tool calls need ``vllm serve``).
Engine options (``tensor_parallel_size``, ``max_model_len``...) come from ``--engine-arg``.
"""

from __future__ import annotations

from typing import Any

from ramseygadgets.harness.backends.base import BackendError, outgoing_messages
from ramseygadgets.harness.types import ChatRequest, Completion, Usage

__all__ = [
    "INSTALL_HINT",
    "CHAT_KWARGS",
    "import_vllm",
    "VLLMBackend",
]


INSTALL_HINT = "pip install 'ramseygadgets[vllm]' (needs a CUDA GPU)"
#: extra_body keys that go to ``LLM.chat`` instead of ``SamplingParams``.
CHAT_KWARGS = (
    "chat_template_kwargs",
    "chat_template",
    "add_generation_prompt",
    "continue_final_message",
)


def import_vllm() -> Any:
    try:
        import vllm
    except ImportError as exc:
        raise BackendError(
            f"the vllm/ backend needs vLLM, which is not installed here ({exc.name or 'vllm'} "
            f"missing); install it with: {INSTALL_HINT}, or serve the model with 'vllm serve' "
            f"and use --model openai/<model>"
        ) from None
    return vllm


class VLLMBackend:
    name = "vllm"

    def __init__(self, model: str, *, engine_args: dict[str, Any] | None = None):
        if not model:
            raise BackendError("vllm/ needs a model name or path, e.g. --model vllm/Qwen/Qwen3-8B")
        self.model = model
        self.engine_args = dict(engine_args or {})
        self.vllm = import_vllm()
        self.llm: Any = None

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "vllm-offline",
            "engine_args": self.engine_args,
            "vllm_version": getattr(self.vllm, "__version__", None),
        }

    def start_sync(self) -> None:
        if self.llm is None:
            try:
                self.llm = self.vllm.LLM(model=self.model, **self.engine_args)
            except TypeError as exc:
                raise BackendError(f"vLLM rejected an --engine-arg: {exc}") from None

    def sampling_params(self, request: ChatRequest) -> Any:
        s = request.sampling
        values: dict[str, Any] = {"n": request.n}
        for name in ("temperature", "top_p", "top_k", "min_p", "repetition_penalty", "max_tokens"):
            if getattr(s, name) is not None:
                values[name] = getattr(s, name)
        seed = s.seed_for(request.key.run)
        if seed is not None:
            values["seed"] = seed
        values.update({k: v for k, v in s.extra_body.items() if k not in CHAT_KWARGS})
        try:
            return self.vllm.SamplingParams(**values)
        except TypeError as exc:
            raise BackendError(
                f"vLLM SamplingParams rejected the sampling settings: {exc}"
            ) from None

    def complete_batch(self, requests: list[ChatRequest]) -> list[list[Completion]]:
        if not requests:
            return []
        first = requests[0]
        chat_kwargs = {k: v for k, v in first.sampling.extra_body.items() if k in CHAT_KWARGS}
        prefix = first.assistant_prefix
        if prefix:
            chat_kwargs.update(add_generation_prompt=False, continue_final_message=True)
        outputs = self.llm.chat(
            [outgoing_messages(r) for r in requests],
            sampling_params=[self.sampling_params(r) for r in requests],
            use_tqdm=False,
            **chat_kwargs,
        )
        results: list[list[Completion]] = []
        for request, output in zip(requests, outputs):
            prompt_tokens = len(getattr(output, "prompt_token_ids", None) or [])
            completions = []
            for choice in output.outputs:
                generated = len(getattr(choice, "token_ids", None) or [])
                text = (request.assistant_prefix or "") + (choice.text or "")
                completions.append(
                    Completion(
                        content=text,
                        finish_reason=choice.finish_reason,
                        usage=Usage(prompt_tokens, generated, None, prompt_tokens + generated),
                    )
                )
            results.append(completions)
        return results
