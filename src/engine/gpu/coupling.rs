//! The coupling pass (`wgsl/coupling.wgsl`): the virtual-height solve (Jacobi or PCG) over the
//! tagged cells' box, dispatched indirectly, and the correction it makes. No readback: `plan`
//! groups the bodies into independent clusters and gives each, when all fit `SOLO` cells, a
//! workgroup of its own (`solo`, the whole solve in one dispatch); otherwise the passes over the
//! box solve, where PCG's convergence test zeroes the indirect arguments of the iterations left.

use crate::engine::bodies::{BodyParams, COUPLING_PCG};
use crate::engine::gpu::binding::{bind_group, pipeline, reflected_layout};
use crate::engine::gpu::state::BodyBuffers;
use crate::engine::gpu::state::BodySurface;

pub struct Coupling {
    plan: wgpu::ComputePipeline,
    start: wgpu::ComputePipeline,
    start_total: wgpu::ComputePipeline,
    jacobi: [wgpu::ComputePipeline; 2],
    product: wgpu::ComputePipeline,
    alpha: wgpu::ComputePipeline,
    update: wgpu::ComputePipeline,
    beta: wgpu::ComputePipeline,
    apply: wgpu::ComputePipeline,
    solo: wgpu::ComputePipeline,
    solo_report: wgpu::ComputePipeline,
    shared: wgpu::BindGroup,
    /// The indirect arguments, bound only to the one-workgroup passes that write them.
    args: wgpu::BindGroup,
    /// `levels[p]`: level p's eta and vel, written in place.
    levels: [wgpu::BindGroup; 2],
    method: u32,
    iterations: u32,
    /// The box always fits `solo` (`BodyParams::always_solo`): the passes over a larger box are
    /// not recorded.
    always_solo: bool,
    /// More than one body: clusters of them may each take a `solo` workgroup.
    clusters: bool,
    /// `BodyBuffers::args`: the box passes' indirect arguments.
    indirect: wgpu::Buffer,
}

/// Byte offsets of the indirect arguments in `BodyBuffers::args`.
const BOX: u64 = 0;
const LIVE_BOX: u64 = 12;
const SOLO: u64 = 24;

impl Coupling {
    pub fn new(device: &wgpu::Device, surface: &BodySurface, b: &BodyBuffers, body_params: &BodyParams) -> Coupling {
        let module =
            crate::engine::gpu::shaders::module(device, "coupling.wgsl", crate::engine::gpu::shaders::COUPLING);
        let shared_layout = reflected_layout(device, "coupling shared", crate::wgsl::coupling::BINDINGS, &[], 0);
        let args_layout = reflected_layout(device, "coupling args", crate::wgsl::coupling::BINDINGS, &[], 2);
        let level_layout = reflected_layout(device, "coupling level", crate::wgsl::coupling::BINDINGS, &[], 1);
        let make = |entry: &str| pipeline(device, &module, &[&shared_layout, &level_layout], entry);
        let scalar = |entry: &str| pipeline(device, &module, &[&shared_layout, &level_layout, &args_layout], entry);
        Coupling {
            plan: scalar("plan"),
            start: make("start"),
            start_total: scalar("start_total"),
            jacobi: [make("jacobi_even"), make("jacobi_odd")],
            product: make("pcg_product"),
            alpha: scalar("pcg_alpha"),
            update: make("pcg_update"),
            beta: scalar("pcg_beta"),
            apply: make("apply"),
            solo: make("solo"),
            solo_report: scalar("solo_report"),
            shared: bind_group(
                device,
                "coupling shared",
                &shared_layout,
                &[
                    surface.params,
                    &b.params,
                    surface.ground,
                    &b.cover,
                    &b.vecs,
                    &b.q,
                    &b.partials,
                    &b.solve,
                    &b.faces,
                ],
            ),
            args: bind_group(device, "coupling args", &args_layout, &[&b.args]),
            levels: [0, 1].map(|p| {
                bind_group(
                    device,
                    "coupling level",
                    &level_layout,
                    &[surface.eta[p], surface.vel[p]],
                )
            }),
            method: body_params.method,
            iterations: body_params.iterations,
            always_solo: body_params.always_solo(),
            clusters: body_params.count > 1,
            indirect: b.args.clone(),
        }
    }

    /// Whether this is PCG (which tracks its residual; Jacobi's is not measured on the GPU).
    /// How the coupling solve went, from its scalars in a chunk's report (the residual is the
    /// PCG's; Jacobi keeps none).
    pub fn report(&self, solve: &crate::engine::bodies::Solve) -> crate::engine::bodies::SolveReport {
        crate::engine::bodies::SolveReport {
            iterations: solve.iterations,
            residual: if self.is_pcg() { solve.residual() } else { f32::NAN },
        }
    }

    pub fn is_pcg(&self) -> bool {
        self.method == COUPLING_PCG
    }

    /// Solves for the virtual height over the box `footprint` tagged, and applies it to the
    /// current level: `plan` and `solo` (a workgroup per cluster of bodies), and `solo_report`
    /// with more than one body; where a cluster's box may outgrow `solo`, the passes over the
    /// box too, 3 + 4·iterations (PCG) or 3 + sweeps (Jacobi) more, with no work on steps that
    /// `solo` takes. Past PCG's convergence the box passes have no workgroups and the
    /// one-workgroup passes return at once. `level`: the height-field level it corrects.
    pub fn record(&self, pass: &mut wgpu::ComputePass, level: usize) {
        let args = &self.indirect;
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[level], &[]);
        pass.set_bind_group(2, &self.args, &[]);
        let scalar = |pass: &mut wgpu::ComputePass, pipeline: &wgpu::ComputePipeline| {
            pass.set_pipeline(pipeline);
            pass.dispatch_workgroups(1, 1, 1);
        };
        let boxed = |pass: &mut wgpu::ComputePass, pipeline: &wgpu::ComputePipeline, at: u64| {
            pass.set_pipeline(pipeline);
            pass.dispatch_workgroups_indirect(args, at);
        };
        scalar(pass, &self.plan);
        boxed(pass, &self.solo, SOLO);
        if self.clusters {
            scalar(pass, &self.solo_report);
        }
        if self.always_solo {
            return;
        }
        boxed(pass, &self.start, BOX);
        scalar(pass, &self.start_total);
        if self.method == COUPLING_PCG {
            for _ in 0..self.iterations {
                boxed(pass, &self.product, LIVE_BOX);
                scalar(pass, &self.alpha);
                boxed(pass, &self.update, LIVE_BOX);
                scalar(pass, &self.beta);
            }
        } else {
            for sweep in 0..self.iterations {
                boxed(pass, &self.jacobi[(sweep % 2) as usize], BOX);
            }
        }
        boxed(pass, &self.apply, BOX);
    }
}
