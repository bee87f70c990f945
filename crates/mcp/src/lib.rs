//! pith for agent hosts: the MCP server (`pith mcp`) and the host set-up (`pith init`).
//!
//! The server serves the same engine as the CLI, so every tool's answer is byte-identical to
//! the matching CLI command's JSON; only `wire` shapes answers. `init` wires pith into one
//! host's MCP configuration and instructions file, merging, never clobbering.

mod guide;
pub mod init;
mod jsonedit;
mod server;
mod tools;

pub use server::{declarations, serve, Options, ServeError, LIST_TTL_MS};
