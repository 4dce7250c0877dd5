//! The home page's composition (issue 22 part 3, spec 3 §7 "Face photo and
//! popups" and the square's column and component calls): wire types
//! (`compose`) and the pure rules of targeting, schedules, frequency caps and
//! links (`rules`), and what viewers receive (`view`).

pub mod compose;
pub mod rules;
pub mod view;

pub use compose::{
    Banner, Composition, ElementKind, ElementRef, LiveQuery, Module, Popup, PopupKind,
};
pub use rules::{Audience, Cap, Schedule, Targeting, Viewer};
