//! `cargo xtask`: project automation (skeleton; being written).
fn main() {}
