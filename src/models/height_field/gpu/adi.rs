//! The implicit ADI step pass (`wgsl/adi.wgsl`): its pipelines, its work buffers and the
//! per-dispatch sweep configurations, built once. See the WGSL header for the numerics.

use crate::engine::gpu::binding::{dynamic_uniform_entry, filled_buffer, layout, pipeline, reflected, zeroed_buffer};
use crate::engine::gpu::level::LevelBindings;
use crate::engine::gpu::state::GpuState;
use crate::engine::params::Params;
use crate::error::{Error, Result};
use crate::scene::BoundaryMode;
use bytemuck::{Pod, Zeroable};

/// Cells one solve workgroup holds on chip.
pub use crate::wgsl::adi::CHIP;
/// Threads per solve workgroup (`WG` in adi.wgsl).
pub use crate::wgsl::adi::WG;

/// Mirror of WGSL `Sweep`: 16 scalars, 64 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Sweep {
    pub axis: u32,
    pub n: u32,
    pub lines: u32,
    pub tile: u32,
    pub chip: u32,
    pub levels: u32,
    pub stride: u32,
    pub src: u32,
    pub from_scratch: u32,
    pub periodic: u32,
    pub bc_lo: u32,
    pub bc_hi: u32,
    pub fused: u32,
    pub out_at: u32,
    pub z_at: u32,
    pub cyclic_at: u32,
}

/// How lines of `n` cells are cut for the solve: `tile` lines per workgroup, `chip` cells of each
/// on chip, after `levels` PCR steps in global memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiling {
    pub tile: u32,
    pub chip: u32,
    pub levels: u32,
}

impl Tiling {
    /// Short lines share a workgroup (as many as fit, so no thread idles on a 6-cell line); a line
    /// longer than CHIP is split by the fewest global steps that make its parts fit.
    pub fn for_line(n: u32) -> Tiling {
        let p2 = n.next_power_of_two();
        if p2 <= CHIP {
            let tile = (CHIP / p2).min(WG);
            Tiling {
                tile,
                chip: CHIP / tile,
                levels: 0,
            }
        } else {
            Tiling {
                tile: 1,
                chip: CHIP,
                levels: n.div_ceil(CHIP).next_power_of_two().trailing_zeros(),
            }
        }
    }
}

/// Where things live in the `work` buffer (f32 elements): the final δx at 0, then, when some
/// sweep cannot fuse its flux-form rebuild, a solve's raw x, its z channel (periodic) and one
/// cyclic factor per line. The two sweeps run one after the other, so they share these.
#[derive(Clone, Copy, Debug, Default)]
struct WorkLayout {
    out: u32,
    z: u32,
    cyclic: u32,
    len: u64,
}

impl WorkLayout {
    fn new(nx: u32, ny: u32, unfused: bool, periodic: bool) -> WorkLayout {
        let cells = nx as u64 * ny as u64;
        let mut w = WorkLayout {
            len: cells,
            ..WorkLayout::default()
        };
        if unfused {
            w.out = w.len as u32;
            w.len += cells;
        }
        if periodic {
            w.z = w.len as u32;
            w.cyclic = (w.len + cells) as u32;
            w.len += cells + nx.max(ny) as u64;
        }
        w
    }
}

/// One sweep's dispatch plan: its main configuration and one per global step (dynamic offsets).
struct AxisDispatch {
    tiling: Tiling,
    lines: u32,
    periodic: bool,
    fused: bool,
    main: u32,
    global_steps: Vec<u32>,
}

/// The ADI pass (`wgsl/adi.wgsl`): one x sweep and one y sweep per step.
pub struct Adi {
    build: wgpu::ComputePipeline,
    reduce_global: wgpu::ComputePipeline,
    solve: wgpu::ComputePipeline,
    cyclic_factor: wgpu::ComputePipeline,
    conserve: wgpu::ComputePipeline,
    corners: wgpu::ComputePipeline,
    sweeps: wgpu::BindGroup,
    axes: [AxisDispatch; 2],
    slope_corners: bool,
    /// The buffers the sweeps bind, kept for tests that drive the solver directly.
    work: wgpu::Buffer,
    /// The two halves of the global steps' scratch (`scratch0`, `scratch1`).
    scratch: [wgpu::Buffer; 2],
    configs: Vec<Sweep>,
    from_scratch_x: u32,
}

/// Storage buffers an ADI pipeline binds (groups 0–3: level.wgsl's 3 shared (ground, books,
/// carry) and 4 of the levels, then work and the two scratch halves): the adapter must allow
/// this many per stage. WebGPU gives 8 by default and 10 on most adapters.
const STORAGE_BUFFERS: u32 = 10;

