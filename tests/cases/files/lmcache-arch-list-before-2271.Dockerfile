# The build argument the PR changes (LMCache docker/Dockerfile: the CUDA arch list torch extensions are built
# for, `10.0+PTX` as its last entry); the stages around it are a minimal stand-in.
ARG BASE_IMAGE
FROM ${BASE_IMAGE} AS build
ARG torch_cuda_arch_list='7.0 7.5 8.0 8.6 8.9 9.0 10.0+PTX'
ENV TORCH_CUDA_ARCH_LIST=${torch_cuda_arch_list}
WORKDIR /workspace/LMCache
COPY . .
RUN pip install --no-build-isolation -e .
