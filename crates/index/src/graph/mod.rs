//! The workspace import graph: which file depends on which. Placeholder holding the
//! per-language resolvers until the core (graph type, reach, tests_of) replaces this file.
#![allow(dead_code)]

mod cpp;
mod csharp;
mod go;
mod java;
mod lex;
mod rust;
