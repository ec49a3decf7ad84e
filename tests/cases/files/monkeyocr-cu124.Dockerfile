# The install step the report quotes from the project's Dockerfile (torch 2.5.1 from the cu124 index); the rest
# of the file is not in the report and is a minimal stand-in.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
WORKDIR /app
RUN pip install torch==2.5.1 torchvision==0.20.1 torchaudio==2.5.1 -i https://download.pytorch.org/whl/cu124
COPY . .
RUN pip install -e .
CMD ["python", "api/main.py"]
