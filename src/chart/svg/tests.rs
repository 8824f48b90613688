//! Unit tests of the SVG layout: tick steps and the contrast of text on outcome fills.

use super::axes::nice_step;
use crate::chart::palette::{cell_fill, text_on, INK, INK_HEX};
use crate::chart::Outcome;

#[test]
fn nice_steps() {
    assert_eq!(nice_step(1.0, 5), (0.2, 1));
    assert_eq!(nice_step(10.0, 4), (2.5, 1));
    assert_eq!(nice_step(100.0, 4), (25.0, 0));
    assert_eq!(nice_step(0.07, 5), (0.02, 2));
    assert_eq!(nice_step(9.0, 1), (10.0, 0));
}

#[test]
fn dark_text_on_outcome_fills() {
    for o in Outcome::ALL {
        let fill = cell_fill(o);
        assert_eq!(text_on(fill), INK_HEX);
        let ratio = (fill.luminance() + 0.05) / (INK.luminance() + 0.05);
        assert!(ratio >= 4.5, "{o:?}: contrast {ratio}");
    }
}
