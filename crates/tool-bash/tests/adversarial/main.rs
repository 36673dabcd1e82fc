//! The adversarial suite of issue 22 for the Bash permission path, one module per class of
//! attack. Every case runs real bash through the real engine in a temp tree and detects
//! execution with a canary (a file created or removed, a secret printed, a connection made); it
//! also runs with the defence off, where the canary must show, so no case passes vacuously.
//!
//! - [`class1_hidden_commands`]: commands hidden from the classifier, past `--deny 'Bash(rm *)'`;
//! - [`class2_options_and_redirects`]: abbreviated long options, options and configuration that
//!   run programs, read-write and network redirections, passing as read-only;
//! - [`class3_writes`]: writes to protected or outside paths in acceptEdits (and what
//!   acceptEdits must still run);
//! - [`class6_reads`]: reads outside the working directories.

mod class1_hidden_commands;
mod class2_options_and_redirects;
mod class3_writes;
mod class6_reads;
mod support;
