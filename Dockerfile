# The docgraph app image: CPU torch, the package, and the Streamlit UI on port 8501.
FROM python:3.11-slim

ENV PIP_NO_CACHE_DIR=1 \
    PYTHONUNBUFFERED=1 \
    OMP_THREAD_LIMIT=1 \
    HF_HUB_OFFLINE=1

# tesseract: the OCR of scanned pages (the default auto reader and the detector reader; see ingest/pdf/ocr.py).
RUN apt-get update \
    && apt-get install -y --no-install-recommends tesseract-ocr \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/docgraph
# Point TORCH_INDEX_URL at PyTorch's CPU wheel index to keep the image small (no CUDA libraries).
ARG TORCH_INDEX_URL=""
RUN if [ -n "$TORCH_INDEX_URL" ]; then pip install --index-url "$TORCH_INDEX_URL" torch==2.13.0; \
    else pip install torch==2.13.0; fi

COPY pyproject.toml constraints.txt README.md ./
COPY docgraph ./docgraph
COPY app ./app
COPY ingest ./ingest
COPY models ./models
COPY ui ./ui
COPY cypher ./cypher
COPY schema ./schema
COPY samples ./samples
# The versions the test suite ran with, as `make` installs them; torch aside, whose pin there names
# the local CPU build (2.13.0+cpu) that the plain PyPI index does not have.
RUN grep -v '^torch==' constraints.txt > /tmp/constraints.txt \
    && pip install -c /tmp/constraints.txt . \
    && rm /tmp/constraints.txt
# The encoder's ONNX export, made once at build time rather than at every container's first ingest.
ENV DOCGRAPH_MODEL_CACHE=/opt/docgraph/model-cache \
    DOCGRAPH_HOME=/data/docgraph
RUN python -c "from docgraph.app.config import load_settings; from docgraph.app.pipeline.embedding import configured_encoder; configured_encoder(load_settings())"

# Not root: the app parses PDFs that users upload and listens beyond loopback. The data volume is
# made from /data as the image has it, so it belongs to this user too.
RUN useradd --system --uid 10001 --home-dir /data --no-create-home docgraph \
    && mkdir -p /data/docgraph \
    && chown -R docgraph /data /opt/docgraph/model-cache
USER docgraph

EXPOSE 8501
# The UI listens beyond loopback, so it needs keys: the first start makes a writer key and keeps it in
# the data volume (`docker compose exec app cat /data/docgraph/first-writer-key`); sign in with it.
CMD ["sh", "-c", "docgraph keys create --role writer --name first --if-none --out \"$DOCGRAPH_HOME/first-writer-key\" && exec docgraph ui --host 0.0.0.0 --port 8501"]
