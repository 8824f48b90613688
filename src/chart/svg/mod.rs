//! SVG rendering: each chart is laid out into a [`Scene`](scene::Scene) (shapes and text at
//! pixel positions), whose shapes plotters draws and whose text `text.rs` writes.
//!
//! `scene.rs` holds the drawing model and the layout constants, `legend.rs` the header and
//! legend, `axes.rs` the ticks, scales and axes; `grid.rs`, `line.rs` and `histogram.rs` lay
//! out one chart each with them.

mod axes;
mod grid;
mod histogram;
mod legend;
mod line;
mod scene;
#[cfg(test)]
mod tests;

pub use grid::grid_svg;
pub use histogram::histogram_svg;
pub use line::line_svg;
