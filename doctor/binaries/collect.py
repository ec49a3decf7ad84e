"""collect: read the entries of a file's fatbins into a BinaryInfo (archs, counts, kernel families)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from doctor.binaries import fatbin, kernels
from doctor.binaries.archs import LTO, PTX, SASS, Arch, sort_tokens
from doctor.binaries.families import FamilyIndex
from doctor.binaries.locate import FatbinSite, release

if TYPE_CHECKING:
    from doctor.binaries.info import BinaryInfo

# What a fatbin holds, for counting: its images' (arch, codec) pairs. cuFFT's 24,000 fatbins come in
# about 15 such shapes, so counting shapes first and expanding them once keeps the loop short.
Shape = tuple[tuple[Arch, "str | None"], ...]


def collect(info: BinaryInfo, sites: list[FatbinSite], buf, with_names: bool = True) -> None:
    """Read every fatbin; keep what was read before an error, and report the first error.
    `with_names`: also read the kernel names of each SASS and PTX image, for kernel-family verdicts."""
    shapes: Counter[tuple[Shape, bool]] = Counter()  # (shape, holds no kernel) -> fatbins
    sections: dict[str, int] = {}
    names = _Names(info) if with_names else None
    for site in sites:
        try:
            entries = site.entries if site.entries is not None else fatbin.read_fatbin(buf, site.offset, site.limit)
        except fatbin.FatbinError as exc:
            info.error = info.error or str(exc)
            continue
        sections[site.section] = sections.get(site.section, 0) + 1
        info.unreferenced_fatbins += not site.referenced
        kernel_free = names.read(buf, entries) if names is not None else False
        shapes[tuple((e.arch, e.codec) for e in entries if e.arch is not None), kernel_free] += 1
        release(buf, site.offset, min(site.limit, len(buf)))  # read: keep the resident set small
    _expand(info, shapes)
    info.fatbin_sections = dict(sorted(sections.items(), key=lambda item: -item[1]))
    if names is not None:
        names.finish(buf)


def _expand(info: BinaryInfo, shapes: Counter[tuple[Shape, bool]]) -> None:
    tokens: dict[str, set[str]] = {SASS: set(), PTX: set(), LTO: set()}
    per_module: Counter[frozenset[str]] = Counter()
    images: Counter[str] = Counter()
    codecs: Counter[str] = Counter()
    for (shape, kernel_free), count in shapes.items():
        for arch, codec in shape:
            tokens[arch.kind].add(arch.token)
            images[arch.token] += count
            if codec:
                codecs[codec] += count
        info.entries += len(shape) * count
        info.compressed += sum(1 for _, codec in shape if codec) * count
        if kernel_free:  # images without a single kernel (an empty device link): nothing to launch
            info.kernel_free_modules += count
        elif shape:  # an empty fatbin (no image) is not a kernel module
            info.modules += count
            per_module[frozenset(arch.token for arch, _ in shape)] += count
            info.lto_only_modules += count * all(arch.kind == LTO for arch, _ in shape)
    info.sass = sort_tokens(tokens[SASS])
    info.ptx = sort_tokens(tokens[PTX])
    info.lto = sort_tokens(tokens[LTO])
    info.module_archs = [(sort_tokens(key), count) for key, count in per_module.most_common()]
    info.entry_counts = {t: images[t] for t in sort_tokens(images)}
    info.codecs = dict(codecs.most_common())


class _Names:
    """Kernel names, image by image. SASS images are named from their cubin's section name table. A
    PTX image takes the names of the SASS image of its own arch in the same fatbin
    (`-gencode arch=compute_90,code=[sm_90,compute_90]` is one compile: both hold the same kernels).
    PTX without such a twin is decoded only at the end, and only if the file's SASS named no kernels or
    named family kernels: PTX runs to megabytes (cuFFT 12.0 holds ~8,000 PTX-only fatbins, ~0.8 GB of
    text, and no family kernel)."""

    def __init__(self, info: BinaryInfo) -> None:
        self.info = info
        self.families = FamilyIndex()
        self.lone_ptx: list[fatbin.Entry] = []

    def read(self, buf, entries) -> bool:
        """Name the images of one fatbin; True when it provably holds no kernel: SASS images only, all
        read, none naming a kernel (the empty device-link module cuFFT and cuFFTW carry in .nv_fatbin)."""
        by_arch: dict[tuple[int, str], set[str]] = {}
        sass = ptx = unread = 0
        for entry in entries:
            if entry.arch is not None and entry.arch.kind == SASS:
                sass += 1
                names = kernels.names_in_entry(buf, entry)
                self._add(entry, names)
                if names is None:
                    unread += 1
                else:
                    by_arch[entry.arch.number, entry.arch.variant] = names
        for entry in entries:
            if entry.arch is not None and entry.arch.kind == PTX:
                ptx += 1
                twin = by_arch.get((entry.arch.number, entry.arch.variant))
                if twin is None:
                    self.lone_ptx.append(entry)
                else:
                    self._add(entry, twin)
        return bool(sass) and not ptx and not unread and not any(by_arch.values())

    def finish(self, buf) -> None:
        if self.lone_ptx and (not self.families.images or self.families.family_kernels()):
            for entry in self.lone_ptx:
                self._add(entry, kernels.names_in_entry(buf, entry))
        self.info.families = self.families.to_dict()
        self.info.kernel_archs = self.families.kernel_archs()

    def _add(self, entry: fatbin.Entry, names: set[str] | None) -> None:
        if names is None:
            self.info.unread_entries += 1
        else:
            self.families.add(names, entry.arch.token)


def collect_cubin(info: BinaryInfo, arch: Arch, buf, with_names: bool = True) -> None:
    """A standalone cubin: one module, one image."""
    info.sass = [arch.token]
    info.modules = info.entries = 1
    info.module_archs = [([arch.token], 1)]
    info.entry_counts = {arch.token: 1}
    if with_names:
        index = FamilyIndex()
        index.add(kernels.cubin_kernel_names(buf), arch.token)
        info.families = index.to_dict()
        info.kernel_archs = index.kernel_archs()
