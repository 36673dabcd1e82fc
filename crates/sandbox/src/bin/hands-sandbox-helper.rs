//! The sandbox helper as its own binary, for library users whose program does not handle
//! `__sandbox-helper` itself (see `hands_sandbox::helper`).

fn main() {
    let message = hands_sandbox::run_helper(std::env::args_os().skip(1));
    eprintln!("{message}");
    std::process::exit(126);
}
