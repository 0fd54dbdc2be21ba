//! The checkpoint file: a run's whole state at one step, written atomically, read back only if
//! intact. Layout: the magic `SHOALCK4`, a TOML header (length-prefixed), the state's fields and
//! the ground in the order of `state_table::FIELDS` (each a word count and little-endian 32-bit
//! words), the terrain an edit gave the run (f64 bits as word pairs; none: the scene's own), and
//! a CRC-32 of all before it.

use crate::engine::solver::SolverState;
use crate::engine::state_table::{self, Field};
use crate::error::{Error, Result};
use crate::io::atomic;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Version 2 added the bodies and the columns' cover after the ground; version 3 the pipes
/// model's columns and particles after those, then the Navier-Stokes layer's grid and its spray
/// slots; version 4 the layer's cell flags (its velocity and pressure files at the step a run
/// resumes from are masked by them: issue 57).
const MAGIC: &[u8; 8] = b"SHOALCK4";

/// A run's state at `step`: what `shoal run --checkpoint-every` writes and `shoal resume` reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    pub(crate) header: Header,
    /// The ground (relative to the reference level) the state stood on: a resume checks that its
    /// scene still builds the same terrain.
    pub(crate) ground: Vec<f32>,
    pub(crate) state: SolverState,
    /// The terrain an edit gave the run (`Scene::ground_override`: absolute metres, the ground
    /// under the pipes' solids), so that a loaded checkpoint builds on it to the bit: `ground`
    /// holds f32 heights relative to the reference, and on the pipes the columns' top floors.
    /// None: the scene's own terrain (and every file from before it).
    pub(crate) terrain: Option<std::sync::Arc<Vec<f64>>>,
}

/// The scalars of a checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Header {
    pub nx: u32,
    pub ny: u32,
    pub step: u64,
    pub substeps: u32,
    /// The volume target above the still water (metres·cells).
    pub target: f64,
    /// The height field's books' target (`VolumeState::target_hi`, `target_lo`, their bits), as
    /// the next chunk goes on from it (absent in checkpoints of earlier versions: from `target`
    /// less `counted_shortfall`, the last step's shortfall they counted in it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub books_target: Option<[u32; 2]>,
    /// Earlier versions' last-step shortfall (read, never written).
    #[serde(default, skip_serializing)]
    pub counted_shortfall: f32,
    pub region_count: u32,
    /// The Navier-Stokes layer's pressure budget for the next chunk (absent for the others).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns_budget: Option<u32>,
    /// The Navier-Stokes layer's [floor, top] (their bits; `NsLayer::span`): a loaded checkpoint
    /// builds its layer over it (an edit may have grown it: `Scene::layer_span`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns_span: Option<[u32; 2]>,
    /// The layer's volume target (`SolverState::ns_target`, its bits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns_target: Option<[u32; 2]>,
    /// The pipes model's counters (absent for the height field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipes: Option<PipeHeader>,
    /// The scene as it was run (its resolved TOML): a resume refuses a scene.toml edited since
    /// in what the state depends on (absent in checkpoints of earlier versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene: Option<String>,
    /// The last step's coupling solve (iterations, residual's bits), which stats.csv reports: a
    /// resume that writes again the snapshot it stopped before writes the same row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coupling: Option<[u32; 2]>,
}

/// The pipes model's counters a resume continues.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PipeHeader {
    /// The water the columns and particles should hold, units.
    pub target_units: i64,
    /// Particles made, ended and refused since the start.
    pub made: u64,
    pub ended: u64,
    pub refused: u64,
}

fn words_u32(out: &mut Vec<u8>, data: &[u32]) {
    out.extend((data.len() as u64).to_le_bytes());
    data.iter().for_each(|v| out.extend(v.to_le_bytes()));
}

impl Checkpoint {
    /// The step the state was saved after.
    pub fn step(&self) -> u64 {
        self.header.step
    }

    /// Writes the checkpoint atomically (a temporary file renamed into place).
    pub fn write(&self, path: &Path) -> Result<()> {
        let header = toml::to_string(&self.header).map_err(|e| Error::io(path, std::io::Error::other(e)))?;
        let s = &self.state;
        let mut out = Vec::with_capacity(s.eta.len() * 16 + 1024);
        out.extend(MAGIC);
        out.extend((header.len() as u32).to_le_bytes());
        out.extend(header.as_bytes());
        // Each field as little-endian words (an f32's are its bits), in the table's order.
        for spec in state_table::checkpointed() {
            match spec.field {
                Field::Ground => words_u32(&mut out, bytemuck::cast_slice(&self.ground)),
                field => words_u32(&mut out, s.words(field)),
            }
        }
        let terrain = self.terrain.as_ref().map_or(&[][..], |t| &t[..]);
        words_u32(&mut out, bytemuck::cast_slice(terrain));
        out.extend(crc32fast::hash(&out).to_le_bytes());
        atomic::write_bytes(path, &out)
    }

