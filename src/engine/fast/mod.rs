//! The fast CPU backend's passes: the reference twin's arithmetic, cell for cell and in the same
//! order, spread over rayon's threads and written so the compiler can vectorise the interior.
//!
//! Every pass here is bit-identical to its twin in `cpu/` whatever the thread count: cells are
//! independent within a pass, and the one reduction keeps the twin's fixed tree (workgroup
//! partials in parallel, combined in order). Passes without an entry here run the twin itself.
//! `tests/suite/fast_cpu.rs` checks the bits, pass by pass and over whole runs.
pub(crate) mod fold;
pub mod reduce;
pub mod volume;

use std::sync::atomic::{AtomicUsize, Ordering};

/// The fewest cells a rayon task takes. Handing work to another thread costs a wake-up and a wait
/// (10–50 µs, more in the kernel than in the pass: a 960 × 2 strip spent a third of its time
/// there, 2026-12-06), what a core spends on about this many cells of a step; a grid smaller
/// than this runs each pass on the calling thread, where rayon neither splits nor hands off.
/// Larger tasks cost balance: at 16k cells the beach preset's 384 × 192 ADI ran 7 % slower on
/// two cores (five tasks of uneven rows); at 4k, 7 % faster than with no floor.
pub const CELLS_PER_TASK: usize = 4 * 1024;

/// How many [`SmallGridSplit`] guards are alive.
static SPLITTING_SMALL_GRIDS: AtomicUsize = AtomicUsize::new(0);

/// The fewest items of `cells_per_item` cells each a rayon task takes (for `with_min_len`), so
/// that a task holds at least [`CELLS_PER_TASK`] cells; one while a [`SmallGridSplit`] lives.
/// The split never changes the bits: every parallel pass here works item by item and collects
/// in order.
pub fn items_per_task(cells_per_item: usize) -> usize {
    if SPLITTING_SMALL_GRIDS.load(Ordering::Relaxed) > 0 {
        return 1;
    }
    CELLS_PER_TASK.div_ceil(cells_per_item.max(1))
}

/// While this lives, the fast CPU backend splits every pass as finely as rayon will, however
/// small the grid: what a test of thread-count independence needs on grids small enough to
/// check against the twin. Slower, never different: other runs meanwhile get the same bits.
pub struct SmallGridSplit(());

/// Splits small grids until the guard drops (see [`SmallGridSplit`]).
pub fn split_small_grids() -> SmallGridSplit {
    SPLITTING_SMALL_GRIDS.fetch_add(1, Ordering::Relaxed);
    SmallGridSplit(())
}

impl Drop for SmallGridSplit {
    fn drop(&mut self) {
        SPLITTING_SMALL_GRIDS.fetch_sub(1, Ordering::Relaxed);
    }
}