impl Adi {
    /// Builds the pipelines and bind groups once.
    pub fn new(device: &wgpu::Device, level: &LevelBindings, params: &Params) -> Result<Adi> {
        Self::build(device, level, params, false)
    }

    /// An `Adi` whose scratch holds a full grid even where no line needs global steps, so
    /// [`Adi::solve_rows`] can feed it equations. For tests.
    #[doc(hidden)]
    pub fn with_scratch(device: &wgpu::Device, level: &LevelBindings, params: &Params) -> Result<Adi> {
        Self::build(device, level, params, true)
    }

    fn build(device: &wgpu::Device, level: &LevelBindings, params: &Params, force_scratch: bool) -> Result<Adi> {
        let limits = device.limits();
        let (nx, ny) = (params.nx, params.ny);
        let periodic = [
            params.bc_west == BoundaryMode::Periodic as u32,
            params.bc_south == BoundaryMode::Periodic as u32,
        ];
        let tiling = [Tiling::for_line(nx), Tiling::for_line(ny)];
        let fused = [0, 1].map(|a| tiling[a].levels == 0 && !periodic[a]);
        let work = WorkLayout::new(
            nx,
            ny,
            force_scratch || fused.contains(&false),
            periodic.contains(&true),
        );
        let cells = nx as u64 * ny as u64;
        // Each of the two halves.
        let scratch_bytes = if force_scratch || tiling.iter().any(|t| t.levels > 0) {
            cells * 16
        } else {
            16
        };
        check_limits(&limits, nx, ny, work.len * 4, scratch_bytes)?;
        let config_stride = (std::mem::size_of::<Sweep>() as u32)
            .next_multiple_of(crate::engine::gpu::binding::dynamic_offset_alignment(&limits));
        let plan = SweepPlan::new(params, tiling, fused, periodic, &work, config_stride);
        let buffers = SweepBuffers::new(device, &plan.configs, config_stride, work.len * 4, scratch_bytes);
        let module = crate::engine::gpu::shaders::module(device, "adi.wgsl", crate::engine::gpu::shaders::ADI);
        let [a, b, c] = level.layouts();
        let layouts = [a, b, c, &buffers.layout];
        Ok(Adi {
            build: pipeline(device, &module, &layouts, "build"),
            reduce_global: pipeline(device, &module, &layouts, "reduce_global"),
            solve: pipeline(device, &module, &layouts, "solve"),
            cyclic_factor: pipeline(device, &module, &layouts, "cyclic_factor"),
            conserve: pipeline(device, &module, &layouts, "conserve"),
            corners: pipeline(device, &module, &layouts, "corners"),
            sweeps: buffers.sweeps,
            axes: plan.axes,
            slope_corners: crate::engine::schedule::slope_corners(params),
            work: buffers.work,
            scratch: buffers.scratch,
            configs: plan.configs,
            from_scratch_x: plan.from_scratch_x,
        })
    }

    /// Records one implicit step reading level `current`; the caller flips `current` after.
    pub fn step(&self, pass: &mut wgpu::ComputePass, level: &LevelBindings, state: &GpuState, slot_offset: u32) {
        level.bind(pass, state, slot_offset);
        self.sweep(pass, state, 0);
        self.sweep(pass, state, 1);
        if self.slope_corners {
            pass.set_pipeline(&self.corners);
            pass.dispatch_workgroups(1, 1, 1);
        }
    }

    /// Records one sweep (0: x, 1: y, which ends the step) with groups 0–2 already bound: global
    /// PCR steps if its lines need them, the solve, and the cyclic and flux-form passes it needs.
    pub fn sweep(&self, pass: &mut wgpu::ComputePass, state: &GpuState, axis: usize) {
        let axis = &self.axes[axis];
        let cell_groups = (state.nx.div_ceil(16), state.ny.div_ceil(16));
        if axis.tiling.levels > 0 {
            pass.set_pipeline(&self.build);
            pass.set_bind_group(3, &self.sweeps, &[axis.main]);
            pass.dispatch_workgroups(cell_groups.0, cell_groups.1, 1);
            pass.set_pipeline(&self.reduce_global);
            for &offset in &axis.global_steps {
                pass.set_bind_group(3, &self.sweeps, &[offset]);
                pass.dispatch_workgroups(cell_groups.0, cell_groups.1, 1);
            }
        }
        self.solve_axis(pass, axis);
        if !axis.fused {
            pass.set_pipeline(&self.conserve);
            pass.dispatch_workgroups(cell_groups.0, cell_groups.1, 1);
        }
    }

