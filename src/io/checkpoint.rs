//! The checkpoint file: a run's whole state at one step, written atomically, read back only if
//! intact. Layout: the magic `SHOALCK2`, a TOML header (length-prefixed), the state's arrays, the
//! ground, the bodies and the columns' cover in a fixed order (each an element count and little-endian words), and a CRC-32 of
//! all before it.

use crate::error::{Error, Result};
use crate::io::atomic;
use crate::solver::SolverState;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Version 2 added the bodies and the columns' cover after the ground.
const MAGIC: &[u8; 8] = b"SHOALCK2";

/// A run's state at `step`: what `shoal run --checkpoint-every` writes and `shoal resume` reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    pub header: Header,
    /// The ground (relative to the reference level) the state stood on: a resume checks that its
    /// scene still builds the same terrain.
    pub ground: Vec<f32>,
    pub state: SolverState,
}

/// The scalars of a checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub nx: u32,
    pub ny: u32,
    pub step: u64,
    pub substeps: u32,
    /// The volume target above the still water (metres·cells).
    pub target: f64,
    pub counted_shortfall: f32,
    pub region_count: u32,
}

fn words_f32(out: &mut Vec<u8>, data: &[f32]) {
    out.extend((data.len() as u64).to_le_bytes());
    data.iter().for_each(|v| out.extend(v.to_le_bytes()));
}

fn words_u32(out: &mut Vec<u8>, data: &[u32]) {
    out.extend((data.len() as u64).to_le_bytes());
    data.iter().for_each(|v| out.extend(v.to_le_bytes()));
}

impl Checkpoint {
    pub fn write(&self, path: &Path) -> Result<()> {
        let header = toml::to_string(&self.header).map_err(|e| Error::io(path, std::io::Error::other(e)))?;
        let s = &self.state;
        let mut out = Vec::with_capacity(s.eta.len() * 16 + 1024);
        out.extend(MAGIC);
        out.extend((header.len() as u32).to_le_bytes());
        out.extend(header.as_bytes());
        for field in [&s.eta, &s.vel, &s.carry, &s.shortfall, &s.clamped] {
            words_f32(&mut out, field);
        }
        words_u32(&mut out, &s.region_labels);
        words_u32(&mut out, &s.region_targets);
        words_f32(&mut out, &s.pending);
        words_f32(&mut out, &self.ground);
        words_u32(&mut out, bytemuck::cast_slice(&s.bodies));
        words_u32(&mut out, bytemuck::cast_slice(&s.cover));
        out.extend(crc32fast::hash(&out).to_le_bytes());
        atomic::write_bytes(path, &out)
    }

    pub fn read(path: &Path) -> Result<Checkpoint> {
        let bad = |message: &str| Error::Checkpoint {
            path: path.to_path_buf(),
            message: message.into(),
        };
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        if bytes.len() < MAGIC.len() + 8 || &bytes[..MAGIC.len()] != MAGIC {
            return Err(bad(
                "not a checkpoint of this Shoal (no SHOALCK2 at its start; SHOALCK1 files predate bodies)",
            ));
        }
        let (body, crc) = bytes.split_at(bytes.len() - 4);
        if crc32fast::hash(body).to_le_bytes() != crc {
            return Err(bad("corrupted (its checksum does not match): it cannot be resumed"));
        }
        let mut reader = Reader {
            rest: &body[MAGIC.len()..],
        };
        let truncated = || bad("truncated");
        let header_len = u32::from_le_bytes(reader.take(4).ok_or_else(truncated)?.try_into().unwrap()) as usize;
        let header = std::str::from_utf8(reader.take(header_len).ok_or_else(truncated)?)
            .ok()
            .and_then(|text| toml::from_str::<Header>(text).ok())
            .ok_or_else(|| bad("its header is unreadable"))?;
        let mut f32s = || {
            reader
                .words()
                .map(|w| w.iter().map(|&v| f32::from_bits(v)).collect::<Vec<f32>>())
        };
        let (eta, vel, carry, shortfall, clamped) = (f32s(), f32s(), f32s(), f32s(), f32s());
        let mut state = SolverState {
            eta: eta.ok_or_else(truncated)?,
            vel: vel.ok_or_else(truncated)?,
            carry: carry.ok_or_else(truncated)?,
            shortfall: shortfall.ok_or_else(truncated)?,
            clamped: clamped.ok_or_else(truncated)?,
            counted_shortfall: header.counted_shortfall,
            region_count: header.region_count,
            ..SolverState::default()
        };
        state.region_labels = reader.words().ok_or_else(truncated)?;
        state.region_targets = reader.words().ok_or_else(truncated)?;
        let mut f32s = || -> Result<Vec<f32>> {
            Ok(reader
                .words()
                .ok_or_else(truncated)?
                .into_iter()
                .map(f32::from_bits)
                .collect())
        };
        state.pending = f32s()?;
        let ground = f32s()?;
        let bodies = reader.words().ok_or_else(truncated)?;
        let cover = reader.words().ok_or_else(truncated)?;
        let whole = |words: &[u32], size: usize| words.len().is_multiple_of(size / 4);
        if !whole(&bodies, std::mem::size_of::<crate::bodies::BodyState>())
            || !whole(&cover, std::mem::size_of::<crate::bodies::Cover>())
        {
            return Err(bad("its bodies are unreadable"));
        }
        state.bodies = bytemuck::pod_collect_to_vec(&bodies);
        state.cover = bytemuck::pod_collect_to_vec(&cover);
        Ok(Checkpoint { header, ground, state })
    }
}

struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = (self.rest.get(..n)?, self.rest.get(n..)?);
        self.rest = rest;
        Some(head)
    }

    /// A length-prefixed array of 32-bit words.
    fn words(&mut self) -> Option<Vec<u32>> {
        let n = u64::from_le_bytes(self.take(8)?.try_into().ok()?) as usize;
        let bytes = self.take(n.checked_mul(4)?)?;
        Some(
            bytes
                .chunks_exact(4)
                .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
                .collect(),
        )
    }
}