    /// Reads a checkpoint, refusing a truncated or corrupted one.
    pub fn read(path: &Path) -> Result<Checkpoint> {
        let bad = |message: &str| Error::Checkpoint {
            path: path.to_path_buf(),
            message: message.into(),
        };
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        if bytes.len() < MAGIC.len() + 8 || &bytes[..MAGIC.len()] != MAGIC {
            return Err(bad(
                "not a checkpoint of this Shoal (no SHOALCK4 at its start; SHOALCK1 to SHOALCK3 files \
                 come from earlier versions, before bodies, pipes and the Navier-Stokes layer's flags)",
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
        let mut state = SolverState {
            region_count: header.region_count,
            ns_budget: header.ns_budget.unwrap_or(0),
            ns_target: header.ns_target.map(|t| t.map(f32::from_bits)),
            ..SolverState::default()
        };
        let mut ground = Vec::new();
        for spec in state_table::checkpointed() {
            // A file that ends at a field's boundary comes from before the fields after it were
            // added (the Navier-Stokes layer's spray and markers): they are empty. The checksum
            // has already told a file cut short from an older one.
            let words = if reader.rest.is_empty() {
                Vec::new()
            } else {
                reader.words().ok_or_else(truncated)?
            };
            match spec.field {
                Field::Ground => ground = bytemuck::cast_slice(&words).to_vec(),
                field if !state.set_words(field, &words) => {
                    return Err(bad(&format!("its {} are unreadable", spec.what)));
                }
                _ => {}
            }
        }
        // Last: a file from before it ends here.
        let terrain = match reader.rest.is_empty() {
            true => Vec::new(),
            false => reader.words().ok_or_else(truncated)?,
        };
        if terrain.len() % 2 != 0 {
            return Err(bad("its terrain is unreadable"));
        }
        let terrain = (!terrain.is_empty()).then(|| std::sync::Arc::new(bytemuck::pod_collect_to_vec(&terrain)));
        Ok(Checkpoint {
            header,
            ground,
            state,
            terrain,
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A header of an `nx` × `ny` height-field run at step 3, no more.
    fn header(nx: u32, ny: u32) -> Header {
        Header {
            nx,
            ny,
            step: 3,
            substeps: 1,
            target: 0.0,
            books_target: None,
            counted_shortfall: 0.0,
            region_count: 0,
            ns_budget: None,
            ns_span: None,
            ns_target: None,
            pipes: None,
            scene: None,
            coupling: None,
        }
    }

    #[test]
    fn a_checkpoint_from_before_the_layers_spray_and_markers_still_reads() {
        // The fields NsDrops, NsMarkers and NsMarkerBook came last; a file written before them
        // ends after NsW. Cut them off a new file (three empty fields: 8 bytes each) and seal it.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.bin");
        let checkpoint = Checkpoint {
            header: Header {
                step: 7,
                target: 0.5,
                books_target: Some([0.5f32.to_bits(), 0]),
                ..header(2, 2)
            },
            ground: vec![-1.0; 4],
            state: SolverState {
                eta: vec![0.25; 4],
                ..SolverState::default()
            },
            terrain: None,
        };
        checkpoint.write(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let body = &bytes[..bytes.len() - 4 - 3 * 8];
        let mut old = body.to_vec();
        old.extend(crc32fast::hash(body).to_le_bytes());
        std::fs::write(&path, &old).unwrap();
        assert_eq!(Checkpoint::read(&path).unwrap(), checkpoint);
        // Cut inside a field, it is still refused.
        let cut = &bytes[..bytes.len() - 4 - 3 * 8 - 2];
        let mut bad = cut.to_vec();
        bad.extend(crc32fast::hash(cut).to_le_bytes());
        std::fs::write(&path, &bad).unwrap();
        assert!(Checkpoint::read(&path).is_err());
    }

    #[test]
    fn an_edited_terrain_comes_back_to_the_bit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("edited.bin");
        let mut checkpoint = Checkpoint {
            header: header(2, 1),
            ground: vec![0.1, 0.2],
            state: SolverState {
                eta: vec![0.3; 2],
                ..SolverState::default()
            },
            terrain: Some(std::sync::Arc::new(vec![100.1 + 1e-12, -3.7])),
        };
        checkpoint.write(&path).unwrap();
        assert_eq!(Checkpoint::read(&path).unwrap(), checkpoint);
        checkpoint.terrain = None;
        checkpoint.write(&path).unwrap();
        assert_eq!(Checkpoint::read(&path).unwrap(), checkpoint);
    }
}