    /// Dispatches per sweep (0: x, 1: y), for benchmarks and notes.
    pub fn dispatches(&self, axis: usize) -> u32 {
        let a = &self.axes[axis];
        let global = if a.tiling.levels > 0 { 1 + a.tiling.levels } else { 0 };
        global + 1 + a.periodic as u32 + !a.fused as u32
    }

    /// The on-chip solve of one axis (reading scratch after global steps), then its cyclic factor.
    fn solve_axis(&self, pass: &mut wgpu::ComputePass, axis: &AxisDispatch) {
        pass.set_pipeline(&self.solve);
        pass.set_bind_group(3, &self.sweeps, &[axis.main]);
        pass.dispatch_workgroups(axis.lines.div_ceil(axis.tiling.tile), 1 << axis.tiling.levels, 1);
        if axis.periodic {
            pass.set_pipeline(&self.cyclic_factor);
            pass.dispatch_workgroups(axis.lines.div_ceil(64), 1, 1);
        }
    }

    /// Solves given normalised tridiagonal systems, one per row of the grid (rows of nx cells),
    /// with the x sweep's PCR kernels: `equations` holds (a, c, r, r2) per cell with b = 1
    /// (periodic rows already in Sherman–Morrison form, `ratios` holding β/γ per row). Returns y,
    /// z and the per-row factor as the solve leaves them (x = y − factor·z on periodic rows),
    /// before any flux-form rebuild. Needs an `Adi` from [`Adi::with_scratch`]. For tests of PCR
    /// against Thomas.
    #[doc(hidden)]
    pub fn solve_rows(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        level: &LevelBindings,
        state: &GpuState,
        equations: &[[f32; 4]],
        ratios: Option<&[f32]>,
    ) -> Result<SolvedRows> {
        let x = &self.axes[0];
        let main = self.configs[self.configs.len() - 1];
        queue.write_buffer(&self.scratch[0], 0, bytemuck::cast_slice(equations));
        if let Some(r) = ratios {
            queue.write_buffer(&self.work, main.cyclic_at as u64 * 4, bytemuck::cast_slice(r));
        }
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            level.bind(&mut pass, state, 0);
            pass.set_pipeline(&self.reduce_global);
            for &offset in &x.global_steps {
                pass.set_bind_group(3, &self.sweeps, &[offset]);
                pass.dispatch_workgroups(state.nx.div_ceil(16), state.ny.div_ceil(16), 1);
            }
            let from_scratch = AxisDispatch {
                main: self.from_scratch_x,
                global_steps: Vec::new(),
                ..*x
            };
            self.solve_axis(&mut pass, &from_scratch);
        }
        queue.submit([encoder.finish()]);
        let words: Vec<f32> =
            bytemuck::cast_slice(&crate::engine::gpu::readback::read(device, queue, &self.work)?).to_vec();
        let cells = state.cells() as usize;
        let at = |offset: u32, len: usize| words[offset as usize..offset as usize + len].to_vec();
        Ok(SolvedRows {
            y: at(main.out_at, cells),
            z: x.periodic.then(|| at(main.z_at, cells)),
            factor: x.periodic.then(|| at(main.cyclic_at, state.ny as usize)),
        })
    }
}

/// What [`Adi::solve_rows`] returns.
#[doc(hidden)]
pub struct SolvedRows {
    pub y: Vec<f32>,
    pub z: Option<Vec<f32>>,
    pub factor: Option<Vec<f32>>,
}

/// Fails with `GridTooLarge` where the adapter cannot bind what the ADI solver needs.
fn check_limits(limits: &wgpu::Limits, nx: u32, ny: u32, work_bytes: u64, scratch_bytes: u64) -> Result<()> {
    let too_large = |what: String| Err(Error::GridTooLarge { nx, ny, what });
    if limits.max_storage_buffers_per_shader_stage < STORAGE_BUFFERS {
        return too_large(format!(
            "the ADI solver binds {STORAGE_BUFFERS} storage buffers, the adapter allows {}",
            limits.max_storage_buffers_per_shader_stage
        ));
    }
    for (what, bytes) in [("work", work_bytes), ("scratch", scratch_bytes)] {
        if bytes > limits.max_storage_buffer_binding_size || bytes > limits.max_buffer_size {
            return too_large(format!(
                "the ADI solver's {what} buffer needs {bytes} bytes, the adapter binds at most {} \
             (lines longer than {CHIP} cells need two scratch buffers of 16 bytes per cell)",
                limits.max_storage_buffer_binding_size.min(limits.max_buffer_size)
            ));
        }
    }
    Ok(())
}

