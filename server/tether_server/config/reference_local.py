"""The "Local models" section of docs/configuration.md (generated with the reference table)."""

LOCAL_MODELS = """
## Local models (`wire_api = "chat"`)

Servers that run models on your own hardware (Ollama, LM Studio, vLLM, llama.cpp's `llama-server`)
and proxies in front of anything (LiteLLM, OpenRouter) speak the Chat Completions API. A provider
with `wire_api = "chat"` is sent `POST {base_url}/chat/completions`, streamed
(`stream_options.include_usage` for token counts). Codex 0.169.0 refuses `wire_api = "chat"`;
Tether keeps it.

```toml
model = "qwen3-coder:30b"
model_provider = "gpu-box"

[model_providers.gpu-box]
name = "vLLM on the GPU box"
base_url = "http://10.0.0.5:8000/v1"
wire_api = "chat"
env_key = "VLLM_API_KEY"        # leave out for a server without a key
```

The built-in `ollama` (`http://localhost:11434/v1`) and `lmstudio` (`http://localhost:1234/v1`)
providers use it; `[model_providers.ollama] base_url = "http://gpu-box:11434/v1"` moves one, and
`wire_api = "responses"` switches a recent server to its Responses endpoint. `tether exec --oss`
(with `--local-provider ollama|lmstudio`, or `oss_provider` in config.toml) runs on one of them,
with Codex's `gpt-oss` model in that server's naming unless `-m`/`model` names another; with neither
flag nor key, it stops and says how to choose. `model/list` shows the models the server lists at
`GET {base_url}/models`. When nothing listens at `base_url`, the turn fails (after the provider's
retries) and `model/list` answers with an error, both saying `no model server answers at
{base_url} (is it running?)`.

How a chat server differs from the Responses path:

- **Tools.** The model is offered the tools it can call: every function tool, and `apply_patch`
  (a freeform tool on the Responses API) as a function with one string parameter, `input`, holding
  the patch. The hosted `web_search` tool runs on OpenAI's servers only, so it is not offered.
  Several calls in one answer run as parallel calls do.
- **Reasoning.** Thoughts a server streams in `reasoning_content` (llama.cpp, LM Studio, DeepSeek),
  `reasoning` (Ollama, vLLM, OpenRouter) or a `<think>…</think>` block opening the content (a
  server without a reasoning parser) become a reasoning item with the raw text, shown as it
  streams. Qwen3's thinking templates put `<think>` in the prompt, so the content has only the
  closing `</think>`: the text before it streams as answer text until the tag arrives, then
  becomes a reasoning item, and the finished answer holds only what follows the tag. There is no
  encrypted reasoning: thoughts are not sent back on the next request. A thread's effort
  (`model_reasoning_effort`, or a turn's `effort`) is sent as `reasoning_effort`, `minimal` as
  `low` and `xhigh` as `high` (the names such servers take); without one it is left out and the
  server's default stands. `model_reasoning_summary` is not sent.
- **History.** The conversation is sent whole on every request (no `previous_response_id`, no
  server-side state): instructions and developer messages as `system` messages, tool calls on the
  assistant message, each output as a `tool` message. Images in a tool's output are replaced by a
  note (tool messages carry text only); images in user messages are sent as `image_url` parts.
- **Compaction** is Tether's own (a summary the model writes, then a new history), as on the
  Responses path: there is no server-side compaction endpoint to call.
- **Context window.** `model_context_window` in config.toml is the window compaction works to (it
  starts at 90%) and clients are shown. Without it, the window the server lists for the model at
  `GET {base_url}/models` is used: vLLM's `max_model_len`, LM Studio's `max_context_length`,
  llama.cpp's `meta.n_ctx` (else `meta.n_ctx_train`). It is read once per provider and model, in
  the background when a thread opens; until it answers, and for servers that list none (Ollama) or
  do not answer, the default (272,000 tokens) stands, so set `model_context_window` for those.
- **Errors** map as on the Responses path: 429 (with `Retry-After`) and 5xx are retried, a prompt
  larger than the context (llama.cpp's `exceed_context_size_error`, vLLM's "maximum context
  length") is `contextWindowExceeded`, a stream that breaks before its finish reason is retried.
"""
