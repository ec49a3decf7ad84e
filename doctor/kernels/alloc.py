"""Triton's shared-memory allocator, replayed on a list of buffers.

Triton (lib/Analysis/Allocation.cpp, `AllocationAnalysis::computeOffsets`) places every buffer a
kernel needs: explicit `local_alloc`s and the scratch of ops such as layout conversions, each
with a size, an alignment and a live range in program order. Buffers are sorted by size
(largest first, stable), given first-fit start offsets by the triple algorithm of "Algorithms
for Compile-Time Memory Optimization", then an interference graph (live ranges and byte
ranges both overlapping) is coloured first-fit and every buffer not of colour 0 is moved past
the buffers it interferes with, until nothing interferes. `metadata.shared` is the end of the
highest buffer. The packing is greedy, so the total is not always the peak of live bytes: a
barrier or a small scratch can end up above a ring it never overlaps in time. Replaying the
algorithm reproduces those bytes exactly, given the buffers in Triton's order: explicit ones,
then scratch, each in program order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_FOREVER = 1 << 62


@dataclass(eq=False)
class Buffer:
    """A buffer live over [start, end) in program order (Triton's operation ids)."""

    name: str
    size: int
    start: int
    end: int
    align: int = 16
    scratch: bool = False  # an op's temporary (conversion, reduction), not a local_alloc
    offset: int = field(default=0, init=False)

    def place(self, offset: int) -> int:
        self.offset = -(-offset // self.align) * self.align
        return self.offset

    def live_with(self, other: Buffer) -> bool:
        return self.start < other.end and other.start < self.end

    def bytes_overlap(self, other: Buffer) -> bool:
        return self.offset < other.offset + other.size and other.offset < self.offset + self.size


def _intersects(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _calculate_starts(buffers: list[Buffer]) -> None:
    """First-fit offsets: a multimap of (offset -> live range still free there), lowest first."""
    triples: list[tuple[int, int, tuple[int, int]]] = [(0, 0, (0, _FOREVER))]
    order = 1  # std::multimap keeps equal keys in insertion order
    pending = list(buffers)
    while pending and triples:
        triples.sort(key=lambda t: (t[0], t[1]))
        offset, _, free = triples.pop(0)
        chosen = next((b for b in pending if _intersects((b.start, b.end), free)
                       and not any(_intersects(t[2], (b.start, b.end)) for t in triples)), None)
        if chosen is None:
            continue
        aligned = chosen.place(offset)
        live = (chosen.start, chosen.end)
        triples.append((aligned + chosen.size, order, (max(free[0], live[0]), min(free[1], live[1]))))
        order += 1
        if free[0] < live[0]:
            triples.append((offset, order, (free[0], live[1])))
            order += 1
        if live[1] < free[1]:
            triples.append((offset, order, (live[0], free[1])))
            order += 1
        pending.remove(chosen)


def _interference(buffers: list[Buffer]) -> dict[Buffer, list[Buffer]]:
    graph: dict[Buffer, list[Buffer]] = {}
    for x in buffers:
        for y in buffers:
            if x is not y and x.live_with(y) and x.bytes_overlap(y):
                graph.setdefault(x, []).append(y)
    return graph


def _colour_and_bump(buffers: list[Buffer], graph: dict[Buffer, list[Buffer]]) -> None:
    colours = {b: (0 if b is buffers[0] else -1) for b in buffers}
    for x in buffers:
        taken = {colours[y] for y in graph.get(x, []) if colours[y] >= 0}
        colours[x] = next(c for c in range(len(buffers) + 1) if c not in taken)
    for x in buffers:
        bumped = max((y.offset + y.size for y in graph.get(x, [])), default=0)
        if colours[x] != 0:
            x.place(bumped)


def allocate(buffers: list[Buffer]) -> int:
    """Place every buffer as Triton does and return the shared memory size (bytes)."""
    if not buffers:
        return 0
    # Triton lists explicit buffers, then scratch buffers, each in program order, and then
    # stable-sorts them by size (largest first): ties keep that order
    listed = sorted((b for b in buffers if not b.scratch), key=lambda b: b.start) + \
        sorted((b for b in buffers if b.scratch), key=lambda b: b.start)
    ordered = sorted(listed, key=lambda b: -b.size)
    _calculate_starts(ordered)
    graph = _interference(ordered)
    while True:
        _colour_and_bump(ordered, graph)
        graph = _interference(ordered)
        if not graph:
            break
    return max(b.offset + b.size for b in ordered)


def nvmma_alignment(inner_bytes: int) -> int:
    """Alignment of an NVMMA shared layout (the operands of wgmma/tcgen05, TMA tiles): 128 bytes
    times its swizzle phases, and the swizzle is the widest of 128/64/32 bytes the inner
    dimension of the tile fills (NVMMASharedEncodingAttr::getAlignment)."""
    swizzle = next((width for width in (128, 64, 32) if inner_bytes >= width), 0)
    return 128 * (swizzle // 16) if swizzle else 128