/// Every sweep configuration the ADI pass binds (dynamic offsets `config_stride` apart): per
/// axis the main one and one per global step, then the x solve from scratch (`solve_rows`).
struct SweepPlan {
    configs: Vec<Sweep>,
    axes: [AxisDispatch; 2],
    from_scratch_x: u32,
}

impl SweepPlan {
    fn new(
        params: &Params,
        tiling: [Tiling; 2],
        fused: [bool; 2],
        periodic: [bool; 2],
        work: &WorkLayout,
        config_stride: u32,
    ) -> SweepPlan {
        let (nx, ny) = (params.nx, params.ny);
        let mut configs = Vec::new();
        let mut axes = Vec::new();
        for axis in 0..2usize {
            let t = tiling[axis];
            let (n, lines, lo, hi) = if axis == 0 {
                (nx, ny, params.bc_west, params.bc_east)
            } else {
                (ny, nx, params.bc_south, params.bc_north)
            };
            let main = Sweep {
                axis: axis as u32,
                n,
                lines,
                tile: t.tile,
                chip: t.chip,
                levels: t.levels,
                stride: 0,
                src: t.levels % 2,
                from_scratch: (t.levels > 0) as u32,
                periodic: periodic[axis] as u32,
                bc_lo: lo,
                bc_hi: hi,
                fused: fused[axis] as u32,
                out_at: work.out,
                z_at: work.z,
                cyclic_at: work.cyclic,
            };
            let at = |configs: &Vec<Sweep>| configs.len() as u32 * config_stride;
            let main_at = at(&configs);
            configs.push(main);
            let mut global_steps = Vec::new();
            for k in 0..t.levels {
                global_steps.push(at(&configs));
                configs.push(Sweep {
                    stride: 1 << k,
                    src: k % 2,
                    ..main
                });
            }
            axes.push(AxisDispatch {
                tiling: t,
                lines,
                periodic: periodic[axis],
                fused: fused[axis],
                main: main_at,
                global_steps,
            });
        }
        // The x solve reading equations from scratch and writing raw x, whatever the row length
        // (`solve_rows`); the work buffer then has room for raw x.
        let from_scratch_x = configs.len() as u32 * config_stride;
        configs.push(Sweep {
            from_scratch: 1,
            fused: 0,
            out_at: work.out,
            ..configs[0]
        });
        let [x, y]: [AxisDispatch; 2] = axes.try_into().ok().expect("two axes");
        SweepPlan {
            configs,
            axes: [x, y],
            from_scratch_x,
        }
    }
}

/// The sweeps' bind group: the configurations, the work buffer and the scratch.
struct SweepBuffers {
    layout: wgpu::BindGroupLayout,
    sweeps: wgpu::BindGroup,
    work: wgpu::Buffer,
    scratch: [wgpu::Buffer; 2],
}

impl SweepBuffers {
    fn new(
        device: &wgpu::Device,
        configs: &[Sweep],
        config_stride: u32,
        work_bytes: u64,
        scratch_bytes: u64,
    ) -> SweepBuffers {
        let mut config_bytes = vec![0u8; configs.len() * config_stride as usize];
        for (k, c) in configs.iter().enumerate() {
            let at = k * config_stride as usize;
            config_bytes[at..at + std::mem::size_of::<Sweep>()].copy_from_slice(bytemuck::bytes_of(c));
        }
        let config_buffer = filled_buffer(
            device,
            "adi sweeps",
            &config_bytes,
            crate::engine::gpu::binding::UNIFORM,
        );
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let storage = |label: &str, size: u64| zeroed_buffer(device, label, size.max(16), usage);
        let work_buffer = storage("adi work", work_bytes);
        let scratch = [
            storage("adi scratch 0", scratch_bytes),
            storage("adi scratch 1", scratch_bytes),
        ];

        // The sweep's configuration is a dynamic window (one per dispatch); the rest as declared.
        let mut entries = reflected(crate::wgsl::adi::BINDINGS, &[], 3);
        entries[0] = dynamic_uniform_entry(0, std::mem::size_of::<Sweep>() as u64);
        let sweep_layout = layout(device, "adi sweep", &entries);
        let sweeps = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("adi sweep"),
            layout: &sweep_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &config_buffer,
                        offset: 0,
                        size: std::num::NonZeroU64::new(std::mem::size_of::<Sweep>() as u64),
                    }),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: work_buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: scratch[0].as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: scratch[1].as_entire_binding(),
                },
            ],
        });
        SweepBuffers {
            layout: sweep_layout,
            sweeps,
            work: work_buffer,
            scratch,
        }
    }
}
