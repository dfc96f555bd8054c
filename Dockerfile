# One image for every Sluice process; the command picks it (README: "Deploying"):
#   sluice-server --mode full       the API               (port 50051)
#   python -m server.docreader ...  the docreader         (port 50061)
#   sluice-worker [--pool NAME]     an RQ worker
#   sluice-housekeeper              the housekeeping sweeps
# Stage 1 builds the virtualenv with the compilers; stage 2 is the slim runtime with the
# docreader's programs (the same list .ci/run installs) and the venv only.

FROM python:3.11-slim-bookworm AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
# Every dependency ships a manylinux wheel: no compiler is needed.
RUN python -m venv /opt/sluice
WORKDIR /src
COPY pyproject.toml ./
COPY core core
COPY storage storage
COPY workers workers
COPY server server
COPY clients clients
RUN /opt/sluice/bin/pip install .

FROM python:3.11-slim-bookworm AS runtime
# OCR with script detection and the languages the docreader reads, fonts found through
# fontconfig, and LibreOffice without a GUI for legacy office files (doc, ppt, xls).
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        tesseract-ocr tesseract-ocr-eng tesseract-ocr-osd tesseract-ocr-rus \
        tesseract-ocr-chi-sim fontconfig fonts-wqy-zenhei \
        libreoffice-writer-nogui libreoffice-impress-nogui libreoffice-calc-nogui \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 sluice \
    && useradd --system --uid 10001 --gid sluice --home-dir /var/lib/sluice \
        --create-home --shell /usr/sbin/nologin sluice
COPY --from=build /opt/sluice /opt/sluice
ENV PATH=/opt/sluice/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    HF_HUB_OFFLINE=1 \
    SLUICE_DATA_DIR=/var/lib/sluice
WORKDIR /var/lib/sluice
USER 10001:10001
EXPOSE 50051 50061
# The API by default; compose and the Kubernetes manifests name each process's command.
CMD ["sluice-server", "--mode", "full", "--address", "0.0.0.0:50051"]
