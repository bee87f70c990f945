//! pith for agent hosts: the MCP server (`pith mcp`).
//!
//! The server calls the same engine answers as the CLI, so every tool's answer is
//! byte-identical to the matching CLI command's JSON by construction: the engine shapes it
//! once. `pith init` (host set-up) is the `pith-init` crate's.

mod guide;
mod server;
mod tools;
mod transport;
mod workspace;

pub use server::{declarations, serve, Options, ServeError, LIST_TTL_MS};
