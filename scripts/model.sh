#!/usr/bin/env bash
# Start the local OpenAI-compatible model server the test command builds: llama-cpp-python's server with
# SmolLM2-135M-Instruct (tool calling via chatml-function-calling), on 127.0.0.1, with a context window that fits
# a run's prompts (8192 tokens: a run's first request is ~4,000 with every tool offered). Builds it into
# .tools/llama first if ./scripts/test.sh has not (once, ~7 min on 2 cores). Ctrl+C stops it.
#
#   ./scripts/model.sh [--port 8011] [--ctx 8192]
#
# then, in another terminal:  ./.venv/bin/dbg-bridge run --model-url http://127.0.0.1:8011/v1 --model smollm2 "TASK"
set -euo pipefail
cd "$(dirname "$0")/.."
port=8011
ctx=8192
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port="$2"; shift 2 ;;
    --ctx) ctx="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "model.sh: unknown argument $1 (--port N, --ctx N)" >&2; exit 2 ;;
  esac
done
SUDO=""
# shellcheck disable=SC1091
. scripts/setup.d/50-model-server.sh
gguf=$(find .tools/llama/lib -name 'SmolLM2-135M-Instruct*.gguf' | head -n 1)
if [ -z "$gguf" ]; then
  echo "model.sh: no SmolLM2 GGUF under .tools/llama (remove .tools/llama and run this again)" >&2
  exit 1
fi
echo "model server: http://127.0.0.1:$port/v1 (SmolLM2-135M-Instruct, context $ctx tokens)"
echo "  run with:  ./.venv/bin/dbg-bridge run --model-url http://127.0.0.1:$port/v1 --model smollm2 \"TASK\""
echo "  check it:  ./.venv/bin/dbg-bridge doctor --model-url http://127.0.0.1:$port/v1"
exec .tools/llama/bin/python -m llama_cpp.server --model "$gguf" --host 127.0.0.1 --port "$port" \
  --chat_format chatml-function-calling --n_ctx "$ctx" --n_threads "$(nproc)"
