# The shape of llama.cpp's .devops/cuda.Dockerfile before PR 20920: the build image's CUDA version is a build
# argument defaulting to 12.4.0, GGML_NATIVE is off and no arch list is passed, so llama.cpp's CMake picks its
# own default targets for that toolkit.
ARG UBUNTU_VERSION=22.04
ARG CUDA_VERSION=12.4.0
ARG BASE_CUDA_DEV_CONTAINER=nvidia/cuda:${CUDA_VERSION}-devel-ubuntu${UBUNTU_VERSION}
ARG BASE_CUDA_RUN_CONTAINER=nvidia/cuda:${CUDA_VERSION}-runtime-ubuntu${UBUNTU_VERSION}

FROM ${BASE_CUDA_DEV_CONTAINER} AS build
ARG CUDA_DOCKER_ARCH=default
RUN apt-get update && apt-get install -y build-essential cmake python3 git libcurl4-openssl-dev
WORKDIR /app
COPY . .
RUN if [ "${CUDA_DOCKER_ARCH}" != "default" ]; then \
        export CMAKE_ARGS="-DCMAKE_CUDA_ARCHITECTURES=${CUDA_DOCKER_ARCH}"; \
    fi && \
    cmake -B build -DGGML_NATIVE=OFF -DGGML_CUDA=ON -DLLAMA_CURL=ON ${CMAKE_ARGS} \
        -DCMAKE_EXE_LINKER_FLAGS=-Wl,--allow-shlib-undefined . && \
    cmake --build build --config Release -j$(nproc)

FROM ${BASE_CUDA_RUN_CONTAINER} AS server
COPY --from=build /app/build/bin/llama-server /app/llama-server
ENV LLAMA_ARG_HOST=0.0.0.0
ENTRYPOINT [ "/app/llama-server" ]
