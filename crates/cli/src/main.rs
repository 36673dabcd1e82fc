//! The `hands` command (skeleton; being written).
fn main() {
    for tool in hands_tools::registered_tools() {
        println!("{}", tool.name());
    }
}
