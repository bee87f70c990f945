//! pith's own termination signals, for the faces: once installed, SIGINT, SIGTERM and SIGHUP
//! kill the runner groups pith started, and the faces ask whether pith was told to stop. The
//! mechanism is the runner crate's (it owns the process groups); the faces reach it here.

/// Routes pith's termination signals to the runner groups it starts. Call once, at start-up
/// of a process that runs tests.
pub fn install() {
    pith_runner::process::install_signal_handlers();
}

/// Whether pith was asked to stop (a signal arrived since [`install`]).
pub fn interrupted() -> bool {
    pith_runner::process::was_interrupted()
}
