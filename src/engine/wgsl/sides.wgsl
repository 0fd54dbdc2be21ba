// The side codes of `[boundary]` (`BoundaryMode` in Rust), shared by both water models
// (`#import sides`). reflect: a wall; open: a ghost at the still level; periodic: wraps;
// absorb: non-reflecting (Mur's on the height field, Flather's on the pipes); the ghost modes are
// Wilson et al.'s (the height field and the pipes).

const REFLECT: u32 = 0u;
const OPEN: u32 = 1u;
const PERIODIC: u32 = 2u;
const ABSORB: u32 = 3u;
const GHOST_MEAN: u32 = 4u;
const GHOST_SLOPE: u32 = 5u;
// A wave maker (the height field, the pipes): never reaches a shader. The side runs as ABSORB, and the
// host feeds a line of cells just inside it with the maker's waves (src/feeds.rs).
const MAKER: u32 = 7u;
// Transmissive (the shallow-water model): the ghost copies the edge cell (zero gradient).
const FREE: u32 = 8u;
// A river's inflow, a given discharge per metre of side (the shallow-water model).
const DISCHARGE: u32 = 9u;
// A given level (the shallow-water model): a river's outflow, a sea.
const STAGE: u32 = 10u;
