// Linear-memory regions. Nothing on the scan path allocates through the runtime: the engine
// keeps one arena above the rule tables and hands out regions from it, growing memory only
// when an input is larger than any before.

let arenaBase: usize = 0; // first byte after the rule tables (set by init)
let arenaTop: usize = 0; // next free byte

let pageLimit: i32 = 65536; // 4 GiB: wasm32's own limit

/** Caps linear memory (64 KiB pages); an input that would need more traps instead of growing. */
export function setPageLimit(pages: i32): void {
  pageLimit = pages < 1 ? 1 : pages > 65536 ? 65536 : pages;
}

/** Makes sure [0, end) is backed by memory; traps when the page limit or the host refuses. */
export function ensure(end: usize): void {
  const have = (<usize>memory.size()) << 16;
  if (end > have) {
    const pages = <i32>((end - have + 0xffff) >> 16);
    if (memory.size() + pages > pageLimit || memory.grow(pages) < 0) unreachable();
  }
}

export function arenaInit(base: usize): void {
  arenaBase = (base + 15) & ~<usize>15;
  arenaTop = arenaBase;
  ensure(arenaTop);
}

/** Makes everything allocated so far permanent (tables built at init). */
export function arenaCommit(): void {
  arenaBase = arenaTop;
}

export function arenaReset(): void {
  arenaTop = arenaBase;
}

export function arenaMark(): usize {
  return arenaTop;
}

export function arenaRelease(mark: usize): void {
  arenaTop = mark;
}

/** Bump-allocates `bytes` (16-byte aligned) from the arena. */
export function arenaAlloc(bytes: usize): usize {
  const p = arenaTop;
  arenaTop = (p + bytes + 15) & ~<usize>15;
  ensure(arenaTop);
  return p;
}
