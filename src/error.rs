//! The one error type of the crate. Every failure a user can cause ends here, so the CLI can print
//! `error: …` and exit non-zero instead of panicking.

use std::path::PathBuf;

/// Everything that can go wrong in Shoal.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A scene file (or the built-in scene) is malformed or fails validation.
    #[error("{}{}: {message}", .file.display(), .line.map(|l| format!(":{l}")).unwrap_or_default())]
    Scene {
        /// The scene (or sweep) file.
        file: PathBuf,
        /// 1-based line of the offending key, when it can be located.
        line: Option<usize>,
        /// What is wrong, naming the key.
        message: String,
    },

    /// No wgpu adapter could be found at all.
    #[error(
        "no GPU adapter found{0}. Shoal needs a wgpu adapter: a GPU driver, or Mesa's software \
         rasterisers (Debian: `apt-get install -y libegl1 libgl1-mesa-dri` for llvmpipe through EGL, \
         `apt-get install -y mesa-vulkan-drivers libvulkan1` for lavapipe), or run with `--backend cpu`"
    )]
    NoAdapter(String),

    /// The adapter refused the device we asked for.
    #[error("could not open the GPU device: {0}")]
    RequestDevice(#[from] wgpu::RequestDeviceError),

    /// The grid does not fit the adapter's buffer limits (or the address space).
    #[error("grid {nx}×{ny} is too large: {what}")]
    GridTooLarge {
        /// Cells along x.
        nx: u32,
        /// Cells along y.
        ny: u32,
        /// Which limit it exceeds.
        what: String,
    },

    /// A scene or request an embedded `Water` cannot run.
    #[error("{0}")]
    Embed(String),

    /// A NaN or infinity appeared in the state, or (the Navier-Stokes layer) the flow broke its
    /// explicit step's stability condition.
    #[error(
        "simulation diverged at step {step}: a value became NaN or infinite, or the flow outran the step's \
         stability limit"
    )]
    Diverged {
        /// The first step that produced a non-finite value (or broke the limit).
        step: u64,
    },

    /// The water's volume left its target by more than the model's books allow: water made or
    /// lost by something the scene asked for past what the model holds (the run stops rather
    /// than write it).
    #[error("the water's volume left its target at step {step}: {volume:.6e} m³ against {target:.6e} m³ ({why})")]
    VolumeParted {
        /// The step the books were checked at.
        step: u64,
        /// The volume the water holds, m³.
        volume: f64,
        /// The volume it should hold, m³.
        target: f64,
        /// What the books allow, and what may have done it.
        why: String,
    },

    /// Something a scene may ask for that this model or backend does not do yet.
    #[error("not built yet: {0}")]
    Unsupported(String),

    /// A wgpu validation or out-of-memory error, captured instead of panicking.
    #[error("GPU error: {0}")]
    Gpu(String),

    /// Reading GPU results back failed.
    #[error("GPU readback failed: {0}")]
    Readback(String),

    /// A file could not be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },

    /// An output folder that cannot be used.
    #[error("output folder {}: {message}", .path.display())]
    Output {
        /// The output folder.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },

    /// A checkpoint that cannot be resumed: unreadable, corrupted, or from another scene.
    #[error("checkpoint {}: {message}", .path.display())]
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// Why it cannot be resumed.
        message: String,
    },

    /// Some runs of a sweep failed (each was reported as it failed; the others finished).
    #[error("{failed} of {total} runs failed (see {}/summary.csv)", .out.display())]
    SweepFailed {
        /// Runs that failed.
        failed: usize,
        /// Runs in the sweep.
        total: usize,
        /// The sweep's output folder.
        out: PathBuf,
    },

    /// The run was interrupted (Ctrl-C) after writing what it had.
    #[error("interrupted at step {step}{}", .checkpoint.as_ref().map(|p| format!(": resume with `shoal resume {}`", p.display())).unwrap_or_default())]
    Interrupted {
        /// The last step written.
        step: u64,
        /// The checkpoint to resume from, when one was written.
        checkpoint: Option<PathBuf>,
    },
}

impl From<wgpu::Error> for Error {
    fn from(e: wgpu::Error) -> Self {
        Error::Gpu(e.to_string())
    }
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

/// Shoal's `Result`: its error is [`Error`] unless said.
pub type Result<T, E = Error> = std::result::Result<T, E>;
