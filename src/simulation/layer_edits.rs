//! Edits of a `Simulation` on the Navier-Stokes layer. The edit moves the ground and the water of
//! the layer's height field by the height field's rules (`cpu::edit`: a brush carries each
//! column's water with its ground, a splash adds water); then the layer is built again over the
//! edited ground from the edited surface and each vertical line of faces' depth-averaged
//! velocity (`setup::face_means`), set on its moving faces as a start's `[water] u_npy` is
//! (`NsLayer::build`). The 3D grid keeps its span, growing it where the
//! carried water needs more, never shrinking it (`Scene::layer_span`, which checkpoints keep);
//! within a column the velocity starts again uniform over the depth. What is not the 3D grid's
//! (spray and foam, bodies, the feeds' carry, the flood maps) carries over as it is. The same on
//! every backend: each saves its state, and the rebuilt one loads it.

use super::edits::{depths, EDITED};
use super::Simulation;
use crate::engine::edit::HostEdit;
use crate::error::Result;
use crate::models::navier_stokes::setup::face_means;
use crate::models::navier_stokes::state::coarse_mean;
use crate::scene::CarriedWater;

impl Simulation {
    /// Applies `edits` to the layer, or sets its ground to `terrain` (absolute metres), each
    /// column keeping its depth: splashes join the volume's target.
    pub(super) fn edit_layer(&mut self, edits: &[HostEdit], terrain: Option<Vec<f64>>) -> Result<()> {
        let mut checkpoint = self.checkpoint()?;
        let nx = self.scene.grid.nx as usize;
        let reference = self.fields.reference.0;
        let (mut ground, mut eta) = (checkpoint.ground.clone(), checkpoint.state.eta.clone());
        let added = crate::engine::cpu::edit::apply_edits(nx, edits, &mut ground, &mut eta);
        let absolute: Vec<f64> = match terrain {
            Some(terrain) => terrain,
            // The ground moves by what the edit moved it (in f64 about the absolute heights).
            None => self
                .fields
                .ground
                .iter()
                .zip(ground.iter().zip(&checkpoint.ground))
                .map(|(&b, (&new, &old))| b + (new as f64 - old as f64))
                .collect(),
        };
        // Each column's water on the ground the rebuild stands it on (`InitialFields`' f32 of
        // b − ref): its level as it is where that ground keeps its bits, else ground + depth.
        let depth = depths(&eta, &ground);
        let surface: Vec<f64> = absolute
            .iter()
            .zip(eta.iter().zip(&depth))
            .zip(&checkpoint.ground)
            .map(|((&b, (&level, &d)), &old)| {
                let rebuilt = (b - reference) as f32;
                let level = match (rebuilt.to_bits() == old.to_bits(), d > 0.0) {
                    (true, _) => level,
                    (false, true) => rebuilt + d,
                    (false, false) => rebuilt,
                };
                reference + level as f64
            })
            .collect();
        // The flow as the 3D grid holds it, each line of faces' depth mean (the checkpoint's faces:
        // no readback of the columns' means, which these supersede).
        let layer_faces = self.books.layer_grid.map(|grid| {
            // Each 3D column's water top before the edit (under the bodies' held volume).
            let s = &checkpoint.state;
            let tops: Vec<f32> = match s.cover.len() == s.eta.len() {
                true => s.eta.iter().zip(&s.cover).map(|(h, c)| h - c.held).collect(),
                false => s.eta.clone(),
            };
            let cz = self.scene.navier_stokes.as_ref().map_or(1, |ns| ns.coarsen as usize);
            let top = coarse_mean(&tops, nx, cz);
            let flags: Vec<u8> = s.ns_flags.iter().map(|&f| f as u8).collect();
            face_means(&grid, &flags, (&s.ns_u, &s.ns_v), &top)
        });
        let carried = std::sync::Arc::new(CarriedWater {
            surface,
            velocity: Vec::new(),
            layer_faces,
        });
        let span = self.books.layer_span;
        let mut next = self.build_with(absolute, |scene| {
            scene.water_override = Some(carried);
            scene.layer_span = span;
        })?;
        // From here the rebuilt layer stands on its own span (a checkpoint of it loads over it).
        next.scene.water_override = None;
        next.scene.layer_span = next.books.layer_span;
        let built = next.checkpoint()?;
        let water: f64 = added.iter().map(|&a| a as f64).sum();
        let (s, b) = (&mut checkpoint.state, built.state);
        s.eta = b.eta;
        s.ns_p = b.ns_p;
        s.ns_u = b.ns_u;
        s.ns_v = b.ns_v;
        s.ns_w = b.ns_w;
        s.ns_flags = b.ns_flags;
        s.ns_budget = b.ns_budget;
        s.ns_markers = b.ns_markers;
        s.ns_marker_book = b.ns_marker_book;
        // The layer's own target (its correction's) moves by the splashes' water, as the books'.
        s.ns_target = s
            .ns_target
            .map(|t| crate::engine::params::target_pair(crate::engine::params::pair_value(t) + water));
        checkpoint.header.ns_target = s.ns_target.map(|t| t.map(f32::to_bits));
        checkpoint.header.ns_budget = built.header.ns_budget;
        checkpoint.header.ns_span = built.header.ns_span;
        checkpoint.ground = built.ground;
        checkpoint.terrain = built.terrain;
        let moved = self.still + water - next.still;
        checkpoint.header.target = self.target + moved;
        let books = crate::engine::params::pair_value(self.books_target) + moved;
        checkpoint.header.books_target = Some(crate::engine::params::target_pair(books).map(f32::to_bits));
        next.restore(&checkpoint, std::path::Path::new(EDITED))?;
        next.totals.max_depth = depths(&checkpoint.state.eta, &checkpoint.ground)
            .iter()
            .fold(0.0f32, |m, &d| m.max(d));
        next.check_stability()?;
        self.adopt(next);
        Ok(())
    }
}
