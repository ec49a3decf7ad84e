"""GPU-pair links indexed once per facts tree, so every question the analysis asks of the topology costs
O(1) or O(group), never a scan of all N*(N-1)/2 links: the pair lookup, the worst link inside or between
blocks of consecutive GPUs (how serving engines lay out TP groups and PP stages), and the largest group of GPUs
that reach each other without a cross-socket (SYS) hop."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol


class Gpu(Protocol):  # doctor.pipeline.facts.Gpu, as far as the index reads it
    @property
    def index(self) -> int: ...


class Link(Protocol):  # doctor.pipeline.facts.Link, as far as the index reads it
    @property
    def a(self) -> int: ...
    @property
    def b(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def p2p_read(self) -> bool | None: ...
    @property
    def p2p_write(self) -> bool | None: ...

# Worst-last order of `nvidia-smi topo -m` link kinds (NV<n> is best); an unknown kind or a pair the
# facts do not record counts as the worst, SYS.
LINK_RANK = {"NV": 0, "PIX": 1, "PXB": 2, "PHB": 3, "NODE": 4, "SYS": 5}
WORST_RANK = LINK_RANK["SYS"]


def link_family(kind: str) -> str:
    """NV1..NV18 are all NVLink."""
    return "NV" if kind.startswith("NV") else kind


def kind_rank(kind: str) -> int:
    return LINK_RANK.get(link_family(kind), WORST_RANK)


def worst_kind(kinds: Sequence[str]) -> str | None:
    """The first kind of the highest rank (an unrecorded kind such as "unknown" ranks with SYS)."""
    return max(kinds, key=kind_rank, default=None)


class LinkIndex:
    def __init__(self, gpus: Sequence[Gpu], links: Sequence[Link]) -> None:
        self._pairs: dict[tuple[int, int], Link] = {}
        for link in links:
            self._pairs.setdefault(_key(link.a, link.b), link)
        self._order = [g.index for g in gpus]
        self._block_cache: dict[tuple[int, int], tuple[str, bool]] = {}
        self._between_cache: dict[tuple[int, int, int], str] = {}
        self._groups_cache: dict[tuple[int, int], tuple[str, bool]] = {}
        self._stages_cache: dict[tuple[int, int], str] = {}
        self._summary: dict[str, object] | None = None
        self._sys_free: int | bool | None = False  # False: not computed yet

    def link(self, a: int, b: int) -> Link | None:
        return self._pairs.get(_key(a, b))

    def kind(self, a: int, b: int) -> str:
        """The pair's link family (NV, PIX, ... as recorded); a pair the facts do not record is SYS."""
        link = self._pairs.get(_key(a, b))
        return link_family(link.kind) if link is not None else "SYS"

    def block(self, start: int, size: int) -> tuple[str, bool]:
        """GPUs at positions [start, start+size) of the facts' order: (worst link kind, every pair NVLink).
        Memoised: the planner asks for the same blocks for many layouts."""
        key = (start, size)
        hit = self._block_cache.get(key)
        if hit is None:
            ids = self._order[start:start + size]
            worst = self._worst((x, y) for i, x in enumerate(ids) for y in ids[i + 1:])
            hit = self._block_cache[key] = (worst, kind_rank(worst) == 0)
        return hit

    def between(self, start: int, size: int, other: int) -> str:
        """Worst link kind between the blocks [start, start+size) and [other, other+size)."""
        key = (start, size, other)
        hit = self._between_cache.get(key)
        if hit is None:
            left, right = self._order[start:start + size], self._order[other:other + size]
            hit = self._between_cache[key] = self._worst((x, y) for x in left for y in right)
        return hit

    def _worst(self, pairs: Iterable[tuple[int, int]]) -> str:
        """The first kind of the highest rank among `pairs` ("NV" for none); stops at the first SYS-ranked
        pair, which nothing can top (a block spanning hosts or sockets is decided by its first such pair)."""
        worst, worst_rank = "NV", 0
        for x, y in pairs:
            kind = self.kind(x, y)
            rank = kind_rank(kind)
            if rank > worst_rank:
                worst, worst_rank = kind, rank
                if rank == WORST_RANK:
                    break
        return worst

    def p2p_broken(self, tp: int, pp: int) -> bool:
        """Does any pair inside the first `pp` blocks of `tp` GPUs have P2P read known broken?"""
        for s in range(pp):
            ids = self._order[s * tp:(s + 1) * tp]
            for i, x in enumerate(ids):
                for y in ids[i + 1:]:
                    link = self._pairs.get(_key(x, y))
                    if link is not None and link.p2p_read is False:
                        return True
        return False

    def groups(self, tp: int, pp: int) -> tuple[str, bool]:
        """`block` over the first `pp` blocks of `tp` GPUs (the engines' TP groups), combined. Each answer
        extends the one for pp-1, so a planner walking every layout pays once per block, not per layout."""
        done = next((p for p in range(pp, 0, -1) if (tp, p) in self._groups_cache), 0)
        for p in range(done + 1, pp + 1):
            last = self.block((p - 1) * tp, tp)
            if p > 1:
                kind, all_nv = self._groups_cache[(tp, p - 1)]
                last = (worst_kind([kind, last[0]]) or kind, all_nv and last[1])
            self._groups_cache[(tp, p)] = last
        return self._groups_cache[(tp, pp)]

    def stages(self, tp: int, pp: int) -> str:
        """Worst link between consecutive blocks among the first `pp` blocks of `tp` GPUs (pp >= 2)."""
        done = next((p for p in range(pp, 1, -1) if (tp, p) in self._stages_cache), 1)
        for p in range(done + 1, pp + 1):
            last = self.between((p - 2) * tp, tp, (p - 1) * tp)
            before = self._stages_cache.get((tp, p - 1), last)
            self._stages_cache[(tp, p)] = worst_kind([before, last]) or last
        return self._stages_cache[(tp, pp)]

    def summary(self, links: Sequence[Link]) -> dict[str, object]:
        """Counts over every recorded link, computed once per topology."""
        if self._summary is None:
            kinds = [link.kind for link in links]
            nvlink = sum(1 for k in kinds if k.startswith("NV"))
            self._summary = {
                "links": len(kinds), "nvlink_pairs": nvlink, "pcie_only": bool(kinds) and not nvlink,
                "full_nvlink": bool(kinds) and nvlink == len(kinds), "kinds": sorted(set(kinds)),
                "p2p_unsupported_pairs": sum(1 for link in links if link.p2p_read is False or link.p2p_write is False),
            }
        return self._summary

    def sys_free_group(self, gpus: Sequence[Gpu]) -> int | None:
        """largest_sys_free_group, once per topology; None when no link is SYS."""
        if self._sys_free is False:
            has_sys = any(link.kind == "SYS" for link in self._pairs.values())
            self._sys_free = self.largest_sys_free_group(gpus) if has_sys else None
        return self._sys_free  # type: ignore[return-value]

    def largest_sys_free_group(self, gpus: Sequence[Gpu]) -> int:
        """Greedy, in GPU order from each GPU: the largest set of GPUs whose every pair has a recorded link
        that is not SYS. Each step keeps the candidates that reach every member so far, so the cost is
        the size of the non-SYS neighbourhoods, not the number of GPUs cubed."""
        near: dict[int, set[int]] = {g.index: set() for g in gpus}
        for (a, b), link in self._pairs.items():
            if a != b and link.kind != "SYS" and a in near and b in near:
                near[a].add(b)
                near[b].add(a)
        position = {g.index: i for i, g in enumerate(gpus)}
        best = 1
        for gpu in gpus:
            size, candidates = 1, set(near[gpu.index])
            while candidates:
                pick = min(candidates, key=position.__getitem__)
                size += 1
                candidates &= near[pick]
            best = max(best, size)
        return best


def _key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a <= b else (b, a)
